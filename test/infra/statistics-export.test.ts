import { App, CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { StatisticsExport, statisticsExportProblems } from '../../lib/statistics-export.ts';
import { synthesizedBeforeAll } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

const synth = (props: Partial<MsgbridgeStackProps> = {}, nag = false) => {
  const app = new App();
  const stack = new MsgbridgeStack(app, 'msgbridge-stats', { gateway: TEST_GATEWAY, ...props });
  // With cdk-nag, synthesis throws on any unacknowledged finding.
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined): string => {
    const element = construct?.node.defaultChild ?? construct;
    if (!CfnElement.isCfnElement(element)) throw new Error('no CloudFormation element');
    return stack.getLogicalId(element);
  };
  return { stack, template, id };
};
type Synthesized = ReturnType<typeof synth>;

const exportOf = (s: Synthesized): StatisticsExport => {
  if (!s.stack.statisticsExport) throw new Error('no statistics export');
  return s.stack.statisticsExport;
};

const statementsOfRole = ({ template, id }: Synthesized, role: IConstruct | undefined) =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${id(role)}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

describe('statistics export infrastructure', () => {
  const stacks = synthesizedBeforeAll(
    () => ({
      absent: synth(),
      enabled: synth(
        {
          statisticsExport: {
            messengerChannels: ['@shop', '@bank'],
            messengerStatistics: ['channelNoticeRead', 'templateBrandClick'],
            elapsedDays: [0, 2],
            s3Export: true,
          },
          metricsNamespace: 'acme/msgbridge',
          alarmTopicArn: ALARM_TOPIC,
        },
        true,
      ),
      withEmails: synth({ statisticsExport: {}, alarmEmails: ['ops@example.com'] }),
    }),
    240_000,
  );

  it('is not deployed unless statisticsExport is set', () => {
    expect(stacks.absent.stack.statisticsExport).toBeUndefined();
    const functions = JSON.stringify(stacks.absent.template.findResources('AWS::Lambda::Function'));
    expect(functions).not.toContain('STATISTICS_SETTINGS');
    expect(
      JSON.stringify(stacks.absent.template.findResources('AWS::Scheduler::Schedule')),
    ).not.toContain('export-statistics');
  });

  it('runs daily at 01:30 Asia/Seoul, with two retries in the scheduler and in Lambda', () => {
    const s = stacks.enabled;
    const stats = exportOf(s);
    s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(30 1 * * ? *)',
      ScheduleExpressionTimezone: 'Asia/Seoul',
      Target: {
        Arn: { 'Fn::GetAtt': [s.id(stats.exportStatistics), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [s.id(stats.schedule.role), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 21_600 },
      },
    });
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: s.id(stats.exportStatistics) },
      MaximumRetryAttempts: 2,
    });
  });

  it('takes another cron expression and time zone', () => {
    const problems = statisticsExportProblems({ schedule: 'cron(0 3 * * ? *)', timeZone: 'UTC' });
    expect(problems).toEqual([]);
  });

  it('gives the function its settings, the bucket and a dead-letter queue, in the egress VPC', () => {
    const s = stacks.enabled;
    const stats = exportOf(s);
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: Match.absent(),
      Description: Match.stringLikeRegexp('statistics'),
      DeadLetterConfig: {
        TargetArn: { 'Fn::GetAtt': [s.id(stats.deadLetterQueue), 'Arn'] },
      },
      VpcConfig: Match.objectLike({ SubnetIds: Match.anyValue() }),
      Environment: {
        Variables: Match.objectLike({
          EVENT_TABLE_NAME: { Ref: s.id(s.stack.eventTable) },
          STATE_TABLE_NAME: { Ref: s.id(s.stack.stateTable) },
          STATISTICS_BUCKET: { Ref: s.id(s.stack.inboundAttachments.bucket) },
          STATISTICS_SETTINGS: JSON.stringify({
            trackingUrls: true,
            messengerChannels: ['@shop', '@bank'],
            messengerStatistics: ['channelNoticeRead', 'templateBrandClick'],
            elapsedDays: [0, 2],
            maxUrlPages: 100,
            concurrency: 4,
            keyPrefix: 'statistics/',
          }),
          POWERTOOLS_METRICS_NAMESPACE: 'acme/msgbridge',
        }),
      },
    });
  });

  it('grants PutItem on the event table, the token actions, the secret and PutObject below statistics/ only', () => {
    const s = stacks.enabled;
    const stats = exportOf(s);
    const statements = statementsOfRole(s, stats.exportStatistics.role);
    const byService = (prefix: string) =>
      statements.filter((st) => actionsOf(st).some((action) => action.startsWith(prefix)));

    expect(byService('dynamodb:')).toEqual([
      expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
        Resource: { 'Fn::GetAtt': [s.id(s.stack.stateTable), 'Arn'] },
      }),
      expect.objectContaining({
        Action: 'dynamodb:PutItem',
        Resource: { 'Fn::GetAtt': [s.id(s.stack.eventTable), 'Arn'] },
      }),
    ]);
    expect(byService('s3:')).toEqual([
      expect.objectContaining({
        Action: 's3:PutObject',
        Resource: {
          'Fn::Join': [
            '',
            [{ 'Fn::GetAtt': [s.id(s.stack.inboundAttachments.bucket), 'Arn'] }, '/statistics/*'],
          ],
        },
      }),
    ]);
    expect(byService('secretsmanager:')).toEqual([
      expect.objectContaining({ Action: 'secretsmanager:GetSecretValue' }),
    ]);
    // The data key: decrypt for the tables and the secret, a data key for the object; no wildcard.
    const kmsActions = byService('kms:').flatMap(actionsOf);
    expect(new Set(kmsActions)).toEqual(
      new Set(['kms:Decrypt', 'kms:DescribeKey', 'kms:GenerateDataKey']),
    );
    expect(kmsActions.filter((action) => action.includes('*'))).toEqual([]);
    // Nothing on the stream, the bus or other buckets.
    const actions = statements.flatMap(actionsOf);
    expect(actions.filter((a) => a.startsWith('dynamodb:') && /Stream|Scan|Query/.test(a))).toEqual(
      [],
    );
    expect(actions.filter((a) => a.startsWith('events:'))).toEqual([]);
  });

  it('writes no object and gets no S3 permission without s3Export; s3Export needs a bucket', () => {
    // Prepare: the construct alone, in a stack of its own.
    const stack = new Stack(new App(), 'statistics-alone');
    const table = (name: string) =>
      new TableV2(stack, name, { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    const parts = {
      eventTable: table('events'),
      stateTable: table('state'),
      credentials: new Secret(stack, 'credentials'),
      gateway: TEST_GATEWAY,
    };

    // Act
    const stats = new StatisticsExport(stack, 'statistics-export', {
      ...parts,
      bucket: new Bucket(stack, 'bucket'),
    });
    const template = Template.fromStack(stack);

    // Assess
    const fn =
      template.toJSON().Resources[
        stack.getLogicalId(stats.exportStatistics.node.defaultChild as CfnElement)
      ];
    expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('STATISTICS_BUCKET');
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain('s3:');
    expect(
      () => new StatisticsExport(stack, 'without-bucket', { ...parts, s3Export: true }),
    ).toThrow('s3Export needs a bucket');
  });

  it('alarms when a run lands in the dead-letter queue, to the alarm topic', () => {
    const s = stacks.enabled;
    const stats = exportOf(s);
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('export-statistics failed after its retries'),
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [s.id(stats.deadLetterQueue), 'QueueName'] } },
      ],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [ALARM_TOPIC],
    });
    // The dead-letter queue and the function's log group are under the stack's data key.
    const keyRef = { 'Fn::GetAtt': [s.id(s.stack.dataKey.ownKey), 'Arn'] };
    const dlq = s.template.toJSON().Resources[s.id(stats.deadLetterQueue)];
    expect(dlq?.Properties).toMatchObject({
      KmsMasterKeyId: keyRef,
      MessageRetentionPeriod: 1_209_600,
    });
    const resources = s.template.toJSON().Resources;
    const fn = resources[s.id(stats.exportStatistics)];
    const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref as string;
    expect(resources[logGroupId].Properties.KmsKeyId).toEqual(keyRef);
  });

  it("alarms to the stack's own topic when alarms go to e-mail addresses", () => {
    const s = stacks.withEmails;
    const stats = exportOf(s);
    const [alarm] = Object.values(
      s.template.findResources('AWS::CloudWatch::Alarm', {
        Properties: {
          AlarmDescription: Match.stringLikeRegexp('export-statistics failed after its retries'),
        },
      }),
    );
    const topic = { Ref: s.id(s.stack.alarmTopic?.topic) };
    expect(alarm?.Properties.AlarmActions).toEqual([topic]);
    expect(alarm?.Properties.OKActions).toEqual([topic]);
    expect(stats.alarms).toHaveLength(1);
  });

  it('lists every invalid setting at once', () => {
    const act = () =>
      new MsgbridgeStack(new App(), 'msgbridge-stats-bad', {
        gateway: TEST_GATEWAY,
        statisticsExport: {
          schedule: 'rate(1 day)',
          timeZone: 'Mars/Olympus',
          messengerChannels: [''],
          messengerStatistics: ['channelRead' as never],
          elapsedDays: [3],
          maxUrlPages: 0,
        },
      });
    let problems: readonly string[] = [];
    try {
      act();
    } catch (error) {
      if (!(error instanceof InvalidPropsError)) throw error;
      problems = error.problems;
    }
    expect(problems).toEqual([
      expect.stringMatching(/^statisticsExport\.schedule must be an EventBridge Scheduler cron/),
      expect.stringMatching(/^statisticsExport\.timeZone must be an IANA time zone/),
      expect.stringMatching(/^statisticsExport\.maxUrlPages must be an integer from 1 to 1000/),
      expect.stringMatching(/^statisticsExport\.messengerChannels\.0: /),
      expect.stringMatching(/^statisticsExport\.messengerStatistics\.0: /),
      expect.stringMatching(/^statisticsExport\.elapsedDays\.0: /),
    ]);
  });

  it('refuses an export that would collect nothing', () => {
    expect(statisticsExportProblems({ trackingUrls: false })).toEqual([
      'trackingUrls is off and messengerChannels is empty: the export would collect nothing',
    ]);
  });
});
