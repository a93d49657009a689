import { App, CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHABLE_RECORD_PATTERN } from '../../functions/events/stream-filter.ts';
import { VPC_NETWORK_INTERFACE_ACTIONS } from '../../lib/msgbridge-function.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { WebhookSecret } from '../../lib/webhook-secret.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  readonly id: (construct: IConstruct | undefined) => string;
}

const synth = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}): Synthesized => {
  const app = new App();
  const stack = new MsgbridgeStack(app, 'msgbridge-inbound', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined): string => {
    const element = construct?.node.defaultChild ?? construct;
    if (!CfnElement.isCfnElement(element)) throw new Error('no CloudFormation element');
    return stack.getLogicalId(element);
  };
  return { stack, template, resources: template.toJSON().Resources, id };
};

const environmentOf = ({ resources, id }: Synthesized, fn: IConstruct): unknown => {
  const properties = resources[id(fn)]?.Properties as
    | { Environment?: { Variables?: unknown } }
    | undefined;
  return properties?.Environment?.Variables;
};

const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

const statementsOfRole = (template: Template, roleId: string): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

const allStatements = (template: Template): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
  );

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
  let defaults: Synthesized;
  let configured: Synthesized;

  beforeAll(() => {
    defaults = synth();
    configured = synth({
      webhooks: {
        allowedSourceCidrs: ['203.0.113.0/24', '2001:db8::/32'],
        throttlingRateLimit: 20,
        throttlingBurstLimit: 40,
        stageTracing: true,
      },
      publisher: { archiveRetentionDays: 90 },
      alarmTopicArn: 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms',
    });
  });

  describe('webhook API', () => {
    it('routes POST /webhooks/{secret}/report and /mo to their receivers by Lambda proxy', () => {
      // Prepare
      const { template, stack, id } = defaults;
      const routes = [
        { path: 'report', fn: stack.webhookApi.receiveReports },
        { path: 'mo', fn: stack.webhookApi.receiveInbound },
      ];

      // Act
      const methods = template.findResources('AWS::ApiGateway::Method');
      const resources = template.findResources('AWS::ApiGateway::Resource');

      // Assess
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
      const pathParts = Object.values(resources).map((resource) => resource.Properties.PathPart);
      expect(pathParts.sort()).toEqual(['mo', 'report', 'webhooks', '{secret}'].sort());
      expect(Object.keys(methods)).toHaveLength(2);
      for (const { path, fn } of routes) {
        const resourceId = Object.entries(resources).find(
          ([, resource]) => resource.Properties.PathPart === path,
        )?.[0];
        template.hasResourceProperties('AWS::ApiGateway::Method', {
          HttpMethod: 'POST',
          ResourceId: { Ref: resourceId },
          Integration: {
            Type: 'AWS_PROXY',
            IntegrationHttpMethod: 'POST',
            Uri: Match.anyValue(),
          },
        });
        const method = Object.values(methods).find(
          (each) => each.Properties.ResourceId.Ref === resourceId,
        );
        expect(JSON.stringify(method?.Properties.Integration.Uri)).toContain(id(fn));
      }
    });

    it('validates only the path secret, so every body reaches the receivers to be quarantined', () => {
      const { template } = defaults;

      const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));

      template.hasResourceProperties('AWS::ApiGateway::RequestValidator', {
        ValidateRequestParameters: true,
      });
      for (const method of methods) {
        expect(method.Properties.AuthorizationType).toBe('NONE');
        expect(method.Properties.RequestParameters).toEqual({ 'method.request.path.secret': true });
        // Without a request model, body validation has nothing to reject.
        expect(method.Properties.RequestModels).toBeUndefined();
      }
      template.resourceCountIs('AWS::ApiGateway::Model', 0);
    });

    it('throttles the stage at 100 requests per second with bursts of 200 by default', () => {
      defaults.template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: 100,
            ThrottlingBurstLimit: 200,
            MetricsEnabled: true,
            LoggingLevel: 'OFF',
            DataTraceEnabled: false,
          }),
        ],
        TracingEnabled: false,
      });
    });

    it('takes throttling and stage tracing from props', () => {
      configured.template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 })],
        TracingEnabled: true,
      });
    });

    it('writes JSON access logs with the route template, never the requested path', () => {
      const { template } = defaults;

      const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0];
      const format = String(stage?.Properties.AccessLogSetting.Format);

      expect(stage?.Properties.AccessLogSetting.DestinationArn).toBeDefined();
      expect(JSON.parse(format)).toMatchObject({
        resourcePath: '$context.resourcePath',
        status: '$context.status',
        sourceIp: '$context.identity.sourceIp',
      });
      expect(format).not.toContain('$context.path');
      expect(format).not.toContain('$context.error.message');
      expect(format).not.toContain('requestOverride');
    });

    it('has a resource policy allowing only the listed source CIDRs when they are given', () => {
      const api = Object.values(configured.template.findResources('AWS::ApiGateway::RestApi'))[0];
      const statements = api?.Properties.Policy.Statement as Statement[];

      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Allow', Action: 'execute-api:Invoke' }),
      );
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'execute-api:Invoke',
          Condition: {
            NotIpAddress: { 'aws:SourceIp': ['203.0.113.0/24', '2001:db8::/32'] },
          },
        }),
      );
    });

    it('has no resource policy without allowed source CIDRs', () => {
      const api = Object.values(defaults.template.findResources('AWS::ApiGateway::RestApi'))[0];

      expect(api?.Properties.Policy).toBeUndefined();
      expect(JSON.stringify(defaults.template.toJSON())).not.toContain('aws:SourceIp');
    });

    it('lets API Gateway invoke each receiver from its own route of the stage only', () => {
      const permissions = Object.values(
        defaults.template.findResources('AWS::Lambda::Permission'),
      ).map((permission) => JSON.stringify(permission.Properties.SourceArn));

      expect(permissions).toHaveLength(2);
      expect(permissions.some((arn) => arn.includes('/POST/webhooks/*/report'))).toBe(true);
      expect(permissions.some((arn) => arn.includes('/POST/webhooks/*/mo'))).toBe(true);
      expect(permissions.some((arn) => arn.includes('test-invoke-stage'))).toBe(false);
    });

    it('outputs the stage URL and both webhook URL templates, never the secret value', () => {
      const { template, id, stack } = defaults;

      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

      expect(Object.keys(outputs)).toEqual(
        expect.arrayContaining(['WebhookStageUrl', 'ReportWebhookUrl', 'InboundWebhookUrl']),
      );
      expect(JSON.stringify(outputs.ReportWebhookUrl?.Value)).toContain(
        '/webhooks/<secret>/report',
      );
      expect(JSON.stringify(outputs.InboundWebhookUrl?.Value)).toContain('/webhooks/<secret>/mo');
      const secretId = id(stack.webhookSecret.secret);
      for (const [name, output] of Object.entries(outputs)) {
        const value = JSON.stringify(output.Value);
        expect(value).not.toContain('resolve:secretsmanager');
        if (name !== 'WebhookSecretArn') expect(value).not.toContain(secretId);
      }
    });
  });

  describe('webhook secret', () => {
    it('is generated as {"current": 40 letters and digits} and kept when the stack is deleted', () => {
      const { template, id, stack } = defaults;

      const secret = template.toJSON().Resources[id(stack.webhookSecret.secret)];

      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.Properties.GenerateSecretString).toEqual({
        SecretStringTemplate: '{}',
        GenerateStringKey: 'current',
        PasswordLength: 40,
        ExcludePunctuation: true,
        IncludeSpace: false,
      });
    });
  });

  describe('functions', () => {
    it('configures each receiver from its environment', () => {
      const { id, stack } = defaults;

      for (const fn of [stack.webhookApi.receiveReports, stack.webhookApi.receiveInbound]) {
        const variables = environmentOf(defaults, fn);
        expect(variables).toMatchObject({
          EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
          WEBHOOK_SECRET_ARN: { Ref: id(stack.webhookSecret.secret) },
          EVENT_RETENTION_DAYS: '35',
          STORE_CONCURRENCY: '16',
          POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
        });
      }
    });

    it('configures the publisher from its environment', () => {
      const { id, stack } = defaults;

      const fn = stack.eventPublisher.publishEvents;
      const variables = environmentOf(defaults, fn);

      expect(variables).toMatchObject({
        EVENT_BUS_NAME: { Ref: id(stack.eventBus) },
        EVENT_SOURCE: 'msgbridge',
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        PUBLISH_MAX_ATTEMPTS: '4',
        POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
      });
    });
  });

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
          Statistic: 'Sum',
          Period: 300,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
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

      // Five inbound alarms, the send pipeline's two, five of the scheduled jobs in webhook mode,
      // three of the attachments and the three rate alarms.
      expect(alarms).toHaveLength(18);
      for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toBeUndefined();
    });

    it('notifies the alarm topic of every alarm and recovery when one is given', () => {
      const topic = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

      const alarms = Object.values(configured.template.findResources('AWS::CloudWatch::Alarm'));

      expect(alarms).toHaveLength(18);
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([topic]);
        expect(alarm.Properties.OKActions).toEqual([topic]);
      }
    });
  });

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
        expect(statements).toContainEqual(
          expect.objectContaining({
            Action: expect.arrayContaining(['secretsmanager:GetSecretValue']),
            Resource: { Ref: id(stack.webhookSecret.secret) },
          }),
        );
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

    it('lets the publisher put events on the bus, and write only its own markers in the state table', () => {
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
      for (const statement of statements.filter(
        (each) =>
          actionsOf(each).some((action) => action.startsWith('dynamodb:')) &&
          !writing.includes(each),
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
        webhooks: { allowedSourceCidrs: ['203.0.113.0/24'], stageTracing: true },
        alarmTopicArn: 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms',
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      const assembly = app.synth();

      expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-configured']);
    });

    it('acknowledges only the reviewed findings, each with a reason', () => {
      const acknowledged = defaults.stack.node.findAll().flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) =>
            Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
              path: construct.node.path.replace('msgbridge-inbound/', ''),
              rule: rule.replace(/^annotation::/i, ''),
              reason,
            })),
          ),
      );

      for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(80);
      const attachmentObjects = `AwsSolutions-IAM5[Resource::<${defaults.id(defaults.stack.inboundAttachments.bucket)}.Arn>/inbound/*]`;
      const payloadObjects = `AwsSolutions-IAM5[Resource::<${defaults.id(defaults.stack.inboundAttachments.bucket)}.Arn>/payloads/*]`;
      expect(acknowledged.map(({ path, rule }) => `${path} ${rule}`).sort()).toEqual(
        [
          'gateway-credentials AwsSolutions-SMG4',
          'webhook-secret/secret AwsSolutions-SMG4',
          'webhook-api/receive-reports-role AwsSolutions-IAM5[Resource::*]',
          'webhook-api/receive-inbound-role AwsSolutions-IAM5[Resource::*]',
          'event-publisher/publish-events-role AwsSolutions-IAM5[Resource::*]',
          'send-pipeline/send-messages-role AwsSolutions-IAM5[Resource::*]',
          'webhook-api/api/Default/webhooks/{secret}/report/POST AwsSolutions-APIG4',
          'webhook-api/api/Default/webhooks/{secret}/report/POST AwsSolutions-COG4',
          'webhook-api/api/Default/webhooks/{secret}/mo/POST AwsSolutions-APIG4',
          'webhook-api/api/Default/webhooks/{secret}/mo/POST AwsSolutions-COG4',
          'webhook-api/api/DeploymentStage.v1 AwsSolutions-APIG3',
          'webhook-api/api/DeploymentStage.v1 AwsSolutions-APIG6',
          'webhook-api/api/CloudWatchRole AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
          'event-publisher/on-failure-queue AwsSolutions-SQS3',
          'scheduled-jobs/refresh-token-role AwsSolutions-IAM5[Resource::*]',
          'scheduled-jobs/reconcile-status-role AwsSolutions-IAM5[Resource::*]',
          `webhook-api/receive-reports-role ${payloadObjects}`,
          `webhook-api/receive-inbound-role ${payloadObjects}`,
          `scheduled-jobs/reconcile-status-role ${payloadObjects}`,
          'inbound-attachments/fetch-attachments-role AwsSolutions-IAM5[Resource::*]',
          `inbound-attachments/fetch-attachments-role ${attachmentObjects}`,
          'inbound-attachments/sweep-attachments-role AwsSolutions-IAM5[Resource::*]',
          `inbound-attachments/sweep-attachments-role ${attachmentObjects}`,
          'inbound-attachments/access-logs AwsSolutions-S1',
          'inbound-attachments/on-failure-queue AwsSolutions-SQS3',
          // Recorded by CDK's own Vpc and FlowLog constructs (the fixed-egress VPC), not by msgbridge.
          'gateway-egress/vpc/all CloudFormation-Validate::F3002',
          'gateway-egress/vpc/all CloudFormation-Validate::F3003',
          'msgbridge-inbound CloudFormation-Validate::W3010',
        ].sort(),
      );
    });
  });
});
