import { App, CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTACHMENT_RECORD_PATTERN } from '../../functions/attachments/stream-filter.ts';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import type { FunctionSchedule } from '../../lib/function-schedule.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Principal?: unknown;
  readonly Condition?: unknown;
}

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

interface Synthesized {
  readonly stack: MsgbridgeStack;
  readonly template: Template;
  readonly id: (construct: IConstruct | undefined) => string;
  readonly resource: (construct: IConstruct | undefined) => Resource;
}

const synth = (props: Partial<MsgbridgeStackProps> = {}): Synthesized => {
  const app = new App();
  const stack = new MsgbridgeStack(app, 'msgbridge-jobs', { gateway: TEST_GATEWAY, ...props });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const id = (construct: IConstruct | undefined): string => {
    const element = construct?.node.defaultChild ?? construct;
    if (!CfnElement.isCfnElement(element)) throw new Error('no CloudFormation element');
    return stack.getLogicalId(element);
  };
  const resource = (construct: IConstruct | undefined): Resource => {
    const found = resources[id(construct)];
    if (!found) throw new Error(`no resource for ${construct?.node.path}`);
    return found;
  };
  return { stack, template, id, resource };
};

const defined = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} is not defined`);
  return value;
};

const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

const statementsOfRole = ({ template, id }: Synthesized, role: IConstruct | undefined) =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${id(role)}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

const withPrefix = (statements: Statement[], prefix: string): Statement[] =>
  statements.filter((statement) =>
    actionsOf(statement).some((action) => action.startsWith(prefix)),
  );

const environmentOf = (synthesized: Synthesized, fn: IFunction): Record<string, unknown> => {
  const properties = synthesized.resource(fn).Properties as {
    Environment: { Variables: Record<string, unknown> };
  };
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

describe('scheduled jobs and inbound attachments infrastructure', () => {
  /** Webhook mode, every default. */
  let defaults: Synthesized;
  /** Polling with MO polling, every setting from props, an alarm topic. */
  let polling: Synthesized;

  beforeAll(() => {
    defaults = synth();
    polling = synth({
      gateway: { ...TEST_GATEWAY, timeoutMs: 20_000 },
      reportDelivery: 'polling',
      moPolling: true,
      reconcile: { afterMinutes: 45, horizonHours: 72, maxRecipients: 2_000 },
      attachments: { expireAfterDays: 730, infrequentAccessAfterDays: 90 },
      webhooks: { eventRetentionDays: 60, storeConcurrency: 8 },
      metricsNamespace: 'acme/msgbridge',
      alarmTopicArn: ALARM_TOPIC,
    });
  });

  const jobs = (synthesized: Synthesized) => synthesized.stack.scheduledJobs;
  const attachments = (synthesized: Synthesized) => synthesized.stack.inboundAttachments;
  const pollReportsOf = (synthesized: Synthesized) =>
    defined(jobs(synthesized).pollReports, 'poll-reports');

  describe('schedules', () => {
    const cases: [
      string,
      () => Synthesized,
      (synthesized: Synthesized) => { fn: IFunction; schedule: FunctionSchedule | undefined },
      string,
      number,
      number,
    ][] = [
      [
        'refresh-token',
        () => defaults,
        (s) => ({ fn: jobs(s).refreshToken, schedule: jobs(s).refreshTokenSchedule }),
        'rate(5 minutes)',
        2,
        240,
      ],
      [
        'poll-reports',
        () => polling,
        (s) => ({ fn: pollReportsOf(s), schedule: jobs(s).pollReportsSchedule }),
        'rate(1 minute)',
        0,
        60,
      ],
      [
        'reconcile-status',
        () => defaults,
        (s) => ({ fn: jobs(s).reconcileStatus, schedule: jobs(s).reconcileStatusSchedule }),
        'rate(15 minutes)',
        0,
        600,
      ],
      [
        'sweep-attachments',
        () => defaults,
        (s) => ({ fn: attachments(s).sweepAttachments, schedule: attachments(s).sweepSchedule }),
        'rate(15 minutes)',
        0,
        600,
      ],
    ];

    it.each(cases)(
      'invokes %s on its rate, with its retries and maximum event age in the scheduler and in Lambda',
      (_, synthesized, parts, rate, retries, maxAgeSeconds) => {
        // Prepare
        const s = synthesized();
        const { fn, schedule } = parts(s);

        // Act
        const properties = s.resource(defined(schedule, 'schedule').schedule).Properties;
        const invokeConfigs = Object.values(
          s.template.findResources('AWS::Lambda::EventInvokeConfig', {
            Properties: { FunctionName: { Ref: s.id(fn) } },
          }),
        );

        // Assess
        expect(properties).toEqual({
          Description: expect.any(String),
          ScheduleExpression: rate,
          ScheduleExpressionTimezone: 'Etc/UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          State: 'ENABLED',
          Target: {
            Arn: { 'Fn::GetAtt': [s.id(fn), 'Arn'] },
            RoleArn: { 'Fn::GetAtt': [s.id(schedule?.role), 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: retries, MaximumEventAgeInSeconds: maxAgeSeconds },
          },
        });
        expect(invokeConfigs.map((config) => config.Properties)).toEqual([
          {
            FunctionName: { Ref: s.id(fn) },
            Qualifier: '$LATEST',
            MaximumRetryAttempts: retries,
            MaximumEventAgeInSeconds: maxAgeSeconds,
          },
        ]);
      },
    );

    it.each(cases)(
      'lets the scheduler invoke %s, and nothing else, through a role of its own',
      (_, synthesized, parts) => {
        const s = synthesized();
        const { fn, schedule } = parts(s);
        const role = defined(schedule, 'schedule').role;

        const trust = s.resource(role).Properties.AssumeRolePolicyDocument as {
          Statement: Statement[];
        };

        expect(trust.Statement).toEqual([
          {
            Effect: 'Allow',
            Action: 'sts:AssumeRole',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ]);
        expect(statementsOfRole(s, role)).toEqual([
          {
            Effect: 'Allow',
            Action: 'lambda:InvokeFunction',
            Resource: { 'Fn::GetAtt': [s.id(fn), 'Arn'] },
          },
        ]);
      },
    );

    it('deploys no report poller in webhook mode', () => {
      const { stack, template } = defaults;

      expect(stack.scheduledJobs.pollReports).toBeUndefined();
      expect(stack.scheduledJobs.pollReportsSchedule).toBeUndefined();
      template.resourceCountIs('AWS::Scheduler::Schedule', 3);
      expect(JSON.stringify(template.toJSON())).not.toContain('REPORT_DELIVERY');
    });

    it.each([
      ['polling', false, 'polling', 'on'],
      ['both', false, 'both', 'off'],
      ['webhook', true, 'webhook', 'on'],
    ] as const)(
      'deploys the poller every minute with reportDelivery %s and moPolling %s',
      (reportDelivery, moPolling, expectedDelivery, expectedMo) => {
        const s = reportDelivery === 'polling' ? polling : synth({ reportDelivery, moPolling });

        const fn = pollReportsOf(s);

        s.template.resourceCountIs('AWS::Scheduler::Schedule', 4);
        expect(s.resource(jobs(s).pollReportsSchedule?.schedule).Properties).toMatchObject({
          ScheduleExpression: 'rate(1 minute)',
        });
        expect(environmentOf(s, fn)).toMatchObject({
          REPORT_DELIVERY: expectedDelivery,
          MO_POLLING: expectedMo,
        });
      },
    );
  });

  describe('functions', () => {
    it('configures refresh-token from its environment, with a 30 s timeout', () => {
      const { stack, id } = defaults;
      const fn = stack.scheduledJobs.refreshToken;

      expect(environmentOf(defaults, fn)).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        GATEWAY_API_URL: 'https://api.gateway.example',
        GATEWAY_SEND_URL: 'https://send.gateway.example',
        GATEWAY_MNT_URL: 'https://mnt.gateway.example',
        GATEWAY_TIMEOUT_MS: '10000',
        GATEWAY_CREDENTIALS_SECRET_ARN: { Ref: id(stack.credentials) },
        POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
      });
      expect(defaults.resource(fn).Properties.Timeout).toBe(30);
    });

    it('gives refresh-token time for two gateway calls when the gateway timeout is long', () => {
      const fn = polling.stack.scheduledJobs.refreshToken;

      expect(polling.resource(fn).Properties.Timeout).toBe(45);
      expect(environmentOf(polling, fn).GATEWAY_TIMEOUT_MS).toBe('20000');
    });

    it('configures poll-reports from its environment, with 5 s gateway calls and a 60 s timeout', () => {
      const { stack, id } = polling;
      const fn = pollReportsOf(polling);

      expect(environmentOf(polling, fn)).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        REPORT_DELIVERY: 'polling',
        MO_POLLING: 'on',
        EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        EVENT_RETENTION_DAYS: '60',
        STORE_CONCURRENCY: '8',
        GATEWAY_API_URL: 'https://api.gateway.example',
        GATEWAY_SEND_URL: 'https://send.gateway.example',
        GATEWAY_MNT_URL: 'https://mnt.gateway.example',
        GATEWAY_TIMEOUT_MS: '5000',
        GATEWAY_CREDENTIALS_SECRET_ARN: { Ref: id(stack.credentials) },
        POWERTOOLS_METRICS_NAMESPACE: 'acme/msgbridge',
        QUARANTINE_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
        PAYLOAD_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
      });
      expect(polling.resource(fn).Properties.Timeout).toBe(60);
    });

    it('keeps a gateway timeout shorter than 5 s for poll-reports', () => {
      const s = synth({ gateway: { ...TEST_GATEWAY, timeoutMs: 3_000 }, reportDelivery: 'both' });

      expect(environmentOf(s, pollReportsOf(s)).GATEWAY_TIMEOUT_MS).toBe('3000');
    });

    it('configures reconcile-status from its environment, with a 5-minute timeout', () => {
      const { stack, id } = defaults;
      const fn = stack.scheduledJobs.reconcileStatus;

      expect(environmentOf(defaults, fn)).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
        STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
        RECONCILE_AFTER_MINUTES: '30',
        RECONCILE_HORIZON_HOURS: '96',
        RECONCILE_MAX_RECIPIENTS: '5000',
        EVENT_RETENTION_DAYS: '35',
        STORE_CONCURRENCY: '16',
        GATEWAY_API_URL: 'https://api.gateway.example',
        GATEWAY_SEND_URL: 'https://send.gateway.example',
        GATEWAY_MNT_URL: 'https://mnt.gateway.example',
        GATEWAY_TIMEOUT_MS: '10000',
        GATEWAY_CREDENTIALS_SECRET_ARN: { Ref: id(stack.credentials) },
        POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
        PAYLOAD_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
      });
      expect(defaults.resource(fn).Properties.Timeout).toBe(300);
    });

    it('takes the reconciliation settings from props', () => {
      expect(environmentOf(polling, polling.stack.scheduledJobs.reconcileStatus)).toMatchObject({
        RECONCILE_AFTER_MINUTES: '45',
        RECONCILE_HORIZON_HOURS: '72',
        RECONCILE_MAX_RECIPIENTS: '2000',
      });
    });

    it('configures both attachment functions from their environment', () => {
      const { stack, id } = defaults;

      for (const fn of [
        stack.inboundAttachments.fetchAttachments,
        stack.inboundAttachments.sweepAttachments,
      ]) {
        expect(environmentOf(defaults, fn)).toEqual({
          NODE_OPTIONS: '--enable-source-maps',
          EVENT_TABLE_NAME: { Ref: id(stack.eventTable) },
          STATE_TABLE_NAME: { Ref: id(stack.stateTable) },
          ATTACHMENT_BUCKET: { Ref: id(stack.inboundAttachments.bucket) },
          ATTACHMENT_PREFIX: 'inbound/',
          EVENT_RETENTION_DAYS: '35',
          GATEWAY_API_URL: 'https://api.gateway.example',
          GATEWAY_SEND_URL: 'https://send.gateway.example',
          GATEWAY_MNT_URL: 'https://mnt.gateway.example',
          GATEWAY_TIMEOUT_MS: '10000',
          GATEWAY_CREDENTIALS_SECRET_ARN: { Ref: id(stack.credentials) },
          POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
        });
        expect(defaults.resource(fn).Properties).toMatchObject({ Timeout: 300, MemorySize: 512 });
      }
    });
  });

  describe('attachment bucket', () => {
    it('blocks all public access, refuses requests without TLS and encrypts with the data key', () => {
      const { template, id, stack } = defaults;
      const bucket = stack.inboundAttachments.bucket;

      const properties = defaults.resource(bucket).Properties;

      expect(properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [id(stack.dataKey.ownKey), 'Arn'] },
            },
          },
        ],
      });
      expect(properties.VersioningConfiguration).toBeUndefined();
      expect(properties.OwnershipControls).toEqual({
        Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }],
      });
      const policies = Object.values(
        template.findResources('AWS::S3::BucketPolicy', {
          Properties: { Bucket: { Ref: id(bucket) } },
        }),
      );
      expect(policies.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        [
          {
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: [
              { 'Fn::GetAtt': [id(bucket), 'Arn'] },
              { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id(bucket), 'Arn'] }, '/*']] },
            ],
          },
        ],
      ]);
    });

    it('expires attachments after 365 days and aborts abandoned uploads after a day', () => {
      const properties = defaults.resource(defaults.stack.inboundAttachments.bucket).Properties;

      expect(properties.LifecycleConfiguration).toEqual({
        Rules: [
          {
            Id: 'attachments',
            Status: 'Enabled',
            ExpirationInDays: 365,
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          },
        ],
      });
    });

    it('takes the expiry and the move to Standard-IA from props', () => {
      const properties = polling.resource(polling.stack.inboundAttachments.bucket).Properties;

      expect(properties.LifecycleConfiguration).toEqual({
        Rules: [
          {
            Id: 'attachments',
            Status: 'Enabled',
            ExpirationInDays: 730,
            Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 90 }],
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          },
        ],
      });
    });

    it('keeps the bucket and its access logs when the stack is deleted', () => {
      const { bucket, accessLogsBucket } = defaults.stack.inboundAttachments;

      for (const each of [bucket, accessLogsBucket]) {
        const resource = defaults.resource(each);
        expect(resource.DeletionPolicy).toBe('Retain');
        expect(resource.UpdateReplacePolicy).toBe('Retain');
      }
    });

    it('logs requests into a private log bucket that only S3 log delivery for it may write to', () => {
      const { template, id, stack } = defaults;
      const { bucket, accessLogsBucket } = stack.inboundAttachments;

      const logs = defaults.resource(accessLogsBucket).Properties;
      const policy = Object.values(
        template.findResources('AWS::S3::BucketPolicy', {
          Properties: { Bucket: { Ref: id(accessLogsBucket) } },
        }),
      )[0]?.Properties.PolicyDocument.Statement as Statement[];

      expect(defaults.resource(bucket).Properties.LoggingConfiguration).toEqual({
        DestinationBucketName: { Ref: id(accessLogsBucket) },
        LogFilePrefix: 'attachments/',
      });
      expect(logs.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicPolicy: true });
      expect(logs.AccessControl).toBeUndefined();
      expect(logs.LifecycleConfiguration).toEqual({
        Rules: [{ Id: 'expire-access-logs', Status: 'Enabled', ExpirationInDays: 365 }],
      });
      expect(policy).toContainEqual({
        Effect: 'Allow',
        Principal: { Service: 'logging.s3.amazonaws.com' },
        Action: 's3:PutObject',
        Resource: {
          'Fn::Join': ['', [{ 'Fn::GetAtt': [id(accessLogsBucket), 'Arn'] }, '/attachments/*']],
        },
        Condition: {
          ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [id(bucket), 'Arn'] } },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      });
      expect(policy).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    });

    it('outputs the bucket name', () => {
      const outputs = defaults.template.toJSON().Outputs as Record<string, { Value: unknown }>;

      expect(outputs.AttachmentBucketName?.Value).toEqual({
        Ref: defaults.id(defaults.stack.inboundAttachments.bucket),
      });
    });
  });

  describe('attachments stream', () => {
    const mappingsOf = ({ template, id, stack }: Synthesized) =>
      Object.values(
        template.findResources('AWS::Lambda::EventSourceMapping', {
          Properties: { FunctionName: { Ref: id(stack.inboundAttachments.fetchAttachments) } },
        }),
      ).map((mapping) => mapping.Properties);

    it('reads the event table stream in batches of 10, bisecting, with 5 retries and partial failures', () => {
      const { id, stack } = defaults;

      expect(mappingsOf(defaults)).toEqual([
        {
          FunctionName: { Ref: id(stack.inboundAttachments.fetchAttachments) },
          EventSourceArn: { 'Fn::GetAtt': [id(stack.eventTable), 'StreamArn'] },
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 10,
          BisectBatchOnFunctionError: true,
          MaximumRetryAttempts: 5,
          MaximumRecordAgeInSeconds: 86_400,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          FilterCriteria: { Filters: [{ Pattern: expect.any(String) }] },
          DestinationConfig: {
            OnFailure: {
              Destination: { 'Fn::GetAtt': [id(stack.inboundAttachments.onFailureQueue), 'Arn'] },
            },
          },
        },
      ]);
    });

    it('passes only inserted inbound messages with at least one attachment', () => {
      const filters = mappingsOf(defaults).flatMap(
        (mapping) => (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters,
      );

      const patterns = filters.map((filter) => JSON.parse(filter.Pattern));

      expect(patterns).toEqual([
        {
          eventName: ['INSERT'],
          dynamodb: {
            NewImage: {
              kind: { S: ['mo'] },
              attachmentCount: { N: [{ numeric: ['>', 0] }] },
            },
          },
        },
      ]);
      // The handler and the local stream poller decide with the same shared pattern.
      expect(patterns[0]).toEqual(ATTACHMENT_RECORD_PATTERN);
    });

    it('keeps failed batches in an encrypted, TLS-only queue for 14 days', () => {
      const { template, id, stack } = defaults;
      const queue = stack.inboundAttachments.onFailureQueue;

      expect(defaults.resource(queue).Properties).toMatchObject({
        KmsMasterKeyId: { 'Fn::GetAtt': [id(stack.dataKey.ownKey), 'Arn'] },
        MessageRetentionPeriod: 14 * 86_400,
      });
      const policies = Object.values(
        template.findResources('AWS::SQS::QueuePolicy', {
          Properties: { Queues: [{ Ref: id(queue) }] },
        }),
      );
      expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      ]);
    });
  });

  describe('alarms', () => {
    const single = (namespace: string, service: string, metricName: string) => ({
      Namespace: namespace,
      MetricName: metricName,
      Dimensions: [{ Name: 'service', Value: service }],
    });

    it.each([
      [
        'TokenRefreshFailures: any failure in 2 of 3 five-minute periods',
        (s: Synthesized) => s.stack.scheduledJobs.tokenRefreshFailures,
        (_s: Synthesized) => ({
          ...single('msgbridge', 'refresh-token', 'TokenRefreshFailures'),
          Statistic: 'Sum',
          Period: 300,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 3,
          DatapointsToAlarm: 2,
          TreatMissingData: 'notBreaching',
        }),
      ],
      [
        'TokenMinutesLeft: under 8 minutes, or no refresher reporting',
        (s: Synthesized) => s.stack.scheduledJobs.tokenMinutesLeft,
        (_s: Synthesized) => ({
          ...single('msgbridge', 'refresh-token', 'TokenMinutesLeft'),
          Statistic: 'Minimum',
          Period: 300,
          ComparisonOperator: 'LessThanThreshold',
          Threshold: 8,
          EvaluationPeriods: 2,
          DatapointsToAlarm: 2,
          TreatMissingData: 'breaching',
        }),
      ],
      [
        'StatusUnavailable: any in 15 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.statusUnavailable,
        (_s: Synthesized) => ({
          ...single('msgbridge', 'reconcile-status', 'StatusUnavailable'),
          Statistic: 'Sum',
          Period: 900,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        }),
      ],
      [
        'ReconcileStoreFailures: any in 15 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.reconcileStoreFailures,
        (_s: Synthesized) => ({
          ...single('msgbridge', 'reconcile-status', 'ReconcileStoreFailures'),
          Statistic: 'Sum',
          Period: 900,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        }),
      ],
      [
        'NotQueried: in 3 runs in a row',
        (s: Synthesized) => s.stack.scheduledJobs.notQueried,
        (_s: Synthesized) => ({
          ...single('msgbridge', 'reconcile-status', 'NotQueried'),
          Statistic: 'Sum',
          Period: 900,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 3,
          DatapointsToAlarm: 3,
          TreatMissingData: 'notBreaching',
        }),
      ],
      [
        'sweep-attachments Errors: any in 15 minutes',
        (s: Synthesized) => s.stack.inboundAttachments.sweepErrors,
        (s: Synthesized) => ({
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [
            {
              Name: 'FunctionName',
              Value: { Ref: s.id(s.stack.inboundAttachments.sweepAttachments) },
            },
          ],
          Statistic: 'Sum',
          Period: 900,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        }),
      ],
      [
        'the attachments on-failure queue: as soon as it holds a message',
        (s: Synthesized) => s.stack.inboundAttachments.onFailureQueueNotEmpty,
        (s: Synthesized) => ({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [
            {
              Name: 'QueueName',
              Value: {
                'Fn::GetAtt': [s.id(s.stack.inboundAttachments.onFailureQueue), 'QueueName'],
              },
            },
          ],
          Statistic: 'Maximum',
          Period: 60,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        }),
      ],
    ])('alarms on %s', (_, alarmOf, expected) => {
      const alarm = defaults.resource(alarmOf(defaults)).Properties;

      expect(alarm).toMatchObject(expected(defaults));
      expect(alarm.AlarmDescription).toMatch(/See docs\/operations\.md#[a-z-]+\.$/);
    });

    it('alarms on AttachmentsLost of either attachment function', () => {
      const alarm = defaults.resource(defaults.stack.inboundAttachments.attachmentsLost).Properties;

      expect(alarm).toMatchObject({
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.Metrics).toEqual(
        expect.arrayContaining(
          ['fetch-attachments', 'sweep-attachments'].map((service) =>
            expect.objectContaining({
              MetricStat: {
                Metric: single('msgbridge', service, 'AttachmentsLost'),
                Period: 900,
                Stat: 'Sum',
              },
              ReturnData: false,
            }),
          ),
        ),
      );
      expect(alarm.Metrics).toContainEqual(
        expect.objectContaining({ Expression: 'FILL(fetch, 0) + FILL(sweep, 0)' }),
      );
    });

    it.each([
      [
        'PollLagSeconds: a report older than 5 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.pollLag,
        {
          ...single('acme/msgbridge', 'poll-reports', 'PollLagSeconds'),
          Statistic: 'Maximum',
          Period: 300,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 300,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        },
      ],
      [
        'PagesUnconfirmed: in 3 of 5 minutes',
        (s: Synthesized) => s.stack.scheduledJobs.pagesUnconfirmed,
        {
          ...single('acme/msgbridge', 'poll-reports', 'PagesUnconfirmed'),
          Statistic: 'Sum',
          Period: 60,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 5,
          DatapointsToAlarm: 3,
          TreatMissingData: 'notBreaching',
        },
      ],
      [
        'ReportPolls: none for 5 minutes, also when no poller reports at all',
        (s: Synthesized) => s.stack.scheduledJobs.reportPollerStopped,
        {
          ...single('acme/msgbridge', 'poll-reports', 'ReportPolls'),
          Statistic: 'Sum',
          Period: 300,
          ComparisonOperator: 'LessThanThreshold',
          Threshold: 1,
          EvaluationPeriods: 1,
          TreatMissingData: 'breaching',
        },
      ],
      [
        'MoPolls: none for 5 minutes, also when no poller reports at all',
        (s: Synthesized) => s.stack.scheduledJobs.moPollerStopped,
        {
          ...single('acme/msgbridge', 'poll-reports', 'MoPolls'),
          Statistic: 'Sum',
          Period: 300,
          ComparisonOperator: 'LessThanThreshold',
          Threshold: 1,
          EvaluationPeriods: 1,
          TreatMissingData: 'breaching',
        },
      ],
      [
        'PolledPagesInQuarantine: a kept page still there in 3 five-minute periods in a row',
        (s: Synthesized) => s.stack.scheduledJobs.polledPagesInQuarantine,
        {
          ...single('acme/msgbridge', 'poll-reports', 'PolledPagesInQuarantine'),
          Statistic: 'Minimum',
          Period: 300,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 3,
          DatapointsToAlarm: 3,
          TreatMissingData: 'notBreaching',
        },
      ],
      [
        'InboundMessagesNotStored: any',
        (s: Synthesized) => s.stack.scheduledJobs.inboundMessagesNotStored,
        {
          ...single('acme/msgbridge', 'poll-reports', 'InboundMessagesNotStored'),
          Statistic: 'Sum',
          Period: 300,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        },
      ],
    ])('alarms, when polling, on %s', (_, alarmOf, expected) => {
      const alarm = polling.resource(defined(alarmOf(polling), 'alarm')).Properties;

      expect(alarm).toMatchObject(expected);
    });

    it('has no polling alarms in webhook mode, and no MO alarms without MO polling', () => {
      const both = synth({ reportDelivery: 'both' });

      const { scheduledJobs } = defaults.stack;
      for (const alarm of [
        scheduledJobs.pollLag,
        scheduledJobs.pagesUnconfirmed,
        scheduledJobs.reportPollerStopped,
        scheduledJobs.moPollerStopped,
        scheduledJobs.inboundMessagesNotStored,
        scheduledJobs.polledPagesInQuarantine,
      ])
        expect(alarm).toBeUndefined();
      expect(both.stack.scheduledJobs.reportPollerStopped).toBeDefined();
      expect(both.stack.scheduledJobs.moPollerStopped).toBeUndefined();
      expect(both.stack.scheduledJobs.inboundMessagesNotStored).toBeUndefined();
      const metricNames = Object.values(
        defaults.template.findResources('AWS::CloudWatch::Alarm'),
      ).map((alarm) => alarm.Properties.MetricName);
      for (const metricName of ['PollLagSeconds', 'PagesUnconfirmed', 'ReportPolls', 'MoPolls'])
        expect(metricNames).not.toContain(metricName);
    });

    it('notifies the alarm topic of every alarm and its recovery only when one is given', () => {
      for (const [s, actions] of [
        [defaults, undefined],
        [polling, [ALARM_TOPIC]],
      ] as const) {
        const alarms = [...s.stack.scheduledJobs.alarms, ...s.stack.inboundAttachments.alarms];
        expect(alarms).toHaveLength(s === polling ? 14 : 8);
        for (const alarm of alarms) {
          const properties = s.resource(alarm).Properties;
          expect(properties.AlarmActions).toEqual(actions);
          expect(properties.OKActions).toEqual(actions);
        }
      }
    });
  });

  describe('IAM', () => {
    const tableArn = (s: Synthesized, table: IConstruct) => ({
      'Fn::GetAtt': [s.id(table), 'Arn'],
    });
    const credentialsStatement = (s: Synthesized) => ({
      Effect: 'Allow',
      Action: 'secretsmanager:GetSecretValue',
      Resource: { Ref: s.id(s.stack.credentials) },
    });
    /** Every table and index statement of a role, in the order granted. */
    const dynamodbOf = (s: Synthesized, fn: IFunction) =>
      withPrefix(statementsOfRole(s, fn.role), 'dynamodb:').filter(
        (statement) => !JSON.stringify(statement.Resource).includes('StreamArn'),
      );

    it('lets refresh-token read and write the token item only, and read the credentials', () => {
      const s = defaults;
      const fn = s.stack.scheduledJobs.refreshToken;

      expect(dynamodbOf(s, fn)).toEqual([
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
          Resource: tableArn(s, s.stack.stateTable),
        },
      ]);
      expect(withPrefix(statementsOfRole(s, fn.role), 'secretsmanager:')).toEqual([
        credentialsStatement(s),
      ]);
    });

    it('lets poll-reports put into the event table and use the token and its leases', () => {
      const s = polling;
      const fn = pollReportsOf(s);

      expect(dynamodbOf(s, fn)).toEqual([
        {
          Effect: 'Allow',
          Action: [
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:DeleteItem',
            'dynamodb:UpdateItem',
          ],
          Resource: tableArn(s, s.stack.stateTable),
        },
        { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: tableArn(s, s.stack.eventTable) },
      ]);
      expect(withPrefix(statementsOfRole(s, fn.role), 'secretsmanager:')).toEqual([
        credentialsStatement(s),
      ]);
    });

    it('lets poll-reports put, get, delete and list below quarantine/polled/ of the attachment bucket only', () => {
      const s = polling;
      const fn = pollReportsOf(s);
      const bucket = s.id(s.stack.inboundAttachments.bucket);
      const bucketArn = { 'Fn::GetAtt': [bucket, 'Arn'] };

      // Other prefixes of the same bucket (payloads/) are granted for other reasons.
      const onBucket = withPrefix(statementsOfRole(s, fn.role), 's3:').filter(
        (statement) =>
          JSON.stringify(statement.Resource).includes('/quarantine/polled/') ||
          actionsOf(statement).some((action) => !action.startsWith('s3:PutObject')),
      );

      expect(onBucket).toEqual([
        {
          Effect: 'Allow',
          Action: [
            's3:PutObject',
            's3:AbortMultipartUpload',
            's3:ListMultipartUploadParts',
            's3:GetObject',
            's3:DeleteObject',
          ],
          Resource: { 'Fn::Join': ['', [bucketArn, '/quarantine/polled/*']] },
        },
        {
          Effect: 'Allow',
          Action: 's3:ListBucket',
          Resource: bucketArn,
          Condition: { StringLike: { 's3:prefix': ['quarantine/polled/*'] } },
        },
      ]);
      const kms = withPrefix(statementsOfRole(s, fn.role), 'kms:').filter((statement) =>
        JSON.stringify(statement.Resource).includes(s.id(s.stack.dataKey.key)),
      );
      expect(kms.flatMap(actionsOf)).toEqual(
        expect.arrayContaining(['kms:GenerateDataKey', 'kms:Decrypt']),
      );
    });

    it('lets reconcile-status query the awaiting-report index, and no other index', () => {
      const s = defaults;
      const fn = s.stack.scheduledJobs.reconcileStatus;

      expect(dynamodbOf(s, fn)).toEqual([
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
          Resource: tableArn(s, s.stack.stateTable),
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
          Resource: tableArn(s, s.stack.eventTable),
        },
        {
          Effect: 'Allow',
          Action: 'dynamodb:Query',
          Resource: {
            'Fn::Join': ['', [tableArn(s, s.stack.eventTable), '/index/awaiting-report']],
          },
        },
      ]);
      expect(withPrefix(statementsOfRole(s, fn.role), 'secretsmanager:')).toEqual([
        credentialsStatement(s),
      ]);
    });

    it.each([
      ['fetch-attachments', (s: Synthesized) => s.stack.inboundAttachments.fetchAttachments, []],
      [
        'sweep-attachments',
        (s: Synthesized) => s.stack.inboundAttachments.sweepAttachments,
        ['dynamodb:Scan'],
      ],
    ])(
      'lets %s keep markers and events, and write objects below inbound/ of the bucket only',
      (_, fnOf, extraStateActions) => {
        const s = defaults;
        const fn = fnOf(s);
        const bucket = s.stack.inboundAttachments.bucket;

        const statements = statementsOfRole(s, fn.role);

        expect(dynamodbOf(s, fn)).toEqual([
          {
            Effect: 'Allow',
            Action: [
              'dynamodb:GetItem',
              'dynamodb:PutItem',
              'dynamodb:DeleteItem',
              ...extraStateActions,
            ],
            Resource: tableArn(s, s.stack.stateTable),
          },
          {
            Effect: 'Allow',
            Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
            Resource: tableArn(s, s.stack.eventTable),
          },
        ]);
        expect(withPrefix(statements, 's3:')).toEqual([
          {
            Effect: 'Allow',
            Action: [
              's3:PutObject',
              's3:AbortMultipartUpload',
              's3:ListMultipartUploadParts',
              's3:GetObject',
            ],
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [s.id(bucket), 'Arn'] }, '/inbound/*']] },
          },
        ]);
        expect(withPrefix(statements, 'secretsmanager:')).toEqual([credentialsStatement(s)]);
      },
    );

    it('gives the stream reader of the attachments only the stream and its on-failure queue', () => {
      const s = defaults;
      const statements = statementsOfRole(s, s.stack.inboundAttachments.fetchAttachments.role);

      const streams = statements.filter((statement) =>
        JSON.stringify(statement.Resource).includes('StreamArn'),
      );

      expect(streams.flatMap(actionsOf).sort()).toEqual([
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
      ]);
      expect(withPrefix(statements, 'sqs:')).toEqual([
        expect.objectContaining({
          Action: expect.arrayContaining(['sqs:SendMessage']),
          Resource: { 'Fn::GetAtt': [s.id(s.stack.inboundAttachments.onFailureQueue), 'Arn'] },
        }),
      ]);
    });

    it('grants no wildcard action, no index but awaiting-report, and S3 to the attachment functions only', () => {
      for (const s of [defaults, polling]) {
        const policies = Object.values(s.template.findResources('AWS::IAM::Policy'));
        const statements = policies.flatMap(
          (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
        );

        for (const action of statements.flatMap(actionsOf)) expect(action).not.toMatch(/\*/);
        const indexStatements = statements.filter((statement) =>
          JSON.stringify(statement.Resource).includes('/index/'),
        );
        expect(indexStatements).toEqual([
          expect.objectContaining({
            Action: 'dynamodb:Query',
            Resource: expect.objectContaining({
              'Fn::Join': ['', [expect.anything(), '/index/awaiting-report']],
            }),
          }),
        ]);
        const withS3 = policies
          .filter((policy) =>
            (policy.Properties.PolicyDocument.Statement as Statement[]).some((statement) =>
              actionsOf(statement).some((action) => action.startsWith('s3:')),
            ),
          )
          .map((policy) => policy.Properties.Roles);
        // poll-reports, where deployed, keeps unstored polled pages below quarantine/polled/.
        expect(withS3).toEqual(
          expect.arrayContaining([
            [{ Ref: s.id(s.stack.inboundAttachments.fetchAttachments.role) }],
            [{ Ref: s.id(s.stack.inboundAttachments.sweepAttachments.role) }],
          ]),
        );
        if (s === polling) expect(withS3).toContainEqual([{ Ref: s.id(pollReportsOf(s).role) }]);
      }
    });

    it('gives the functions no managed policy', () => {
      const s = polling;

      for (const fn of [
        s.stack.scheduledJobs.refreshToken,
        pollReportsOf(s),
        s.stack.scheduledJobs.reconcileStatus,
        s.stack.inboundAttachments.fetchAttachments,
        s.stack.inboundAttachments.sweepAttachments,
      ])
        expect(s.resource(fn.role).Properties.ManagedPolicyArns).toBeUndefined();
    });
  });

  describe('props validation', () => {
    it('lists every problem of the new settings in one error', () => {
      const props: unknown = {
        gateway: TEST_GATEWAY,
        reportDelivery: 'sometimes',
        moPolling: 'yes',
        reconcile: { afterMinutes: 0, horizonHours: 3_000, maxRecipients: 5 },
        attachments: { expireAfterDays: 0, infrequentAccessAfterDays: 10 },
      };

      const problems = problemsOf(
        () => new MsgbridgeStack(new App(), 'invalid', props as MsgbridgeStackProps),
      );

      expect(problems).toEqual([
        'reportDelivery must be "webhook", "polling" or "both", got "sometimes"',
        'moPolling must be true or false, got "yes"',
        'reconcile.afterMinutes must be an integer from 1 to 1440, got 0',
        'reconcile.horizonHours must be an integer from 1 to 2160, got 3000',
        'reconcile.maxRecipients must be an integer from 10 to 100000, got 5',
        'attachments.expireAfterDays must be an integer from 1 to 36500, got 0',
        'attachments.infrequentAccessAfterDays must be an integer from 30 to 36500, got 10',
      ]);
    });

    it('refuses a horizon shorter than the wait, and a move to Standard-IA after the expiry', () => {
      const problems = problemsOf(
        () =>
          new MsgbridgeStack(new App(), 'invalid', {
            gateway: TEST_GATEWAY,
            reconcile: { afterMinutes: 120, horizonHours: 2 },
            attachments: { expireAfterDays: 60, infrequentAccessAfterDays: 60 },
            sending: { maxReceiveCount: 3 },
          }),
      );

      expect(problems).toEqual([
        'sending.maxReceiveCount must be an integer from 5 to 1000, got 3',
        'reconcile.horizonHours (2 h) must be longer than reconcile.afterMinutes (120 min)',
        'attachments.infrequentAccessAfterDays (60) must be fewer than expireAfterDays (60), or the objects expire before they move',
      ]);
    });

    it('reads the new settings from the msgbridge context', () => {
      const props = stackPropsFromContext({
        gateway: TEST_GATEWAY,
        reportDelivery: 'both',
        moPolling: true,
        reconcile: { afterMinutes: 45, horizonHours: 72, maxRecipients: 2_000 },
        attachments: { expireAfterDays: 730, infrequentAccessAfterDays: 90 },
      });

      expect(props).toEqual({
        gateway: TEST_GATEWAY,
        reportDelivery: 'both',
        moPolling: true,
        reconcile: { afterMinutes: 45, horizonHours: 72, maxRecipients: 2_000 },
        attachments: { expireAfterDays: 730, infrequentAccessAfterDays: 90 },
      });
    });

    it('names misspelt or mistyped context settings by their paths', () => {
      const problems = problemsOf(() =>
        stackPropsFromContext({
          gateway: TEST_GATEWAY,
          reportDelivery: 'poll',
          moPolling: 'on',
          reconcile: { afterMinuts: 45 },
          attachments: { expireAfterDays: '365' },
        }),
      );

      for (const path of [
        'msgbridge.reportDelivery',
        'msgbridge.moPolling',
        'msgbridge.reconcile',
        'msgbridge.attachments.expireAfterDays',
      ])
        expect(problems.some((problem) => problem.startsWith(path))).toBe(true);
      expect(problems.some((problem) => problem.includes('afterMinuts'))).toBe(true);
    });
  });

  describe('cdk-nag', () => {
    it('passes the AwsSolutions checks with polling, MO polling, lifecycle props and an alarm topic', () => {
      const app = new App();
      new MsgbridgeStack(app, 'msgbridge-nag-jobs', {
        gateway: TEST_GATEWAY,
        reportDelivery: 'both',
        moPolling: true,
        attachments: { expireAfterDays: 400, infrequentAccessAfterDays: 30 },
        alarmTopicArn: ALARM_TOPIC,
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      // Synthesis throws on any unacknowledged error.
      const assembly = app.synth();

      expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-jobs']);
    });

    it('acknowledges only the reviewed findings of the jobs and the attachments, each with a reason', () => {
      const { stack, id } = polling;
      const scopes = [stack.scheduledJobs, stack.inboundAttachments];

      const acknowledged = scopes
        .flatMap((scope) => scope.node.findAll())
        .flatMap((construct) =>
          construct.node.metadata
            .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
            .flatMap((entry) =>
              Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
                path: construct.node.path.replace('msgbridge-jobs/', ''),
                rule: rule.replace(/^annotation::/i, ''),
                reason,
              })),
            ),
        );

      for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(80);
      const objects = `AwsSolutions-IAM5[Resource::<${id(stack.inboundAttachments.bucket)}.Arn>/inbound/*]`;
      // The claim check: large bodies kept below payloads/ by the functions that store items.
      const payloads = `AwsSolutions-IAM5[Resource::<${id(stack.inboundAttachments.bucket)}.Arn>/payloads/*]`;
      expect(acknowledged.map(({ path, rule }) => `${path} ${rule}`).sort()).toEqual(
        [
          'scheduled-jobs/refresh-token-role AwsSolutions-IAM5[Resource::*]',
          'scheduled-jobs/poll-reports-role AwsSolutions-IAM5[Resource::*]',
          `scheduled-jobs/poll-reports-role AwsSolutions-IAM5[Resource::<${id(stack.inboundAttachments.bucket)}.Arn>/quarantine/polled/*]`,
          `scheduled-jobs/poll-reports-role ${payloads}`,
          'scheduled-jobs/reconcile-status-role AwsSolutions-IAM5[Resource::*]',
          `scheduled-jobs/reconcile-status-role ${payloads}`,
          'inbound-attachments/fetch-attachments-role AwsSolutions-IAM5[Resource::*]',
          `inbound-attachments/fetch-attachments-role ${objects}`,
          'inbound-attachments/sweep-attachments-role AwsSolutions-IAM5[Resource::*]',
          `inbound-attachments/sweep-attachments-role ${objects}`,
          'inbound-attachments/access-logs AwsSolutions-S1',
          'inbound-attachments/on-failure-queue AwsSolutions-SQS3',
        ].sort(),
      );
    });
  });
});
