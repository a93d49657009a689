import { Token } from 'aws-cdk-lib';
import type { ReportDelivery } from '../functions/polling/poll-use-case.ts';
import { alarmTargetProblems } from './alarm-actions.ts';
import { type DataKeyProps, dataKeyProblems } from './data-key.ts';
import {
  type EventPublisherOptions,
  eventPublisherProblems,
  eventSourceProblems,
} from './event-publisher.ts';
import { type GatewayEgressOptions, gatewayEgressProblems } from './gateway-egress.ts';
import { type GatewaySettingsProps, gatewaySettingsProblems } from './gateway-settings.ts';
import {
  type InboundAlarmsOptions,
  inboundAlarmsProblems,
  metricsNamespaceProblems,
} from './inbound-alarms.ts';
import {
  type InboundAttachmentsOptions,
  inboundAttachmentsProblems,
} from './inbound-attachments.ts';
import { type FunctionObservabilityOptions, observabilityProblems } from './msgbridge-function.ts';
import { integerProblem } from './props-validation.ts';
import { type RateAlarmsOptions, rateAlarmsProblems } from './rate-alarms.ts';
import { type ReconcileOptions, scheduledJobsProblems } from './scheduled-jobs.ts';
import { type SendPipelineOptions, sendPipelineProblems } from './send-pipeline.ts';
import { type StatisticsExportOptions, statisticsExportProblems } from './statistics-export.ts';
import { type WebhookApiOptions, webhookApiProblems } from './webhook-api.ts';
import { type WebhookSecretProps, webhookSecretProblems } from './webhook-secret.ts';

export interface MsgBridgeProps {
  /**
   * The customer's gateway: its https hosts and TPS quota from the gateway contract, and the
   * call timeout. Required: there is no gateway address that would work for every customer.
   */
  readonly gateway: GatewaySettingsProps;
  /**
   * The fixed source addresses of the functions that call the gateway (the gateway accepts only
   * registered IPs): a VPC with NAT gateways and Elastic IPs, an existing VPC, or none.
   * @default - `{ mode: 'nat', natGateways: 1, maxAzs: 2 }`
   */
  readonly egress?: GatewayEgressOptions;
  /**
   * The send queue, its DLQ and `send-messages`: timeouts, redrive, batching, concurrency and the
   * S3 buckets MMS attachments may come from.
   * @default - the `SendPipeline` defaults
   */
  readonly sending?: SendPipelineOptions;
  /**
   * Source of the events put on the bus.
   * @default 'msgbridge'
   */
  readonly eventSource?: string;
  /**
   * CloudWatch namespace of the functions' metrics (and of the alarms on them).
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
  /**
   * The webhook front door (function URLs by default, or a REST API), its throttle, source-CIDR
   * allowlist and body limit, and the retention of stored items.
   * @default - the `WebhookApi` defaults: function URLs
   */
  readonly webhooks?: WebhookApiOptions;
  /**
   * The generated webhook path secret.
   * @default - the `WebhookSecret` defaults
   */
  readonly webhookSecret?: WebhookSecretProps;
  /**
   * The log levels (Lambda's advanced logging controls) and X-Ray tracing mode of every function.
   * @default - application log level INFO, system log level WARN, pass-through tracing
   */
  readonly observability?: FunctionObservabilityOptions;
  /**
   * The stream → EventBridge publisher and the bus archive.
   * @default - the `EventPublisher` defaults
   */
  readonly publisher?: EventPublisherOptions;
  /**
   * How delivery reports arrive: the report webhook, polling (`poll-reports` every minute), or
   * both at once; each report is stored once, whichever path delivers it first.
   * @default 'webhook'
   */
  readonly reportDelivery?: ReportDelivery;
  /**
   * Poll for inbound messages (`GET /mo/v1/msg`), for accounts without an MO webhook.
   * @default false
   */
  readonly moPolling?: boolean;
  /**
   * When `reconcile-status` queries the status of sends whose report is late, and how far back.
   * @default - the `ReconcileOptions` defaults
   */
  readonly reconcile?: ReconcileOptions;
  /**
   * The lifecycle of the inbound attachment bucket.
   * @default - the `InboundAttachmentsOptions` defaults
   */
  readonly attachments?: InboundAttachmentsOptions;
  /**
   * The tables' capacity from their first day.
   * @default - the on-demand defaults: a new table takes 4,000 writes a second at once
   */
  readonly tables?: TablesOptions;
  /**
   * Thresholds of the webhook 4XX/5XX rate and send rejection rate alarms.
   * @default - the `RateAlarms` defaults
   */
  readonly rateAlarms?: RateAlarmsOptions;
  /**
   * The daily export of tracking-URL and messenger read/click statistics as events (and,
   * with `s3Export`, as JSON lines below `statistics/` of the attachment bucket).
   * @default - not deployed
   */
  readonly statisticsExport?: StatisticsExportOptions;
  /**
   * SNS topic for alarm notifications. Not with `alarmEmails`.
   * @default - alarms without actions, unless `alarmEmails` is set
   */
  readonly alarmTopicArn?: InboundAlarmsOptions['alarmTopicArn'];
  /**
   * E-mail addresses for alarm notifications: the stack creates an SNS topic encrypted with the
   * data key and subscribes each address (each confirms once). Not with `alarmTopicArn`.
   * @default - no e-mail
   */
  readonly alarmEmails?: readonly string[];
  /**
   * The customer managed KMS key of tables, queues, the attachment bucket, log groups, secrets, the
   * event bus and archive, and the alarm topic: created by the stack, or an existing one.
   * @default - a key of the stack's own (rotation on, retained when the stack is deleted)
   */
  readonly encryption?: DataKeyProps;
  /**
   * An existing Secrets Manager secret with the gateway credentials (`{"apiKey", "apiPassword"}`),
   * for accounts whose secrets are managed elsewhere, instead of the empty secret the stack creates.
   * @default - the stack creates the secret, empty, retained when the stack is deleted
   */
  readonly gatewayCredentials?: ImportedSecretProps;
}

/**
 * Every prop of `MsgBridgeProps`. The type checker keeps the list complete (a prop of the interface
 * missing here, or a name here that is no prop, fails the build); at run time it tells a misspelt
 * key of a JavaScript caller (`reportDeliver`) from a prop.
 */
export const MSGBRIDGE_PROP_NAMES: readonly string[] = Object.keys({
  gateway: true,
  egress: true,
  sending: true,
  eventSource: true,
  metricsNamespace: true,
  webhooks: true,
  webhookSecret: true,
  observability: true,
  publisher: true,
  reportDelivery: true,
  moPolling: true,
  reconcile: true,
  attachments: true,
  tables: true,
  rateAlarms: true,
  statisticsExport: true,
  alarmTopicArn: true,
  alarmEmails: true,
  encryption: true,
  gatewayCredentials: true,
} satisfies Record<keyof MsgBridgeProps, true>);

/** A problem for each key of `props` that names none of `known`: a misspelt or retired prop. */
export const unknownPropProblems = (props: object, known: readonly string[]): string[] =>
  Object.keys(props)
    .filter((key) => !known.includes(key))
    .map((key) => `${key} is not a prop (misspelt?); the props are listed in docs/deploy.md`);

/** The tables' capacity from their first day. */
export interface TablesOptions {
  /**
   * Writes a second the event table takes at once, without the time on-demand capacity needs to
   * grow (DynamoDB's warm throughput, charged once per increase; see its pricing). A new
   * on-demand table takes 4,000, about 3,000 recipients a second at 1.3 writes each, and then
   * follows its peaks (up to double the previous one within 30 minutes): a deployment that must
   * send 5,000 recipients a second on its first day sets about 7,000. 4,001 to 40,000 (the
   * default per-table quota).
   * @default - not pre-warmed
   */
  readonly eventTableWarmWritesPerSecond?: number;
}

/** The problems with `TablesOptions`, each named by its path. */
export const tablesProblems = (options: TablesOptions): string[] =>
  integerProblem('eventTableWarmWritesPerSecond', options.eventTableWarmWritesPerSecond, {
    min: 4_001,
    max: 40_000,
  });

/** An existing secret: its complete ARN, and the KMS key it is encrypted with when it is not the AWS managed one. */
export interface ImportedSecretProps {
  /** `arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>` */
  readonly secretArn: string;
  /**
   * The customer managed key the secret is encrypted with; the gateway callers get `kms:Decrypt`
   * on it.
   * @default - the `aws/secretsmanager` key, which needs no grant
   */
  readonly keyArn?: string;
}

/** The problems with `ImportedSecretProps`, each named by its path. */
export const importedSecretProblems = (props: ImportedSecretProps): string[] => {
  const problems: string[] = [];
  const { secretArn, keyArn } = props;
  if (
    !Token.isUnresolved(secretArn) &&
    !/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/.test(
      secretArn,
    )
  )
    problems.push(
      `secretArn must be the complete ARN of a secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), got "${secretArn}"`,
    );
  if (keyArn !== undefined) problems.push(...dataKeyProblems({ keyArn }));
  return problems;
};

/** Every problem with `MsgBridgeProps`, each named by its path, so one error lists them all. */
export const msgBridgeProblems = (props: MsgBridgeProps): string[] => {
  const within = (prefix: string, problems: readonly string[]) =>
    problems.map((problem) => `${prefix}.${problem}`);
  return [
    ...unknownPropProblems(props, MSGBRIDGE_PROP_NAMES),
    ...eventSourceProblems(props.eventSource ?? 'msgbridge'),
    ...metricsNamespaceProblems(props.metricsNamespace),
    ...within('webhooks', webhookApiProblems(props.webhooks ?? {})),
    ...within('webhookSecret', webhookSecretProblems(props.webhookSecret ?? {})),
    ...within('observability', observabilityProblems(props.observability ?? {})),
    ...within('publisher', eventPublisherProblems(props.publisher ?? {})),
    ...gatewaySettingsProblems(props.gateway),
    ...within('egress', gatewayEgressProblems(props.egress ?? {})),
    ...within('sending', sendPipelineProblems(props.sending ?? {}, props.gateway?.timeoutMs)),
    ...scheduledJobsProblems(props),
    ...within('attachments', inboundAttachmentsProblems(props.attachments ?? {})),
    ...within('tables', tablesProblems(props.tables ?? {})),
    ...within('rateAlarms', rateAlarmsProblems(props.rateAlarms ?? {})),
    ...(props.statisticsExport
      ? within('statisticsExport', statisticsExportProblems(props.statisticsExport))
      : []),
    ...inboundAlarmsProblems(props),
    ...alarmTargetProblems(props),
    ...within('encryption', dataKeyProblems(props.encryption ?? {})),
    ...(props.gatewayCredentials
      ? within('gatewayCredentials', importedSecretProblems(props.gatewayCredentials))
      : []),
  ];
};
