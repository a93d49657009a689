import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import {
  alarmAbove,
  gatewayCallerEnvironment,
  queueMessagesMetric,
  serviceMetric,
} from '../support/infra-expectations.ts';
import {
  ALARM_TOPIC,
  configured,
  defaults,
  type Synthesized,
  synth,
  synthSendStacks,
} from '../support/send-pipeline-stack.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const environmentOf = (synthesized: Synthesized): Record<string, unknown> => {
  const properties = synthesized.resource(synthesized.stack.sendPipeline.sendMessages)
    .Properties as { Environment: { Variables: Record<string, unknown> } };
  return properties.Environment.Variables;
};

describe('send pipeline infrastructure', () => {
  synthSendStacks();

  describe('queues', () => {
    it('encrypts the send queue and its DLQ and refuses requests without TLS', () => {
      // Prepare
      const { template, id, stack } = defaults;
      const { queue, deadLetterQueue } = stack.sendPipeline;

      for (const each of [queue, deadLetterQueue]) {
        // Act
        const properties = defaults.resource(each).Properties;

        // Assess
        expect(properties.KmsMasterKeyId).toEqual({
          'Fn::GetAtt': [id(stack.dataKey.ownKey), 'Arn'],
        });
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id(each) }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Effect: 'Deny',
                Action: 'sqs:*',
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              }),
            ]),
          },
        });
      }
    });

    it('keeps sends for 4 days and dead letters for 14 days', () => {
      const { queue, deadLetterQueue } = defaults.stack.sendPipeline;

      expect(defaults.resource(queue).Properties.MessageRetentionPeriod).toBe(4 * 86_400);
      expect(defaults.resource(deadLetterQueue).Properties.MessageRetentionPeriod).toBe(
        14 * 86_400,
      );
    });

    describe.each([
      ['defaults', () => defaults, { maxReceiveCount: 6, timeoutSeconds: 60 }],
      ['props', () => configured, { maxReceiveCount: 8, timeoutSeconds: 90 }],
    ])('with %s', (_, synthesized, expected) => {
      it('moves a message to the DLQ after at least 5 receives, the count the sender is told', () => {
        const { id, stack } = synthesized();

        const redrive = synthesized().resource(stack.sendPipeline.queue).Properties
          .RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: number };

        expect(redrive.deadLetterTargetArn).toEqual({
          'Fn::GetAtt': [id(stack.sendPipeline.deadLetterQueue), 'Arn'],
        });
        expect(redrive.maxReceiveCount).toBe(expected.maxReceiveCount);
        expect(redrive.maxReceiveCount).toBeGreaterThanOrEqual(5);
        expect(environmentOf(synthesized()).MAX_RECEIVE_COUNT).toBe(
          String(redrive.maxReceiveCount),
        );
      });

      it('hides a received message for at least 6 times the function timeout', () => {
        const { stack, resource } = synthesized();

        const timeout = resource(stack.sendPipeline.sendMessages).Properties.Timeout;
        const visibility = resource(stack.sendPipeline.queue).Properties.VisibilityTimeout;

        expect(timeout).toBe(expected.timeoutSeconds);
        expect(visibility).toBeGreaterThanOrEqual(6 * Number(timeout));
      });
    });
  });

  describe('event source', () => {
    const mappingOf = ({ template, id, stack }: Synthesized) => {
      const mappings = Object.values(
        template.findResources('AWS::Lambda::EventSourceMapping', {
          Properties: { FunctionName: { Ref: id(stack.sendPipeline.sendMessages) } },
        }),
      );
      expect(mappings).toHaveLength(1);
      return mappings[0]?.Properties;
    };

    it('reads the send queue with partial batch responses and the default settings', () => {
      // The test gateway's quota of 50 takes Lambda's least concurrency, 2.
      const { id, stack } = defaults;

      expect(mappingOf(defaults)).toEqual({
        FunctionName: { Ref: id(stack.sendPipeline.sendMessages) },
        EventSourceArn: { 'Fn::GetAtt': [id(stack.sendPipeline.queue), 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: 1,
        ScalingConfig: { MaximumConcurrency: 2 },
      });
    });

    it('takes the batch size, batching window and maximum concurrency from props', () => {
      expect(mappingOf(configured)).toMatchObject({
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 20,
        MaximumBatchingWindowInSeconds: 5,
        ScalingConfig: { MaximumConcurrency: 5 },
      });
    });

    it('follows the gateway’s TPS quota when the maximum concurrency is not set', () => {
      // Prepare: a quota of 1,000 recipients a second, sending otherwise at its defaults.
      const larger = synth(
        { gateway: { ...TEST_GATEWAY, tpsQuota: 1_000 } },
        'msgbridge-send-larger-quota',
      );

      // Assess: 1,000 / 34 recipients a second per invocation (lib/send-concurrency.ts).
      expect(mappingOf(larger)).toMatchObject({ ScalingConfig: { MaximumConcurrency: 30 } });
      expect(mappingOf(defaults)).toMatchObject({ ScalingConfig: { MaximumConcurrency: 2 } });
    });

    it('caps concurrency through the event source, not reserved concurrency', () => {
      const properties = defaults.resource(defaults.stack.sendPipeline.sendMessages).Properties;

      expect(properties.ReservedConcurrentExecutions).toBeUndefined();
    });
  });

  describe('function', () => {
    it('is configured by every variable the handler reads at cold start', () => {
      const { id, stack } = defaults;

      expect(environmentOf(defaults)).toEqual({
        EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        SEND_QUEUE_URL: { Ref: id(stack.sendPipeline.queue) },
        REPORT_CHECK_QUEUE_URL: { Ref: id(stack.reportChecks.queue) },
        TPS_QUOTA: '50',
        MAX_RECEIVE_COUNT: '6',
        EVENT_RETENTION_DAYS: '35',
        ACCEPTED_EVENTS: 'off',
        // Where a rejected message too large for its table item is kept.
        PAYLOAD_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
        ...gatewayCallerEnvironment(id(stack.credentials)),
      });
    });

    it('turns "Message Accepted" events on from the context key sending.acceptedEvents (off by default)', () => {
      // Prepare
      const props = stackPropsFromContext({
        gateway: { hosts: TEST_GATEWAY.hosts, tpsQuota: 50 },
        sending: { acceptedEvents: true },
      });

      // Act
      const synthesized = synth({ sending: props.sending });

      // Assess
      expect(props.sending).toEqual({ acceptedEvents: true });
      expect(environmentOf(synthesized)).toMatchObject({ ACCEPTED_EVENTS: 'on' });
      expect(environmentOf(configured)).toMatchObject({ ACCEPTED_EVENTS: 'off' });
      // reconcile-status publishes an acceptance it finds by the same choice.
      const reconcile = synthesized.resource(synthesized.stack.scheduledJobs.reconcileStatus)
        .Properties as { Environment: { Variables: Record<string, unknown> } };
      expect(reconcile.Environment.Variables).toMatchObject({ ACCEPTED_EVENTS: 'on' });
    });

    it('takes the quota, gateway timeout and event retention from the stack props', () => {
      const synthesized = synth({
        gateway: { ...TEST_GATEWAY, tpsQuota: 300, timeoutMs: 5_000 },
        webhooks: { eventRetentionDays: 60 },
        metricsNamespace: 'acme/msgbridge',
      });

      expect(environmentOf(synthesized)).toMatchObject({
        TPS_QUOTA: '300',
        GATEWAY_TIMEOUT_MS: '5000',
        EVENT_RETENTION_DAYS: '60',
        POWERTOOLS_METRICS_NAMESPACE: 'acme/msgbridge',
      });
    });
  });

  describe('alarms', () => {
    it('fires as soon as the DLQ holds a message', () => {
      const { id, stack } = defaults;

      const alarm = defaults.resource(stack.sendPipeline.deadLetterQueueNotEmpty).Properties;

      expect(alarm).toMatchObject({
        ...queueMessagesMetric(id(stack.sendPipeline.deadLetterQueue)),
        ...alarmAbove('Maximum', 60),
      });
    });

    it('fires when producers send any invalid message within 5 minutes', () => {
      const alarm = defaults.resource(defaults.stack.sendPipeline.sendsRejectedInvalid).Properties;

      expect(alarm).toMatchObject({
        ...serviceMetric('msgbridge', 'send-messages', 'SendsRejectedInvalid'),
        ...alarmAbove('Sum', 300),
      });
    });

    it('notifies the alarm topic of both alarms and their recovery only when one is given', () => {
      for (const [synthesized, actions] of [
        [defaults, undefined],
        [configured, [ALARM_TOPIC]],
      ] as const) {
        const { deadLetterQueueNotEmpty, sendsRejectedInvalid } = synthesized.stack.sendPipeline;
        for (const alarm of [deadLetterQueueNotEmpty, sendsRejectedInvalid]) {
          const properties = synthesized.resource(alarm).Properties;
          expect(properties.AlarmActions).toEqual(actions);
          expect(properties.OKActions).toEqual(actions);
        }
      }
    });
  });

  describe('outputs', () => {
    it('gives producers the queue URL and ARN, and operators the DLQ URL', () => {
      const { template, id, stack } = defaults;

      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

      expect(outputs.SendQueueUrl?.Value).toEqual({ Ref: id(stack.sendPipeline.queue) });
      expect(outputs.SendQueueArn?.Value).toEqual({
        'Fn::GetAtt': [id(stack.sendPipeline.queue), 'Arn'],
      });
      expect(outputs.SendDlqUrl?.Value).toEqual({ Ref: id(stack.sendPipeline.deadLetterQueue) });
    });
  });
});
