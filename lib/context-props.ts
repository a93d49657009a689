import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { z } from 'zod';
import type { MessengerStatsName } from '../gateway/schemas/index.ts';
import { EGRESS_MODES } from './gateway-egress.ts';
import type { FunctionObservabilityOptions } from './msgbridge-function.ts';
import { type MsgBridgeProps, msgBridgeProblems } from './msgbridge-props.ts';
import { InvalidPropsError } from './props-validation.ts';

/** The CDK context key read by `bin/msgbridge.ts`. */
export const CONTEXT_KEY = 'msgbridge';

/** The retention periods CloudWatch Logs accepts, in days (0 is "never expire"). */
const RETENTION_DAYS = new Set(
  Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'),
);

/**
 * The shape of the `msgbridge` context object. Only the shape is checked here, and unknown keys
 * are refused so that a misspelt setting is not silently ignored; the stack validates the values
 * together with the rest of its props.
 */
const ContextSchema = z.strictObject({
  gateway: z.strictObject({
    hosts: z.strictObject({ api: z.string(), send: z.string(), mnt: z.string() }),
    tpsQuota: z.number(),
    timeoutMs: z.number().optional(),
  }),
  /** The send pipeline's event source and queue (see `SendPipelineOptions`). */
  sending: z
    .strictObject({
      maxConcurrency: z.number().optional(),
      batchSize: z.number().optional(),
      maxReceiveCount: z.number().optional(),
      functionTimeoutSeconds: z.number().optional(),
      maxBatchingWindowSeconds: z.number().optional(),
      attachmentBuckets: z.array(z.string()).optional(),
      acceptedEvents: z.boolean().optional(),
      producers: z.array(z.string()).optional(),
    })
    .optional(),
  /** `webhook`, `polling` or `both` (see `MsgbridgeStackProps.reportDelivery`). */
  reportDelivery: z.enum(['webhook', 'polling', 'both']).optional(),
  moPolling: z.boolean().optional(),
  /** Status reconciliation (see `ReconcileOptions`). */
  reconcile: z
    .strictObject({
      afterMinutes: z.number().optional(),
      horizonHours: z.number().optional(),
      maxRecipients: z.number().optional(),
      checkConcurrency: z.number().optional(),
    })
    .optional(),
  /** The gateway callers' fixed egress (see `GatewayEgressOptions`). */
  egress: z
    .strictObject({
      mode: z.enum(EGRESS_MODES).optional(),
      natGateways: z.number().optional(),
      maxAzs: z.number().optional(),
      vpcId: z.string().optional(),
      privateSubnetIds: z.array(z.string()).optional(),
      availabilityZones: z.array(z.string()).optional(),
      egressIps: z.array(z.string()).optional(),
    })
    .optional(),
  /** `source` of every event put on the bus (see `MsgbridgeStackProps.eventSource`). */
  eventSource: z.string().optional(),
  /** CloudWatch namespace of the functions' metrics. */
  metricsNamespace: z.string().optional(),
  /** The webhook front door (see `WebhookApiOptions`). */
  webhooks: z
    .strictObject({
      front: z.enum(['rest-api', 'function-url']).optional(),
      receiverConcurrency: z.number().optional(),
      accountConcurrency: z.number().optional(),
      maxBodyBytes: z.number().optional(),
      throttlingRateLimit: z.number().optional(),
      throttlingBurstLimit: z.number().optional(),
      allowedSourceCidrs: z.array(z.string()).optional(),
      stageName: z.string().optional(),
      eventRetentionDays: z.number().optional(),
      storeConcurrency: z.number().optional(),
      accessLogRetentionDays: z
        .number()
        .refine((days) => RETENTION_DAYS.has(days), {
          message: `must be one of the CloudWatch Logs retention periods: ${[...RETENTION_DAYS].join(', ')}`,
        })
        .optional(),
      stageTracing: z.boolean().optional(),
      cloudWatchRole: z.boolean().optional(),
      /** The web ACL on the stage (see `WebhookFirewallOptions`); absent, not deployed. */
      firewall: z.strictObject({ rateLimitPerSource: z.number().optional() }).optional(),
    })
    .optional(),
  /** Log levels and tracing of every function (see `FunctionObservabilityOptions`). */
  observability: z
    .strictObject({
      applicationLogLevel: z.string().optional(),
      systemLogLevel: z.string().optional(),
      tracing: z.string().optional(),
    })
    .optional(),
  /** The generated webhook path secret (see `WebhookSecretProps`). */
  webhookSecret: z.strictObject({ length: z.number().optional() }).optional(),
  /** The stream → EventBridge publisher and the bus archive (see `EventPublisherOptions`). */
  publisher: z
    .strictObject({
      batchSize: z.number().optional(),
      parallelizationFactor: z.number().optional(),
      retryAttempts: z.number().optional(),
      maxRecordAgeSeconds: z.number().optional(),
      publishMaxAttempts: z.number().optional(),
      archiveRetentionDays: z.number().optional(),
    })
    .optional(),
  /** Thresholds of the rate alarms (see `RateAlarmsOptions`). */
  rateAlarms: z
    .strictObject({
      webhook5xxRateThreshold: z.number().optional(),
      webhook4xxRateThreshold: z.number().optional(),
      sendRejectionRateThreshold: z.number().optional(),
    })
    .optional(),
  /** The optional daily statistics export (see `StatisticsExportOptions`); absent, not deployed. */
  statisticsExport: z
    .strictObject({
      schedule: z.string().optional(),
      timeZone: z.string().optional(),
      trackingUrls: z.boolean().optional(),
      messengerChannels: z.array(z.string()).optional(),
      // The names are checked against the seven statistics by the construct, with the rest.
      messengerStatistics: z.array(z.string()).optional(),
      elapsedDays: z.array(z.number()).optional(),
      maxUrlPages: z.number().optional(),
      s3Export: z.boolean().optional(),
    })
    .optional(),
  /** Where alarm notifications go: an existing SNS topic, or e-mail addresses. */
  alarms: z
    .strictObject({ topicArn: z.string().optional(), emails: z.array(z.string()).optional() })
    .optional(),
  /** An existing gateway credentials secret (see `ImportedSecretProps`). */
  gatewayCredentials: z
    .strictObject({ secretArn: z.string(), keyArn: z.string().optional() })
    .optional(),
  /** The data key (see `DataKeyProps`): absent, the stack creates one. */
  encryption: z.strictObject({ keyArn: z.string().optional() }).optional(),
  /** The attachment bucket's lifecycle (see `InboundAttachmentsOptions`). */
  attachments: z
    .strictObject({
      expireAfterDays: z.number().optional(),
      infrequentAccessAfterDays: z.number().optional(),
    })
    .optional(),
  /** The tables' capacity from their first day (see `TablesOptions`). */
  tables: z.strictObject({ eventTableWarmWritesPerSecond: z.number().optional() }).optional(),
});

/** The stack props the context can set. */
export type ContextStackProps = Mutable<
  Pick<
    MsgBridgeProps,
    | 'gateway'
    | 'egress'
    | 'sending'
    | 'reportDelivery'
    | 'moPolling'
    | 'reconcile'
    | 'attachments'
    | 'tables'
    | 'eventSource'
    | 'metricsNamespace'
    | 'webhooks'
    | 'webhookSecret'
    | 'observability'
    | 'publisher'
    | 'rateAlarms'
    | 'alarmTopicArn'
    | 'statisticsExport'
    | 'alarmEmails'
    | 'encryption'
    | 'gatewayCredentials'
  >
>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The stack props given by the `msgbridge` context object (from `cdk.json`, or a JSON string from
 * `--context msgbridge=...`). Throws one `InvalidPropsError` naming every missing or mistyped
 * setting by its path.
 */
export const stackPropsFromContext = (value: unknown): ContextStackProps => {
  const where = `context "${CONTEXT_KEY}"`;
  if (value === undefined)
    throw new InvalidPropsError(where, [
      'is missing: add {"gateway": {"hosts": {"api", "send", "mnt"}, "tpsQuota"}} to the context in cdk.json',
    ]);
  let object = value;
  if (typeof value === 'string') {
    try {
      object = JSON.parse(value);
    } catch {
      throw new InvalidPropsError(where, ['is a string that is not JSON']);
    }
  }
  const parsed = ContextSchema.safeParse(object);
  if (parsed.success) return toStackProps(parsed.data);
  throw new InvalidPropsError(
    where,
    parsed.error.issues.map(
      (issue) => `${[CONTEXT_KEY, ...issue.path.map(String)].join('.')}: ${issue.message}`,
    ),
  );
};

const seconds = (value: number | undefined) =>
  value === undefined ? undefined : Duration.seconds(value);

/** Drops the keys whose value is undefined, so that absent settings stay absent. */
const defined = <T extends object>(object: T): T =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;

/** The context's JSON-friendly names (seconds, days) as the stack's typed props. */
const toStackProps = (context: z.infer<typeof ContextSchema>): ContextStackProps => {
  const { sending, webhooks, publisher, alarms, statisticsExport, observability, ...others } =
    context;
  const props: ContextStackProps = { ...others };
  // The values are checked by the stack with the rest of its props (observabilityProblems).
  if (observability) props.observability = observability as FunctionObservabilityOptions;
  if (statisticsExport) {
    const { messengerStatistics, ...rest } = statisticsExport;
    props.statisticsExport = defined({
      ...rest,
      messengerStatistics: messengerStatistics as MessengerStatsName[] | undefined,
    });
  }
  if (sending) {
    const { functionTimeoutSeconds, maxBatchingWindowSeconds, ...rest } = sending;
    props.sending = defined({
      ...rest,
      functionTimeout: seconds(functionTimeoutSeconds),
      maxBatchingWindow: seconds(maxBatchingWindowSeconds),
    });
  }
  if (webhooks) {
    const { accessLogRetentionDays, ...rest } = webhooks;
    // The schema admits only the numbers RetentionDays enumerates.
    props.webhooks = defined({
      ...rest,
      accessLogRetention: accessLogRetentionDays as RetentionDays | undefined,
    });
  }
  if (publisher) {
    const { maxRecordAgeSeconds, ...rest } = publisher;
    props.publisher = defined({ ...rest, maxRecordAge: seconds(maxRecordAgeSeconds) });
  }
  if (alarms?.topicArn !== undefined) props.alarmTopicArn = alarms.topicArn;
  if (alarms?.emails !== undefined) props.alarmEmails = alarms.emails;
  return props;
};

/** The stack name of this repository's app unless the context key `stackName` sets another. */
export const DEFAULT_STACK_NAME = 'msgbridge';

/** The context keys `bin/msgbridge.ts` reads beside the `msgbridge` object. */
export const APP_CONTEXT_KEYS = { stackName: 'stackName', account: 'account', region: 'region' };

/** What `bin/msgbridge.ts` deploys: the stack's name, its environment and the construct's props. */
export interface AppSettings {
  /** The stack's name, and its construct id: `npx cdk deploy <stackName>`. */
  readonly stackName: string;
  /** Absent, the stack is environment-agnostic: the deploying credentials choose. */
  readonly env?: { account?: string; region?: string };
  readonly props: ContextStackProps;
}

/** CloudFormation's rule for a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/**
 * The app's settings from the CDK context: `stackName` (default `msgbridge`), `account` and
 * `region` (each optional; `-c account=123456789012 -c region=ap-northeast-2`), and the
 * `msgbridge` object. Throws one `InvalidPropsError` naming every problem of all of them, the
 * values of the `msgbridge` settings included.
 */
export const appSettingsFromContext = (context: (key: string) => unknown): AppSettings => {
  const problems: string[] = [];
  const text = (key: string, pattern: RegExp, rule: string): string | undefined => {
    const value = context(key);
    if (value === undefined) return undefined;
    if (typeof value === 'string' && pattern.test(value)) return value;
    problems.push(`${key} must be ${rule}, got ${JSON.stringify(value)}`);
    return undefined;
  };
  const stackName =
    text(
      APP_CONTEXT_KEYS.stackName,
      STACK_NAME,
      'a CloudFormation stack name (a letter, then letters, digits and hyphens, at most 128)',
    ) ?? DEFAULT_STACK_NAME;
  const account = text(APP_CONTEXT_KEYS.account, ACCOUNT, 'a 12-digit AWS account id');
  const region = text(APP_CONTEXT_KEYS.region, REGION, 'an AWS region such as ap-northeast-2');
  let props: ContextStackProps | undefined;
  try {
    props = stackPropsFromContext(context(CONTEXT_KEY));
  } catch (error) {
    if (!(error instanceof InvalidPropsError)) throw error;
    problems.push(...error.problems.map((problem) => `${error.construct}: ${problem}`));
  }
  // The values too, as the construct will check them, so that one error lists everything.
  if (props !== undefined)
    problems.push(...msgBridgeProblems(props).map((problem) => `${CONTEXT_KEY}.${problem}`));
  if (problems.length > 0 || props === undefined) throw new InvalidPropsError('context', problems);
  const env = defined({ account, region });
  return { stackName, ...(Object.keys(env).length > 0 ? { env } : {}), props };
};
