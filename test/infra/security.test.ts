import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { actionsOf, logicalId, type Statement } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly resources: Record<string, Resource>;
  readonly id: (construct: IConstruct | undefined) => string;
  readonly ofType: (type: string) => [string, Resource][];
}

const synth = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}): Synthesized => {
  // Templates only: the functions' code is not bundled (their bundles are tested apart).
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-security', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const id = (construct: IConstruct | undefined): string => logicalId(stack, construct);
  const ofType = (type: string) =>
    Object.entries(resources).filter(([, resource]) => resource.Type === type);
  return { stack, template, resources, id, ofType };
};

const problemsOf = (props: Omit<MsgbridgeStackProps, 'gateway'>): readonly string[] => {
  try {
    new MsgbridgeStack(new App(), 'invalid', { gateway: TEST_GATEWAY, ...props });
  } catch (error) {
    if (error instanceof InvalidPropsError) return error.problems;
    throw error;
  }
  throw new Error('expected an InvalidPropsError');
};

const statementsOfRole = ({ template }: Synthesized, roleId: string): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

const kmsStatements = (statements: Statement[]): Statement[] =>
  statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith('kms:')));

const keyPolicyOf = (synthesized: Synthesized): Statement[] => {
  const keys = synthesized.ofType('AWS::KMS::Key');
  expect(keys).toHaveLength(1);
  const [, key] = keys[0] as [string, Resource];
  return (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;
};

const IMPORTED_KEY_ARN =
  'arn:aws:kms:ap-northeast-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const ALARM_EMAILS = ['ops@example.com', 'on-call@example.org'];
const RETAINED_TYPES = [
  'AWS::DynamoDB::GlobalTable',
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::KMS::Key',
  'AWS::SecretsManager::Secret',
];

describe('security', () => {
  let defaults: Synthesized;
  let withEmails: Synthesized;
  let imported: Synthesized;
  /** How each synthesized stack names its data key in the template. */
  const keyOf = (synthesized: Synthesized): unknown =>
    synthesized === imported
      ? IMPORTED_KEY_ARN
      : { 'Fn::GetAtt': [synthesized.id(synthesized.stack.dataKey.ownKey), 'Arn'] };

  beforeAll(() => {
    defaults = synth();
    withEmails = synth({ alarmEmails: ALARM_EMAILS });
    // The REST API front here, so that its access-log group is checked too.
    imported = synth({ encryption: { keyArn: IMPORTED_KEY_ARN }, webhooks: { front: 'rest-api' } });
  });

  describe('the data key', () => {
    it('is one key of the stack, rotated yearly and retained, with the default pending window', () => {
      const keys = defaults.ofType('AWS::KMS::Key');

      expect(keys).toHaveLength(1);
      const [, key] = keys[0] as [string, Resource];
      expect(key.Properties.EnableKeyRotation).toBe(true);
      expect(key.Properties.PendingWindowInDays).toBeUndefined();
      expect(key.DeletionPolicy).toBe('Retain');
      expect(key.UpdateReplacePolicy).toBe('Retain');
    });

    it('encrypts both tables, every queue but the bus’s DLQ, both secrets, the bus and its archive', () => {
      for (const synthesized of [defaults, withEmails, imported]) {
        const key = keyOf(synthesized);

        const tables = synthesized.ofType('AWS::DynamoDB::GlobalTable');
        expect(tables).toHaveLength(2);
        for (const [, table] of tables) {
          expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
          const replicas = table.Properties.Replicas as { SSESpecification?: unknown }[];
          expect(replicas).toHaveLength(1);
          expect(replicas[0]?.SSESpecification).toEqual({ KMSMasterKeyId: key });
        }
        // Send queue and DLQ, report-check queue and DLQ, and the on-failure queues of the
        // publisher and the attachment fetcher. The event bus's DLQ has SQS-managed keys: it
        // catches what the data key refused (test/infra/event-bus-dlq.test.ts).
        const busDlq = synthesized.id(synthesized.stack.bridge.eventBusDeadLetters.queue);
        const queues = synthesized.ofType('AWS::SQS::Queue').filter(([id]) => id !== busDlq);
        expect(queues).toHaveLength(6);
        for (const [, queue] of queues) {
          expect(queue.Properties.KmsMasterKeyId).toEqual(key);
          expect(queue.Properties.SqsManagedSseEnabled).toBeUndefined();
        }
        const secrets = synthesized.ofType('AWS::SecretsManager::Secret');
        expect(secrets).toHaveLength(2);
        for (const [, secret] of secrets) expect(secret.Properties.KmsKeyId).toEqual(key);
        synthesized.template.hasResourceProperties('AWS::Events::EventBus', {
          KmsKeyIdentifier: key,
        });
        synthesized.template.hasResourceProperties('AWS::Events::Archive', {
          KmsKeyIdentifier: key,
          SourceArn: { 'Fn::GetAtt': [synthesized.id(synthesized.stack.eventBus), 'Arn'] },
        });
      }
    });

    it('encrypts every log group the stack creates', () => {
      for (const synthesized of [defaults, imported]) {
        const logGroups = synthesized.ofType('AWS::Logs::LogGroup');

        // Eight functions (poll-reports runs only when polling) and the VPC flow logs; the REST
        // API front (`imported`) adds its access logs, the function-URL front has none.
        expect(logGroups).toHaveLength(synthesized === imported ? 10 : 9);
        for (const [, logGroup] of logGroups)
          expect(logGroup.Properties.KmsKeyId).toEqual(keyOf(synthesized));
      }
    });

    it('encrypts the attachment bucket with the key and a bucket key, its access log bucket with S3 keys', () => {
      for (const synthesized of [defaults, imported]) {
        const { bucket, accessLogsBucket } = synthesized.stack.inboundAttachments;

        expect(synthesized.resources[synthesized.id(bucket)]?.Properties.BucketEncryption).toEqual({
          ServerSideEncryptionConfiguration: [
            {
              BucketKeyEnabled: true,
              ServerSideEncryptionByDefault: {
                SSEAlgorithm: 'aws:kms',
                KMSMasterKeyID: keyOf(synthesized),
              },
            },
          ],
        });
        // S3 server access logging cannot deliver to an SSE-KMS bucket.
        expect(
          synthesized.resources[synthesized.id(accessLogsBucket)]?.Properties.BucketEncryption,
        ).toEqual({
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        });
        expect(synthesized.ofType('AWS::S3::Bucket')).toHaveLength(2);
      }
    });

    it('lets CloudWatch Logs use the key for log groups of this account and region only', () => {
      const statements = keyPolicyOf(defaults);

      expect(statements).toContainEqual({
        Sid: 'AllowCloudWatchLogsOfThisAccountAndRegion',
        Effect: 'Allow',
        Principal: {
          Service: {
            'Fn::Join': ['', ['logs.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
          },
        },
        Action: [
          'kms:Encrypt*',
          'kms:Decrypt*',
          'kms:ReEncrypt*',
          'kms:GenerateDataKey*',
          'kms:Describe*',
        ],
        Resource: '*',
        Condition: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':logs:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':log-group:*',
                ],
              ],
            },
          },
        },
      });
    });

    it('lets EventBridge use the key for this bus and its archive only, naming the bus without a reference cycle', () => {
      const { resources, id, stack } = defaults;
      const busName = resources[id(stack.eventBus)]?.Properties.Name;
      expect(busName).toEqual(expect.any(String));
      // The ARN from the bus's name: `Fn::GetAtt` of the bus would make the key depend on the bus,
      // which depends on the key.
      const busArn = {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':events:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            `:event-bus/${busName}`,
          ],
        ],
      };

      const events = keyPolicyOf(defaults).filter(
        (statement) =>
          JSON.stringify(statement.Principal) === '{"Service":"events.amazonaws.com"}' &&
          actionsOf(statement).includes('kms:GenerateDataKey'),
      );

      // One from the bus, one for the archive.
      expect(events).toHaveLength(2);
      for (const statement of events)
        expect(
          statement.Condition?.StringEquals?.['kms:EncryptionContext:aws:events:event-bus:arn'],
        ).toEqual(busArn);
    });

    it('adds CloudWatch to the key policy only when the stack creates an alarm topic', () => {
      const cloudwatch = (synthesized: Synthesized) =>
        keyPolicyOf(synthesized).filter(
          (statement) =>
            JSON.stringify(statement.Principal) === '{"Service":"cloudwatch.amazonaws.com"}',
        );

      expect(cloudwatch(defaults)).toEqual([]);
      expect(cloudwatch(withEmails)).toEqual([
        {
          Sid: 'AllowCloudWatchAlarmsToPublishToEncryptedTopics',
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          Resource: '*',
        },
      ]);
    });

    it('uses an existing key everywhere when given its ARN, and creates none', () => {
      const { resources, stack } = imported;

      expect(imported.ofType('AWS::KMS::Key')).toEqual([]);
      expect(stack.dataKey.ownKey).toBeUndefined();
      const template = JSON.stringify(resources);
      expect(template).toContain(IMPORTED_KEY_ARN);
      expect(imported.template.toJSON().Outputs.DataKeyArn.Value).toBe(IMPORTED_KEY_ARN);
    });
  });

  describe('alarm e-mails', () => {
    it('creates an encrypted, TLS-only topic with one e-mail subscription per address', () => {
      const { template, stack, id } = withEmails;
      const topic = stack.alarmTopic?.topic;
      const topicRef = { Ref: id(topic) };

      template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: keyOf(withEmails) });
      expect(withEmails.ofType('AWS::SNS::Subscription').map(([, s]) => s.Properties)).toEqual(
        ALARM_EMAILS.map((email) => ({ Protocol: 'email', Endpoint: email, TopicArn: topicRef })),
      );
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [topicRef],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Principal: '*',
              Action: 'sns:Publish',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Condition: Match.objectLike({
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              }),
            }),
          ]),
        },
      });
      expect(withEmails.template.toJSON().Outputs.AlarmTopicArn.Value).toEqual(topicRef);
    });

    it('sends every alarm and its return to OK to that topic', () => {
      const topicRef = { Ref: withEmails.id(withEmails.stack.alarmTopic?.topic) };
      const alarms = withEmails.ofType('AWS::CloudWatch::Alarm');

      expect(alarms.length).toBeGreaterThan(10);
      for (const [, alarm] of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
        expect(alarm.Properties.OKActions).toEqual([topicRef]);
      }
    });

    it('creates no topic and no AlarmTopicArn output without alarm targets', () => {
      expect(defaults.ofType('AWS::SNS::Topic')).toEqual([]);
      expect(defaults.template.toJSON().Outputs.AlarmTopicArn).toBeUndefined();
    });

    it('refuses both alarm targets at once, with the other problems of the props', () => {
      const problems = problemsOf({
        alarmTopicArn: 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms',
        alarmEmails: ['ops@example.com'],
        publisher: { batchSize: 0 },
      });

      expect(problems).toHaveLength(2);
      expect(problems).toContainEqual(
        expect.stringMatching(/^alarmTopicArn and alarmEmails are mutually exclusive/),
      );
      expect(problems).toContainEqual(expect.stringMatching(/^publisher\.batchSize/));
    });

    it('refuses addresses that are not e-mail addresses, an empty list and duplicates', () => {
      expect(problemsOf({ alarmEmails: ['ops@example.com', 'ops', 'a b@example.com'] })).toEqual([
        'alarmEmails: "ops" is not an e-mail address',
        'alarmEmails: "a b@example.com" is not an e-mail address',
      ]);
      expect(problemsOf({ alarmEmails: [] })).toEqual([
        'alarmEmails is empty; list at least one address or leave it out',
      ]);
      expect(problemsOf({ alarmEmails: ['ops@example.com', 'OPS@example.com'] })).toEqual([
        'alarmEmails: "OPS@example.com" is listed twice',
      ]);
    });

    it('refuses a key alias or anything else that is not a key ARN', () => {
      expect(
        problemsOf({
          encryption: { keyArn: 'arn:aws:kms:ap-northeast-2:123456789012:alias/data' },
        }),
      ).toEqual([expect.stringMatching(/^encryption\.keyArn must be the ARN of a KMS key/)]);
    });
  });

  describe('retention', () => {
    it('retains every table, bucket, key and secret on delete and on replacement', () => {
      for (const synthesized of [defaults, withEmails, imported]) {
        const retained = Object.entries(synthesized.resources).filter(([, resource]) =>
          RETAINED_TYPES.includes(resource.Type),
        );

        // 2 tables, 2 buckets, 2 secrets, and the key unless it is imported.
        expect(retained).toHaveLength(synthesized === imported ? 6 : 7);
        // The send queue and its DLQ hold send requests: retained too.
        const { stack, id } = synthesized;
        for (const queue of [stack.sendPipeline.queue, stack.sendPipeline.deadLetterQueue])
          retained.push([id(queue), synthesized.resources[id(queue)] as Resource]);
        for (const [logicalId, resource] of retained) {
          expect({ logicalId, policy: resource.DeletionPolicy }).toEqual({
            logicalId,
            policy: 'Retain',
          });
          expect({ logicalId, policy: resource.UpdateReplacePolicy }).toEqual({
            logicalId,
            policy: 'Retain',
          });
        }
      }
    });
  });

  describe('outputs for the CLI', () => {
    it('names the tables, the credentials secret, the gateway hosts, the bus, its archive and the key', () => {
      const { template, stack, id } = defaults;
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

      expect(outputs.StateTableName?.Value).toEqual({ Ref: id(stack.stateTable) });
      expect(outputs.EventTableName?.Value).toEqual({ Ref: id(stack.eventTable) });
      expect(outputs.GatewayCredentialsArn?.Value).toEqual({ Ref: id(stack.credentials) });
      expect(JSON.parse(String(outputs.GatewayHosts?.Value))).toEqual(TEST_GATEWAY.hosts);
      expect(outputs.EventBusArn?.Value).toEqual({ 'Fn::GetAtt': [id(stack.eventBus), 'Arn'] });
      expect(outputs.EventArchiveArn?.Value).toEqual({
        'Fn::GetAtt': [id(stack.eventPublisher.archive), 'Arn'],
      });
      expect(outputs.DataKeyArn?.Value).toEqual(keyOf(defaults));
      for (const kept of [
        'ReportWebhookUrl',
        'InboundWebhookUrl',
        'EventBusName',
        'SendQueueUrl',
        'WebhookSecretArn',
      ])
        expect(outputs[kept]).toBeDefined();
    });
  });

  describe('IAM', () => {
    it('lets send-messages decrypt with the key (tables, queue, credentials), encrypt report checks, and nothing more', () => {
      for (const synthesized of [defaults, imported]) {
        const { id, stack } = synthesized;
        const statements = kmsStatements(
          statementsOfRole(synthesized, id(stack.sendPipeline.sendMessages.role)),
        );

        expect(statements.length).toBeGreaterThan(0);
        // GenerateDataKey: the messages it puts on the encrypted report-check queue.
        expect([...new Set(statements.flatMap(actionsOf))].sort()).toEqual([
          'kms:Decrypt',
          'kms:DescribeKey',
          'kms:GenerateDataKey',
        ]);
        for (const statement of statements) {
          expect(statement.Effect).toBe('Allow');
          expect(statement.Resource).toEqual(keyOf(synthesized));
        }
      }
    });

    it('lets receive-reports decrypt the event table, encrypt large payloads and, through Secrets Manager only, read its secret', () => {
      const { id, stack } = defaults;
      const roleId = id(stack.webhookApi.receiveReports.role);

      const statements = kmsStatements(statementsOfRole(defaults, roleId));

      // GenerateDataKey only: a payload object below payloads/ is written, never read back.
      // Secrets Manager's decrypt is the role's own, conditioned on the service: a key policy
      // naming the role would fail the stack's creation (before-deploy.test.ts).
      expect(statements).toEqual(
        expect.arrayContaining([
          {
            Effect: 'Allow',
            Action: ['kms:Decrypt', 'kms:DescribeKey'],
            Resource: keyOf(defaults),
          },
          { Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: keyOf(defaults) },
          {
            Effect: 'Allow',
            Action: 'kms:Decrypt',
            Resource: keyOf(defaults),
            Condition: {
              StringEquals: {
                'kms:ViaService': {
                  'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
                },
              },
            },
          },
        ]),
      );
      expect(statements).toHaveLength(3);
      expect(JSON.stringify(keyPolicyOf(defaults))).not.toContain(roleId);
    });

    it('lets publish-events read the encrypted stream and send to its encrypted on-failure queue', () => {
      const { id, stack } = defaults;

      const statements = kmsStatements(
        statementsOfRole(defaults, id(stack.eventPublisher.publishEvents.role)),
      );

      // The stream (the event source's grant) and the on-failure queue; none for PutEvents.
      expect(statements).toEqual(
        expect.arrayContaining([
          {
            Effect: 'Allow',
            Action: ['kms:Decrypt', 'kms:DescribeKey'],
            Resource: keyOf(defaults),
          },
          {
            Effect: 'Allow',
            Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
            Resource: keyOf(defaults),
          },
        ]),
      );
      expect(statements).toHaveLength(2);
    });

    it('grants no kms:* and no key action on every resource, to any role', () => {
      for (const synthesized of [defaults, withEmails, imported]) {
        const statements = kmsStatements(
          Object.values(synthesized.template.findResources('AWS::IAM::Policy')).flatMap(
            (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
          ),
        );

        expect(statements.length).toBeGreaterThan(0);
        for (const statement of statements) {
          expect(actionsOf(statement)).not.toContain('kms:*');
          for (const action of actionsOf(statement)) expect(action).not.toMatch(/\*/);
          expect(statement.Resource).toEqual(keyOf(synthesized));
        }
      }
    });
  });

  describe('cdk-nag', () => {
    it('passes the AwsSolutions checks with an imported key and e-mail alarms', () => {
      const app = new App();
      new MsgbridgeStack(app, 'msgbridge-nag-security', {
        gateway: TEST_GATEWAY,
        alarmEmails: ALARM_EMAILS,
        encryption: { keyArn: IMPORTED_KEY_ARN },
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      const assembly = app.synth();

      expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-security']);
    });
  });
});
