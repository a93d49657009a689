import { App, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { VPC_NETWORK_INTERFACE_ACTIONS } from '../../lib/msgbridge-function.ts';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { WebhookSecret } from '../../lib/webhook-secret.ts';
import {
  configured,
  defaults,
  environmentOf,
  restApi,
  synthInboundStacks,
} from '../support/inbound-stack.ts';
import { attachmentFindings } from '../support/infra-expectations.ts';
import {
  acknowledgedFindings,
  actionsOf,
  allStatements,
  statementsOfRole,
} from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const DYNAMODB_WRITES = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:TransactWriteItems',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

describe('inbound path infrastructure', () => {
  synthInboundStacks();

  describe('IAM', () => {
    it('lets the receivers put items into the event table and read the webhook secret, nothing more', () => {
      const { template, id, stack } = defaults;

      for (const fn of [stack.webhookApi.receiveReports, stack.webhookApi.receiveInbound]) {
        const statements = statementsOfRole(template, id(fn.role));
        const actions = statements.flatMap(actionsOf);

        expect(statements).toContainEqual(
          expect.objectContaining({
            Action: 'dynamodb:PutItem',
            Resource: { 'Fn::GetAtt': [id(stack.eventTable), 'Arn'] },
          }),
        );
        // GetSecretValue only: DescribeSecret, which `grantRead` would add, is never called.
        expect(statements).toContainEqual(
          expect.objectContaining({
            Action: 'secretsmanager:GetSecretValue',
            Resource: { Ref: id(stack.webhookSecret.secret) },
          }),
        );
        expect(actions).not.toContain('secretsmanager:DescribeSecret');
        expect(actions.filter((action) => action.startsWith('dynamodb:'))).toEqual([
          'dynamodb:PutItem',
        ]);
        expect(actions.filter((action) => action.startsWith('events:'))).toEqual([]);
        expect(JSON.stringify(statements)).not.toContain(id(stack.stateTable));
        expect(JSON.stringify(statements)).not.toContain(id(stack.credentials));
      }
    });

    it('lets every function that stores received items create objects below payloads/ of the attachment bucket, nothing more', () => {
      const { template, id, stack } = defaults;
      const bucketId = id(stack.inboundAttachments.bucket);
      const storing = [
        stack.webhookApi.receiveReports,
        stack.webhookApi.receiveInbound,
        stack.scheduledJobs.reconcileStatus,
      ];

      for (const fn of storing) {
        expect(environmentOf(defaults, fn)).toMatchObject({ PAYLOAD_BUCKET: { Ref: bucketId } });
        const statements = statementsOfRole(template, id(fn.role));
        const onPayloads = statements.filter((statement) =>
          JSON.stringify(statement.Resource).includes('/payloads/*'),
        );
        expect(onPayloads).toEqual([
          expect.objectContaining({
            Action: 's3:PutObject',
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/payloads/*']] },
          }),
        ]);
        expect(
          statements
            .filter((statement) => JSON.stringify(statement.Resource).includes(bucketId))
            .flatMap(actionsOf),
        ).toEqual(['s3:PutObject']);
        expect(statements).toContainEqual(
          expect.objectContaining({
            Action: 'kms:GenerateDataKey',
            Resource: { 'Fn::GetAtt': [id(stack.dataKey.key), 'Arn'] },
          }),
        );
      }
    });

    it('lets the publisher put events on the bus, write only its own markers in the state table, and query only report partitions of the event table', () => {
      const { template, id, stack } = defaults;

      const statements = statementsOfRole(template, id(stack.eventPublisher.publishEvents.role));
      const actions = statements.flatMap(actionsOf);

      const eventStatements = statements.filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('events:')),
      );
      expect(eventStatements).toEqual([
        expect.objectContaining({
          Action: 'events:PutEvents',
          Resource: { 'Fn::GetAtt': [id(stack.eventBus), 'Arn'] },
        }),
      ]);
      expect(actions.filter((action) => action.startsWith('secretsmanager:'))).toEqual([]);
      // Its writes are the publish markers: state-table items whose keys start with PUBLISH#.
      const writing = statements.filter((statement) =>
        actionsOf(statement).some((action) => DYNAMODB_WRITES.includes(action)),
      );
      expect(writing).toEqual([
        expect.objectContaining({
          Action: [
            'dynamodb:GetItem',
            'dynamodb:BatchGetItem',
            'dynamodb:PutItem',
            'dynamodb:BatchWriteItem',
          ],
          Resource: { 'Fn::GetAtt': [id(stack.stateTable), 'Arn'] },
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PUBLISH#*'] } },
        }),
      ]);
      // Its one read of the event table itself: each message's reports, for the status it publishes.
      const onTable = statements.filter(
        (statement) =>
          JSON.stringify(statement.Resource) ===
          JSON.stringify({ 'Fn::GetAtt': [id(stack.eventTable), 'Arn'] }),
      );
      expect(onTable).toEqual([
        expect.objectContaining({
          Action: 'dynamodb:Query',
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['REPORT#*'] } },
        }),
      ]);
      for (const statement of statements.filter(
        (each) =>
          actionsOf(each).some((action) => action.startsWith('dynamodb:')) &&
          !writing.includes(each) &&
          !onTable.includes(each),
      ))
        expect(statement.Resource).toEqual({ 'Fn::GetAtt': [id(stack.eventTable), 'StreamArn'] });
    });

    it('grants no wildcard action, and "*" resources only for X-Ray and the VPC network interfaces, which have no other', () => {
      for (const { template } of [defaults, configured]) {
        const statements = allStatements(template);

        for (const action of statements.flatMap(actionsOf)) {
          expect(action).not.toBe('*');
          expect(action).not.toMatch(/^[a-z0-9-]+:\*$/);
        }
        const onEverything = statements.filter((statement) =>
          [statement.Resource].flat().includes('*'),
        );
        expect([...new Set(onEverything.flatMap(actionsOf))].sort()).toEqual(
          [
            'xray:PutTelemetryRecords',
            'xray:PutTraceSegments',
            ...VPC_NETWORK_INTERFACE_ACTIONS,
          ].sort(),
        );
      }
    });

    it('gives the functions no managed policy, so their log access stays on their own log group', () => {
      const { template, stack, id } = defaults;

      for (const fn of [
        stack.webhookApi.receiveReports,
        stack.webhookApi.receiveInbound,
        stack.eventPublisher.publishEvents,
        stack.sendPipeline.sendMessages,
        stack.scheduledJobs.refreshToken,
        stack.scheduledJobs.reconcileStatus,
        stack.inboundAttachments.fetchAttachments,
        stack.inboundAttachments.sweepAttachments,
      ]) {
        const role = template.toJSON().Resources[id(fn.role)];
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });
  });

  describe('props validation', () => {
    it('reports every problem of the stack props in one error', () => {
      const act = () =>
        new MsgbridgeStack(new App(), 'invalid', {
          gateway: TEST_GATEWAY,
          eventSource: 'aws.msgbridge',
          webhooks: {
            front: 'rest-api',
            throttlingRateLimit: 0,
            eventRetentionDays: 7,
            allowedSourceCidrs: ['203.0.113.0/33', 'gateway'],
          },
          publisher: { batchSize: 0 },
          alarmTopicArn: 'msgbridge-alarms',
        });

      let error: unknown;
      try {
        act();
      } catch (thrown) {
        error = thrown;
      }

      expect(error).toBeInstanceOf(InvalidPropsError);
      const problems = (error as InvalidPropsError).problems;
      expect(problems).toHaveLength(7);
      for (const fragment of [
        'eventSource',
        'webhooks.throttlingRateLimit',
        'webhooks.eventRetentionDays',
        '"203.0.113.0/33"',
        '"gateway"',
        'publisher.batchSize',
        'alarmTopicArn',
      ])
        expect(problems.some((problem) => problem.includes(fragment))).toBe(true);
    });

    it('validates a construct used on its own', () => {
      const stack = new Stack(new App(), 'alone');

      expect(() => new WebhookSecret(stack, 'secret', { length: 8 })).toThrow(
        /WebhookSecret: invalid props:\n {2}- length must be an integer from 16 to 4096, got 8/,
      );
    });
  });

  describe('cdk-nag', () => {
    it('passes the AwsSolutions checks with an allowlist and an alarm topic too', () => {
      const app = new App();
      new MsgbridgeStack(app, 'msgbridge-nag-configured', {
        gateway: TEST_GATEWAY,
        webhooks: { front: 'rest-api', allowedSourceCidrs: ['203.0.113.0/24'], stageTracing: true },
        alarmTopicArn: 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms',
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      const assembly = app.synth();

      expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-configured']);
    });

    it('acknowledges only the reviewed findings, each with a reason', () => {
      const findingsOf = (synthesized: typeof defaults) => {
        const acknowledged = acknowledgedFindings(
          synthesized.stack.node.findAll(),
          'msgbridge-inbound',
        );
        for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(80);
        return acknowledged.map(({ path, rule }) => `${path} ${rule}`).sort();
      };
      const payloadObjects = `AwsSolutions-IAM5[Resource::<${defaults.id(defaults.stack.inboundAttachments.bucket)}.Arn>/payloads/*]`;
      const everyFront = [
        'gateway-credentials AwsSolutions-SMG4',
        'webhook-secret/secret AwsSolutions-SMG4',
        'webhook-api/receive-reports-role AwsSolutions-IAM5[Resource::*]',
        'webhook-api/receive-inbound-role AwsSolutions-IAM5[Resource::*]',
        'event-publisher/publish-events-role AwsSolutions-IAM5[Resource::*]',
        'send-pipeline/send-messages-role AwsSolutions-IAM5[Resource::*]',
        'event-publisher/on-failure-queue AwsSolutions-SQS3',
        // The bus's own dead-letter queue, like the on-failure queues: nothing consumes it.
        'event-bus-dlq/queue AwsSolutions-SQS3',
        'scheduled-jobs/refresh-token-role AwsSolutions-IAM5[Resource::*]',
        'scheduled-jobs/reconcile-status-role AwsSolutions-IAM5[Resource::*]',
        `webhook-api/receive-reports-role ${payloadObjects}`,
        `webhook-api/receive-inbound-role ${payloadObjects}`,
        `scheduled-jobs/reconcile-status-role ${payloadObjects}`,
        // A rejected queue message too large for its item (the claim check, write-only).
        `send-pipeline/send-messages-role ${payloadObjects}`,
        ...attachmentFindings(defaults.id(defaults.stack.inboundAttachments.bucket)),
        // Recorded by CDK's own Vpc and FlowLog constructs (the fixed-egress VPC), not by msgbridge.
        'gateway-egress/vpc/all CloudFormation-Validate::F3002',
        'gateway-egress/vpc/all CloudFormation-Validate::F3003',
        'msgbridge-inbound CloudFormation-Validate::W3010',
      ];
      // The function-URL front (the default) needs no acknowledgement of its own (cdk-nag's
      // AwsSolutions pack has no rule on function URLs); the REST API front adds its five.
      expect(findingsOf(defaults)).toEqual([...everyFront].sort());
      expect(findingsOf(restApi)).toEqual(
        [
          ...everyFront,
          'webhook-api/api/Default/webhooks/{secret}/report/POST AwsSolutions-APIG4',
          'webhook-api/api/Default/webhooks/{secret}/report/POST AwsSolutions-COG4',
          'webhook-api/api/Default/webhooks/{secret}/mo/POST AwsSolutions-APIG4',
          'webhook-api/api/Default/webhooks/{secret}/mo/POST AwsSolutions-COG4',
          'webhook-api/api/DeploymentStage.v1 AwsSolutions-APIG3',
          'webhook-api/api/DeploymentStage.v1 AwsSolutions-APIG6',
          'webhook-api/api/CloudWatchRole AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        ].sort(),
      );
    });
  });
});
