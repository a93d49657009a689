/**
 * The event bus's dead-letter queue: an event EventBridge cannot encrypt or decrypt with the data
 * key goes there instead of being lost. The template wires it as the bus's `DeadLetterConfig`, and
 * the queue policy EventBridge needs is proven with an IAM policy simulator (the one the IAM
 * replay uses), the way AWS evaluates it: `events.amazonaws.com` may send to the queue only on
 * behalf of this bus, and only over TLS.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import {
  type CfnTemplate,
  referencedId,
  resourcesOfType,
  StackTemplate,
} from '../../aws-semantics/cloudformation-template.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { logicalId, synthesizedBeforeAll } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const ACCOUNT = '123456789012';
const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:ops';

const synth = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}) => {
  // Templates only: the functions' code is not bundled.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const json = template.toJSON() as CfnTemplate;
  const model = new DeploymentModel(new StackTemplate(json), {
    region: 'ap-northeast-2',
    account: ACCOUNT,
    partition: 'aws',
    stackName: 'msgbridge',
  });
  const id = (construct: IConstruct | undefined) => logicalId(stack, construct);
  return { stack, template, json, model, id };
};
type Synthesized = ReturnType<typeof synth>;

/** What IAM decides for a request of `events.amazonaws.com`, under one resource policy. */
const asEventBridge = async (
  request: { action: string; resource: string; sourceArn?: string; secureTransport?: boolean },
  resourcePolicy: unknown,
): Promise<string> => {
  const response = await runSimulation(
    {
      request: {
        principal: 'events.amazonaws.com',
        action: request.action,
        resource: { resource: request.resource, accountId: ACCOUNT },
        contextVariables: {
          'aws:SecureTransport': String(request.secureTransport ?? true),
          'aws:SourceAccount': ACCOUNT,
          ...(request.sourceArn ? { 'aws:SourceArn': request.sourceArn } : {}),
        },
      },
      identityPolicies: [],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy,
    },
    {},
  );
  if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
  return response.overallResult;
};

/** The resolved policy document of the queue policy attached to queue `queueId`. */
const queuePolicyOf = ({ json, model }: Synthesized, queueId: string) => {
  const [, policy] =
    resourcesOfType(json, 'AWS::SQS::QueuePolicy').find(([, each]) =>
      ((each.Properties?.Queues ?? []) as unknown[]).some((ref) => referencedId(ref) === queueId),
    ) ?? [];
  if (!policy) throw new Error(`no queue policy on ${queueId}`);
  return model.resolve(policy.Properties?.PolicyDocument);
};

describe('the event bus dead-letter queue', () => {
  const stacks = synthesizedBeforeAll(() => ({
    defaults: synth(),
    notifying: synth({ alarmTopicArn: ALARM_TOPIC }),
    imported: synth({
      encryption: {
        keyArn: 'arn:aws:kms:ap-northeast-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      },
    }),
  }));

  it('is the bus’s DeadLetterConfig: a standard queue kept 14 days, whether the key is the stack’s or imported', () => {
    for (const { template, json, stack, id } of [stacks.defaults, stacks.imported]) {
      const queue = stack.bridge.eventBusDeadLetters.queue;
      template.hasResourceProperties('AWS::Events::EventBus', {
        KmsKeyIdentifier: Match.anyValue(),
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [id(queue), 'Arn'] } },
      });
      const properties = json.Resources[id(queue)]?.Properties;
      expect(properties?.MessageRetentionPeriod).toBe(14 * 24 * 3_600);
      expect(properties?.FifoQueue).toBeUndefined();
    }
  });

  it('is encrypted with SQS-managed keys, so a disabled or deleted data key cannot refuse its events too', () => {
    const { json, stack, id } = stacks.defaults;
    const queue = json.Resources[id(stack.bridge.eventBusDeadLetters.queue)]?.Properties ?? {};

    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.KmsMasterKeyId).toBeUndefined();
    // So EventBridge needs nothing of the data key for it: the key policy's EventBridge statements
    // are the bus's and the archive's, both under the bus's encryption context.
    const keyPolicy = json.Resources[id(stack.dataKey.ownKey)]?.Properties?.KeyPolicy as {
      Statement: Array<{ Principal?: unknown; Condition?: Record<string, unknown> }>;
    };
    const forEventBridge = keyPolicy.Statement.filter(
      (statement) => JSON.stringify(statement.Principal) === '{"Service":"events.amazonaws.com"}',
    );
    expect(forEventBridge.filter((statement) => !statement.Condition)).toHaveLength(1); // DescribeKey
    for (const statement of forEventBridge.filter((each) => each.Condition))
      expect(JSON.stringify(statement.Condition)).toContain(
        'kms:EncryptionContext:aws:events:event-bus:arn',
      );
  });

  it('lets EventBridge send to it only for this bus, and only over TLS', async () => {
    const { stack, id, model } = stacks.defaults;
    const queueId = id(stack.bridge.eventBusDeadLetters.queue);
    const queueArn = model.physical(queueId).attributes.Arn ?? '';
    const busArn = model.physical(id(stack.eventBus)).attributes.Arn ?? '';
    const policy = queuePolicyOf(stacks.defaults, queueId);
    const send = { action: 'sqs:SendMessage', resource: queueArn };

    expect(await asEventBridge({ ...send, sourceArn: busArn }, policy)).toBe('Allowed');
    // The controls: another bus of the account, a rule, no source at all, and plain HTTP.
    expect(await asEventBridge({ ...send, sourceArn: `${busArn}-other` }, policy)).not.toBe(
      'Allowed',
    );
    expect(
      await asEventBridge(
        { ...send, sourceArn: `arn:aws:events:ap-northeast-2:${ACCOUNT}:rule/any` },
        policy,
      ),
    ).not.toBe('Allowed');
    expect(await asEventBridge(send, policy)).not.toBe('Allowed');
    expect(
      await asEventBridge({ ...send, sourceArn: busArn, secureTransport: false }, policy),
    ).toBe('ExplicitlyDenied');
    expect(
      await asEventBridge(
        { action: 'sqs:ReceiveMessage', resource: queueArn, sourceArn: busArn },
        policy,
      ),
    ).not.toBe('Allowed');
  });

  it('alarms as soon as it holds an event, notifying the alarm topic when there is one', () => {
    for (const { template, stack, id } of [stacks.defaults, stacks.notifying]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [id(stack.bridge.eventBusDeadLetters.queue), 'QueueName'] },
          },
        ],
        Statistic: 'Maximum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmDescription: Match.stringLikeRegexp('docs/operations\\.md#the-event-bus-dlq'),
      });
    }
    const { json, id, stack } = stacks.notifying;
    const alarm = json.Resources[id(stack.bridge.eventBusDeadLetters.notEmpty)];
    expect(alarm?.Properties?.AlarmActions).toEqual([ALARM_TOPIC]);
    expect(alarm?.Properties?.OKActions).toEqual([ALARM_TOPIC]);
  });

  it('is an output and a line of the dashboard', () => {
    const { json, stack, id } = stacks.defaults;
    expect(json.Outputs?.EventBusDlqUrl?.Value).toEqual({
      Ref: id(stack.bridge.eventBusDeadLetters.queue),
    });
    const [, dashboard] = resourcesOfType(json, 'AWS::CloudWatch::Dashboard')[0] ?? [];
    expect(JSON.stringify(dashboard?.Properties?.DashboardBody)).toContain(
      JSON.stringify({ 'Fn::GetAtt': [id(stack.bridge.eventBusDeadLetters.queue), 'QueueName'] }),
    );
  });
});
