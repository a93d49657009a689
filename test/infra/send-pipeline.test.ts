import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEY, stackPropsFromContext } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { SendPipeline } from '../../lib/send-pipeline.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly resource: (construct: IConstruct) => { Properties: Record<string, unknown> };
  readonly id: (construct: IConstruct | undefined) => string;
}

const logicalId = (stack: Stack, construct: IConstruct | undefined): string => {
  const element = construct?.node.defaultChild ?? construct;
  if (!CfnElement.isCfnElement(element)) throw new Error('no CloudFormation element');
  return stack.getLogicalId(element);
};

const synth = (
  props: Partial<MsgbridgeStackProps> = {},
  stackName = 'msgbridge-send',
): Synthesized => {
  const app = new App();
  const stack = new MsgbridgeStack(app, stackName, { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined) => logicalId(stack, construct);
  const resources = template.toJSON().Resources;
  const resource = (construct: IConstruct) => {
    const found = resources[id(construct)];
    if (!found) throw new Error(`no resource for ${construct.node.path}`);
    return found;
  };
  return { stack, template, resource, id };
};

const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

const statementsOfRole = (template: Template, roleId: string): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

const senderStatements = ({ template, id, stack }: Synthesized): Statement[] =>
  statementsOfRole(template, id(stack.sendPipeline.sendMessages.role));

const withPrefix = (statements: Statement[], prefix: string): Statement[] =>
  statements.filter((statement) =>
    actionsOf(statement).some((action) => action.startsWith(prefix)),
  );

const environmentOf = (synthesized: Synthesized): Record<string, unknown> => {
  const properties = synthesized.resource(synthesized.stack.sendPipeline.sendMessages)
    .Properties as { Environment: { Variables: Record<string, unknown> } };
  return properties.Environment.Variables;
};

const problemsOf = (act: () => unknown): readonly string[] => {
  try {
    act();
  } catch (error) {
    if (error instanceof InvalidPropsError) return error.problems;
    throw error;
  }
  throw new Error('expected an InvalidPropsError');
};

const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

describe('send pipeline infrastructure', () => {
  let defaults: Synthesized;
  let configured: Synthesized;

  beforeAll(() => {
    defaults = synth();
    configured = synth({
      gateway: { ...TEST_GATEWAY, tpsQuota: 300, timeoutMs: 5_000 },
      sending: {
        functionTimeout: Duration.seconds(90),
        maxReceiveCount: 8,
        batchSize: 20,
        maxConcurrency: 5,
        maxBatchingWindow: Duration.seconds(5),
        attachmentBuckets: ['acme-mms-attachments', 'acme.shared.media'],
      },
      alarmTopicArn: ALARM_TOPIC,
    });
  });

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

    it.each([
      ['defaults', () => defaults, 6],
      ['props', () => configured, 8],
    ])(
      'moves a message to the DLQ after at least 5 receives, the count the sender is told (%s)',
      (_, synthesized, expected) => {
        const { id, stack } = synthesized();

        const redrive = synthesized().resource(stack.sendPipeline.queue).Properties
          .RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: number };

        expect(redrive.deadLetterTargetArn).toEqual({
          'Fn::GetAtt': [id(stack.sendPipeline.deadLetterQueue), 'Arn'],
        });
        expect(redrive.maxReceiveCount).toBe(expected);
        expect(redrive.maxReceiveCount).toBeGreaterThanOrEqual(5);
        expect(environmentOf(synthesized()).MAX_RECEIVE_COUNT).toBe(
          String(redrive.maxReceiveCount),
        );
      },
    );

    it.each([
      ['defaults', () => defaults, 60],
      ['props', () => configured, 90],
    ])(
      'hides a received message for at least 6 times the function timeout (%s)',
      (_, synthesized, expectedTimeout) => {
        const { stack, resource } = synthesized();

        const timeout = resource(stack.sendPipeline.sendMessages).Properties.Timeout;
        const visibility = resource(stack.sendPipeline.queue).Properties.VisibilityTimeout;

        expect(timeout).toBe(expectedTimeout);
        expect(visibility).toBeGreaterThanOrEqual(6 * Number(timeout));
      },
    );
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

    it('caps concurrency through the event source, not reserved concurrency', () => {
      const properties = defaults.resource(defaults.stack.sendPipeline.sendMessages).Properties;

      expect(properties.ReservedConcurrentExecutions).toBeUndefined();
    });
  });

  describe('function', () => {
    it('is configured by every variable the handler reads at cold start', () => {
      const { id, stack } = defaults;

      expect(environmentOf(defaults)).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        SEND_QUEUE_URL: { Ref: id(stack.sendPipeline.queue) },
        TPS_QUOTA: '50',
        MAX_RECEIVE_COUNT: '6',
        EVENT_RETENTION_DAYS: '35',
        GATEWAY_API_URL: 'https://api.gateway.example',
        GATEWAY_SEND_URL: 'https://send.gateway.example',
        GATEWAY_MNT_URL: 'https://mnt.gateway.example',
        GATEWAY_TIMEOUT_MS: '10000',
        GATEWAY_CREDENTIALS_SECRET_ARN: { Ref: id(stack.credentials) },
        POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
      });
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
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [id(stack.sendPipeline.deadLetterQueue), 'QueueName'] },
          },
        ],
        Statistic: 'Maximum',
        Period: 60,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it('fires when producers send any invalid message within 5 minutes', () => {
      const alarm = defaults.resource(defaults.stack.sendPipeline.sendsRejectedInvalid).Properties;

      expect(alarm).toMatchObject({
        Namespace: 'msgbridge',
        MetricName: 'SendsRejectedInvalid',
        Dimensions: [{ Name: 'service', Value: 'send-messages' }],
        Statistic: 'Sum',
        Period: 300,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
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

  describe('IAM', () => {
    it('lets the sender read, claim and update items of the event table, and use the shared token, its lease and the token bucket', () => {
      const { id, stack } = defaults;

      const dynamodb = withPrefix(senderStatements(defaults), 'dynamodb:');

      expect(dynamodb).toEqual([
        {
          Effect: 'Allow',
          // The token (GetItem, PutItem), the token-reauth lease (PutItem, DeleteItem) and the
          // token bucket's counter items (UpdateItem).
          Action: [
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:DeleteItem',
            'dynamodb:UpdateItem',
          ],
          Resource: { 'Fn::GetAtt': [id(stack.stateTable), 'Arn'] },
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          Resource: { 'Fn::GetAtt': [id(stack.eventTable), 'Arn'] },
        },
      ]);
    });

    it('grants no wildcard action and no PutEvents: events go through the table stream', () => {
      for (const synthesized of [defaults, configured]) {
        const actions = senderStatements(synthesized).flatMap(actionsOf);

        expect(actions).not.toContain('dynamodb:*');
        expect(actions).not.toContain('events:PutEvents');
        expect(actions.filter((action) => action.startsWith('events:'))).toEqual([]);
        for (const action of actions) expect(action).not.toMatch(/(^|:)\*$/);
      }
    });

    it('lets the sender read the gateway credentials and no other secret', () => {
      const { id, stack } = defaults;

      const secrets = withPrefix(senderStatements(defaults), 'secretsmanager:');

      expect(secrets).toEqual([
        {
          Effect: 'Allow',
          Action: 'secretsmanager:GetSecretValue',
          Resource: { Ref: id(stack.credentials) },
        },
      ]);
      expect(JSON.stringify(senderStatements(defaults))).not.toContain(
        id(stack.webhookSecret.secret),
      );
    });

    it('lets the sender consume its own queue only, and not send to it', () => {
      const { id, stack } = defaults;

      const sqs = withPrefix(senderStatements(defaults), 'sqs:');

      expect(sqs).toEqual([
        expect.objectContaining({
          Action: expect.arrayContaining([
            'sqs:ReceiveMessage',
            'sqs:DeleteMessage',
            'sqs:ChangeMessageVisibility',
          ]),
          Resource: { 'Fn::GetAtt': [id(stack.sendPipeline.queue), 'Arn'] },
        }),
      ]);
      expect(sqs.flatMap(actionsOf)).not.toContain('sqs:SendMessage');
    });

    it('lets the sender get objects of the attachment buckets only when some are named', () => {
      const objectsOf = (bucket: string) => ({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:s3:::${bucket}/*`]],
      });

      expect(withPrefix(senderStatements(defaults), 's3:')).toEqual([]);
      expect(withPrefix(senderStatements(configured), 's3:')).toEqual([
        {
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: [objectsOf('acme-mms-attachments'), objectsOf('acme.shared.media')],
        },
      ]);
    });

    it('lets a producer send to the queue through grantSendMessages', () => {
      // Prepare
      const app = new App();
      const stack = new MsgbridgeStack(app, 'msgbridge-producer', { gateway: TEST_GATEWAY });
      const producer = new Role(stack, 'producer', {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      });

      // Act
      stack.sendPipeline.grantSendMessages(producer);

      // Assess
      const template = Template.fromStack(stack);
      const statements = statementsOfRole(template, logicalId(stack, producer));
      expect(statements).toEqual([
        expect.objectContaining({
          Action: expect.arrayContaining(['sqs:SendMessage']),
          Resource: { 'Fn::GetAtt': [logicalId(stack, stack.sendPipeline.queue), 'Arn'] },
        }),
        // The queue is encrypted with the data key: what SQS needs of the key for a send.
        {
          Effect: 'Allow',
          Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
          Resource: { 'Fn::GetAtt': [logicalId(stack, stack.dataKey.ownKey), 'Arn'] },
        },
      ]);
      expect(
        statements
          .flatMap(actionsOf)
          .filter((action) => !action.startsWith('sqs:') && !action.startsWith('kms:')),
      ).toEqual([]);
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

  describe('props validation', () => {
    it('reports a zero quota, a non-https host and too few receives in one error', () => {
      const problems = problemsOf(
        () =>
          new MsgbridgeStack(new App(), 'invalid', {
            gateway: {
              ...TEST_GATEWAY,
              hosts: { ...TEST_GATEWAY.hosts, send: 'http://send.gateway.example' },
              tpsQuota: 0,
            },
            sending: { maxReceiveCount: 3 },
          }),
      );

      expect(problems).toEqual([
        'gateway.hosts.send must be an https URL, got "http://send.gateway.example"',
        'gateway.tpsQuota must be an integer from 10 to 100000, got 0',
        'sending.maxReceiveCount must be an integer from 5 to 1000, got 3',
      ]);
    });

    it('reports the other settings of the send path by their paths too', () => {
      const problems = problemsOf(
        () =>
          new MsgbridgeStack(new App(), 'invalid', {
            gateway: { ...TEST_GATEWAY, timeoutMs: 20_000 },
            sending: {
              functionTimeout: Duration.seconds(30),
              batchSize: 50,
              maxBatchingWindow: Duration.seconds(0),
              maxConcurrency: 1,
              attachmentBuckets: ['Not_A_Bucket'],
            },
          }),
      );

      expect(problems).toEqual([
        'sending.maxConcurrency must be an integer from 2 to 1000, got 1',
        'sending.functionTimeout must be at least 45 s (twice the gateway timeout plus 5 s), got 30 s',
        "sending.batchSize above 10 needs a maxBatchingWindow of at least 1 s (Lambda's rule)",
        'sending.attachmentBuckets: "Not_A_Bucket" is not an S3 bucket name',
      ]);
    });

    it('validates a SendPipeline used on its own', () => {
      const stack = new Stack(new App(), 'alone');
      const table = new TableV2(stack, 'table', {
        partitionKey: { name: 'pk', type: AttributeType.STRING },
      });

      const act = () =>
        new SendPipeline(stack, 'send', {
          eventTable: table,
          stateTable: table,
          credentials: new Secret(stack, 'credentials'),
          gateway: { ...TEST_GATEWAY, tpsQuota: 1.5 },
          maxReceiveCount: 4,
        });

      expect(act).toThrow(
        /SendPipeline: invalid props:\n {2}- maxReceiveCount must be an integer from 5 to 1000, got 4\n {2}- gateway\.tpsQuota must be an integer from 10 to 100000, got 1\.5$/,
      );
    });

    it('requires the gateway settings from JavaScript callers too', () => {
      const props: unknown = { sending: {} };

      const problems = problemsOf(
        () => new MsgbridgeStack(new App(), 'invalid', props as MsgbridgeStackProps),
      );

      expect(problems).toEqual([expect.stringMatching(/^gateway is required/)]);
    });
  });

  describe('gateway placeholders', () => {
    const placeholderWarning = Match.stringLikeRegexp(
      'placeholders on the reserved \\.invalid domain.*real values from the gateway contract.*before deploying',
    );

    it('warns that hosts on .invalid must be replaced before deploying', () => {
      const app = new App();
      const stack = new MsgbridgeStack(app, 'msgbridge-placeholder', {
        gateway: {
          ...TEST_GATEWAY,
          hosts: { ...TEST_GATEWAY.hosts, mnt: 'https://mnt.gateway.invalid' },
        },
      });

      Annotations.fromStack(stack).hasWarning('/msgbridge-placeholder', placeholderWarning);
    });

    it('does not warn about real hosts', () => {
      Annotations.fromStack(defaults.stack).hasNoWarning('*', placeholderWarning);
    });

    it('builds the stack from the example context in cdk.json, with the warning', () => {
      // Prepare
      const cdkJson = JSON.parse(
        readFileSync(join(import.meta.dirname, '../../cdk.json'), 'utf8'),
      ) as { context: Record<string, unknown> };
      const app = new App();

      // Act
      const stack = new MsgbridgeStack(
        app,
        'msgbridge-example',
        stackPropsFromContext(cdkJson.context[CONTEXT_KEY]),
      );

      // Assess
      Annotations.fromStack(stack).hasWarning('/msgbridge-example', placeholderWarning);
    });

    it('names every missing or mistyped context setting by its path', () => {
      const problems = problemsOf(() =>
        stackPropsFromContext({
          gateway: { hosts: { api: 'https://api.gateway.example' }, tpsQuota: '50', tpsQouta: 5 },
        }),
      );

      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringContaining('msgbridge.gateway.hosts.send'),
          expect.stringContaining('msgbridge.gateway.hosts.mnt'),
          expect.stringContaining('msgbridge.gateway.tpsQuota'),
          expect.stringContaining('tpsQouta'),
        ]),
      );
      expect(problemsOf(() => stackPropsFromContext(undefined))).toEqual([
        expect.stringMatching(/^is missing/),
      ]);
    });
  });

  describe('cdk-nag', () => {
    it('passes the AwsSolutions checks with attachment buckets, acknowledging each bucket alone', () => {
      const app = new App();
      const stack = new MsgbridgeStack(app, 'msgbridge-nag-send', {
        gateway: TEST_GATEWAY,
        sending: { attachmentBuckets: ['acme-mms-attachments'] },
        alarmTopicArn: ALARM_TOPIC,
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      // Synthesis throws on any unacknowledged error.
      const assembly = app.synth();

      expect(assembly.stacks.map((each) => each.stackName)).toEqual(['msgbridge-nag-send']);
      const role = stack.sendPipeline.sendMessages.role;
      const acknowledged = (role?.node.metadata ?? [])
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
        .map((rule) => rule.replace(/^annotation::/i, ''))
        .sort();
      expect(acknowledged).toEqual([
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::acme-mms-attachments/*]',
      ]);
    });
  });
});
