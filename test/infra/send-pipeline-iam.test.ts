import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { CONTEXT_KEY, stackPropsFromContext } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { ReportCheckQueue } from '../../lib/report-check-queue.ts';
import { SendPipeline } from '../../lib/send-pipeline.ts';
import {
  ALARM_TOPIC,
  configured,
  defaults,
  logicalId,
  type Statement,
  type Synthesized,
  synthSendStacks,
} from '../support/send-pipeline-stack.ts';
import {
  actionsOf,
  problemsOf,
  stackProblems,
  statementsOfRole,
  withPrefix,
} from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const senderStatements = ({ template, id, stack }: Synthesized): Statement[] =>
  statementsOfRole(template, id(stack.sendPipeline.sendMessages.role));

describe('send pipeline infrastructure', () => {
  synthSendStacks();

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
          Action: [
            'dynamodb:BatchGetItem',
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
          ],
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

    it('lets the sender consume its own queue only, and send to the report-check queue only', () => {
      const { id, stack } = defaults;

      const sqs = withPrefix(senderStatements(defaults), 'sqs:');
      const on = (queue: IConstruct) =>
        sqs.filter((statement) => JSON.stringify(statement.Resource).includes(`"${id(queue)}"`));

      expect(on(stack.sendPipeline.queue)).toEqual([
        expect.objectContaining({
          Action: expect.arrayContaining([
            'sqs:ReceiveMessage',
            'sqs:DeleteMessage',
            'sqs:ChangeMessageVisibility',
          ]),
          Resource: { 'Fn::GetAtt': [id(stack.sendPipeline.queue), 'Arn'] },
        }),
      ]);
      expect(on(stack.sendPipeline.queue).flatMap(actionsOf)).not.toContain('sqs:SendMessage');
      expect(on(stack.reportChecks.queue)).toEqual([
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          Resource: { 'Fn::GetAtt': [id(stack.reportChecks.queue), 'Arn'] },
        },
      ]);
      expect(sqs).toHaveLength(2);
    });

    it('lets the sender get objects of the attachment buckets only when some are named, and put rejected messages below payloads/', () => {
      const objectsOf = (bucket: string) => ({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:s3:::${bucket}/*`]],
      });
      // The claim check of a rejected message too large for its item: write-only, one prefix.
      const payloads = ({ id, stack }: Synthesized) => ({
        Effect: 'Allow',
        Action: 's3:PutObject',
        Resource: {
          'Fn::Join': [
            '',
            [{ 'Fn::GetAtt': [id(stack.inboundAttachments.bucket), 'Arn'] }, '/payloads/*'],
          ],
        },
      });

      expect(withPrefix(senderStatements(defaults), 's3:')).toEqual([payloads(defaults)]);
      expect(withPrefix(senderStatements(configured), 's3:')).toEqual([
        {
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: [objectsOf('acme-mms-attachments'), objectsOf('acme.shared.media')],
        },
        payloads(configured),
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

  describe('props validation', () => {
    it('reports a zero quota, a non-https host and too few receives in one error', () => {
      const problems = stackProblems({
        gateway: {
          ...TEST_GATEWAY,
          hosts: { ...TEST_GATEWAY.hosts, send: 'http://send.gateway.example' },
          tpsQuota: 0,
        },
        sending: { maxReceiveCount: 3 },
      });

      expect(problems).toEqual([
        'gateway.hosts.send must be an https URL, got "http://send.gateway.example"',
        'gateway.tpsQuota must be an integer from 10 to 100000, got 0',
        'sending.maxReceiveCount must be an integer from 5 to 1000, got 3',
      ]);
    });

    it('reports the other settings of the send path by their paths too', () => {
      const problems = stackProblems({
        gateway: { ...TEST_GATEWAY, timeoutMs: 20_000 },
        sending: {
          functionTimeout: Duration.seconds(30),
          batchSize: 50,
          maxBatchingWindow: Duration.seconds(0),
          maxConcurrency: 1,
          attachmentBuckets: ['Not_A_Bucket'],
        },
      });

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
          reportChecks: new ReportCheckQueue(stack, 'checks'),
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
        // The claim check of a rejected message: the key is the message's hash, below payloads/.
        `AwsSolutions-IAM5[Resource::<${logicalId(stack, stack.inboundAttachments.bucket)}.Arn>/payloads/*]`,
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::acme-mms-attachments/*]',
      ]);
    });
  });
});
