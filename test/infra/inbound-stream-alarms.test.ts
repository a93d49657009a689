import { Match } from 'aws-cdk-lib/assertions';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { PUBLISHABLE_RECORD_PATTERN } from '../../functions/event-table/stream-filter.ts';
import {
  configured,
  defaults,
  type Synthesized,
  synthInboundStacks,
} from '../support/inbound-stack.ts';
import { alarmAbove } from '../support/infra-expectations.ts';

describe('inbound path infrastructure', () => {
  synthInboundStacks();

  describe('stream event source', () => {
    const publisherMappings = ({ template, id, stack }: Synthesized) =>
      Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
        (mapping) =>
          JSON.stringify(mapping.Properties.FunctionName) ===
          JSON.stringify({ Ref: id(stack.eventPublisher.publishEvents) }),
      );

    it('reads new event items from the stream with bisecting, retries and partial failures', () => {
      const { template, id, stack } = defaults;

      expect(publisherMappings(defaults)).toHaveLength(1);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: id(stack.eventPublisher.publishEvents) },
        EventSourceArn: { 'Fn::GetAtt': [id(stack.eventTable), 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 5,
        MaximumRecordAgeInSeconds: 86_400,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: {
          OnFailure: {
            Destination: { 'Fn::GetAtt': [id(stack.eventPublisher.onFailureQueue), 'Arn'] },
          },
        },
      });
    });

    it('passes only INSERTs of items that carry a detail type', () => {
      const mapping = publisherMappings(defaults)[0];

      const filters = mapping?.Properties.FilterCriteria.Filters as { Pattern: string }[];

      expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
        {
          eventName: ['INSERT'],
          dynamodb: { NewImage: { detailType: { S: [{ exists: true }] } } },
        },
      ]);
      // The local stream poller decides with the same shared pattern.
      expect(JSON.parse(String(filters[0]?.Pattern))).toEqual(PUBLISHABLE_RECORD_PATTERN);
    });

    it('keeps failed batches in an encrypted, TLS-only queue for 14 days', () => {
      const { template, id, stack } = defaults;

      template.hasResourceProperties('AWS::SQS::Queue', {
        KmsMasterKeyId: { 'Fn::GetAtt': [id(stack.dataKey.ownKey), 'Arn'] },
        MessageRetentionPeriod: 14 * 86_400,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id(stack.eventPublisher.onFailureQueue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });
  });

  describe('bus archive', () => {
    it('archives the events of the event source for 30 days by default', () => {
      const { template, id, stack } = defaults;

      template.hasResourceProperties('AWS::Events::Archive', {
        SourceArn: { 'Fn::GetAtt': [id(stack.eventBus), 'Arn'] },
        EventPattern: { source: ['msgbridge'] },
        RetentionDays: 30,
      });
    });

    it('takes the retention from props', () => {
      configured.template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 90 });
    });
  });

  describe('alarms', () => {
    const metricNamesOf = (alarm: Record<string, unknown>): string[] => {
      const metrics = (alarm.Metrics ?? []) as {
        MetricStat?: { Metric: { MetricName: string } };
      }[];
      const single = alarm.MetricName as string | undefined;
      return [
        ...(single ? [single] : []),
        ...metrics.flatMap((each) => (each.MetricStat ? [each.MetricStat.Metric.MetricName] : [])),
      ];
    };
    /** The one inbound alarm on `metricName`; the other paths' alarms are tested with them. */
    const alarmOf = (synthesized: Synthesized, metricName: string) => {
      const found = synthesized.stack.inboundAlarms.node
        .findAll()
        .flatMap((construct) =>
          construct instanceof CfnAlarm
            ? [synthesized.resources[synthesized.id(construct)]?.Properties ?? {}]
            : [],
        )
        .filter((alarm) => metricNamesOf(alarm).includes(metricName));
      expect(found).toHaveLength(1);
      return found[0] ?? {};
    };

    it('fires when the on-failure queue holds a message', () => {
      const alarm = alarmOf(defaults, 'ApproximateNumberOfMessagesVisible');

      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: {
              'Fn::GetAtt': [
                defaults.id(defaults.stack.eventPublisher.onFailureQueue),
                'QueueName',
              ],
            },
          },
        ],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        TreatMissingData: 'notBreaching',
      });
    });

    it.each([['PublishFailures'], ['PoisonRecords']])(
      'fires on any %s of the publisher',
      (metricName) => {
        const alarm = alarmOf(defaults, metricName);

        expect(alarm).toMatchObject({
          Namespace: 'msgbridge',
          Dimensions: [{ Name: 'service', Value: 'publish-events' }],
          ...alarmAbove('Sum', 300),
        });
      },
    );

    it('fires when either receiver quarantines anything within 5 minutes', () => {
      const alarm = alarmOf(defaults, 'ItemsQuarantined');

      const stats = (alarm.Metrics as { MetricStat?: Record<string, unknown> }[]).flatMap((each) =>
        each.MetricStat ? [each.MetricStat] : [],
      );
      expect(stats).toEqual(
        expect.arrayContaining(
          ['receive-reports', 'receive-inbound'].flatMap((service) =>
            ['ItemsQuarantined', 'UnrecognisedBodies'].map((metricName) => ({
              Metric: {
                MetricName: metricName,
                Namespace: 'msgbridge',
                Dimensions: [{ Name: 'service', Value: service }],
              },
              Period: 300,
              Stat: 'Sum',
            })),
          ),
        ),
      );
      expect(alarm).toMatchObject({
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it('fires when the receivers fail to store for 3 periods in a row', () => {
      const alarm = alarmOf(defaults, 'StoreFailures');

      const services = (alarm.Metrics as { MetricStat?: { Metric: { Dimensions: unknown } } }[])
        .flatMap((each) => (each.MetricStat ? [each.MetricStat.Metric.Dimensions] : []))
        .flat();
      expect(services).toEqual([
        { Name: 'service', Value: 'receive-reports' },
        { Name: 'service', Value: 'receive-inbound' },
      ]);
      expect(alarm).toMatchObject({
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        TreatMissingData: 'notBreaching',
      });
    });

    it('has no actions without an alarm topic', () => {
      const alarms = Object.values(defaults.template.findResources('AWS::CloudWatch::Alarm'));

      // Five inbound alarms, the send pipeline's two, the report-check DLQ's, the event bus
      // DLQ's, five of the scheduled jobs in webhook mode, three of the attachments and the three
      // rate alarms.
      expect(alarms).toHaveLength(20);
      for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toBeUndefined();
    });

    it('notifies the alarm topic of every alarm and recovery when one is given', () => {
      const topic = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

      const alarms = Object.values(configured.template.findResources('AWS::CloudWatch::Alarm'));

      expect(alarms).toHaveLength(20);
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([topic]);
        expect(alarm.Properties.OKActions).toEqual([topic]);
      }
    });
  });
});
