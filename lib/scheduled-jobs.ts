import { CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import { type Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { ReportDelivery } from '../functions/polling/poll-use-case.ts';
import { POLLED_QUARANTINE_PREFIX } from '../functions/polling/polled-page-quarantine.ts';
import { RECONCILE_DEFAULTS } from '../functions/reconcile/reconcile-ports.ts';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';
import type { FunctionSchedule } from './function-schedule.ts';
import { type GatewayCallersProps, gatewayCallersProblems } from './gateway-callers.ts';
import type { GatewayFunction } from './gateway-function.ts';
import { DEFAULT_GATEWAY_TIMEOUT_MS } from './gateway-settings.ts';
import { OBJECT_UPLOAD_ACTIONS } from './grants.ts';
import { JOB_SERVICES, type JobParts } from './jobs/job-parts.ts';
import { pollReportsAlarms, pollReportsJob } from './jobs/poll-reports-job.ts';
import { reconcileStatusAlarms, reconcileStatusJob } from './jobs/reconcile-status-job.ts';
import { refreshTokenAlarms, refreshTokenJob } from './jobs/refresh-token-job.ts';
import { MonitoredConstruct } from './monitored-construct.ts';
import { integerProblem } from './props-validation.ts';
import { MAX_RECONCILE_HORIZON_HOURS, type ReportCheckQueue } from './report-check-queue.ts';

/** The report delivery modes, as `REPORT_DELIVERY` of `poll-reports` accepts them. */
export const REPORT_DELIVERY_MODES: readonly ReportDelivery[] = ['webhook', 'polling', 'both'];

/** When and how far back `reconcile-status` asks the gateway for the status of late reports. */
export interface ReconcileOptions {
  /**
   * Minutes after acceptance without a report before a recipient's status is queried.
   * @default 30
   */
  readonly afterMinutes?: number;
  /**
   * Hours after acceptance after which a recipient is no longer looked for (at most 90 days, the
   * status query's reach). Longer than `afterMinutes`.
   * @default 96
   */
  readonly horizonHours?: number;
  /**
   * Recipients without a stored report asked about per run at most (those whose report came do
   * not count); the rest wait for the next run (`NotQueried`).
   * @default 5000
   */
  readonly maxRecipients?: number;
  /**
   * Concurrent `reconcile-status` invocations reading the report-check queue at most (its event
   * source's maximum concurrency, 2–1,000). Each reads up to 100 checks (1,000 recipients) at a
   * time; docs/performance.md gives the rate this allows (about 7,000 checks a second at 50).
   * Lambda runs that many only while a backlog needs them.
   * @default 50
   */
  readonly checkConcurrency?: number;
}

/** The settings of the scheduled gateway jobs that a deployment may choose. */
export interface ScheduledJobsOptions {
  /**
   * How delivery reports arrive: the report webhook, polling (`poll-reports` every minute), or
   * both at once (each report is stored once, whichever path delivers it first).
   * @default 'webhook'
   */
  readonly reportDelivery?: ReportDelivery;
  /**
   * Poll for inbound messages (`GET /mo/v1/msg`), for accounts without an MO webhook.
   * @default false
   */
  readonly moPolling?: boolean;
  /**
   * Status reconciliation of accepted sends whose report is late.
   * @default - the `ReconcileOptions` defaults
   */
  readonly reconcile?: ReconcileOptions;
}

export interface ScheduledJobsProps extends ScheduledJobsOptions, GatewayCallersProps {
  /**
   * Conditional puts kept in flight while storing one page of reports or messages.
   * @default 16
   */
  readonly storeConcurrency?: number;
  /**
   * Whether a send that reconcile-status resolves as accepted is published as "Message Accepted"
   * (`SendPipelineOptions.acceptedEvents`: the same choice as the sender's).
   * @default false
   */
  readonly acceptedEvents?: boolean;
  /** The report checks the sender queues; reconcile-status reads and finishes them. */
  readonly reportChecks: ReportCheckQueue;
  /**
   * Customer managed key of the functions' log groups.
   * @default - CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: IKey;
}

/** The problems with `ScheduledJobsOptions`, for a caller that reports every problem at once. */
export const scheduledJobsProblems = (options: ScheduledJobsOptions): string[] => {
  const problems: string[] = [];
  const mode: unknown = options.reportDelivery;
  if (
    mode !== undefined &&
    !(typeof mode === 'string' && Token.isUnresolved(mode)) &&
    !REPORT_DELIVERY_MODES.some((each) => each === mode)
  )
    problems.push(
      `reportDelivery must be "webhook", "polling" or "both", got ${JSON.stringify(mode)}`,
    );
  const moPolling: unknown = options.moPolling;
  if (moPolling !== undefined && typeof moPolling !== 'boolean')
    problems.push(`moPolling must be true or false, got ${JSON.stringify(moPolling)}`);
  const reconcile = options.reconcile ?? {};
  // The ranges `reconcile-status` accepts at cold start.
  const ranges = [
    ...integerProblem('reconcile.afterMinutes', reconcile.afterMinutes, { min: 1, max: 1_440 }),
    ...integerProblem('reconcile.checkConcurrency', reconcile.checkConcurrency, {
      min: 2,
      max: 1_000,
    }),
    // A report check waits on its SQS queue, which keeps a message 14 days at most.
    ...integerProblem('reconcile.horizonHours', reconcile.horizonHours, {
      min: 1,
      max: MAX_RECONCILE_HORIZON_HOURS,
    }),
  ];
  problems.push(
    ...ranges,
    ...integerProblem('reconcile.maxRecipients', reconcile.maxRecipients, {
      min: 10,
      max: 100_000,
    }),
  );
  const afterMinutes = reconcile.afterMinutes ?? RECONCILE_DEFAULTS.afterMinutes;
  const horizonHours = reconcile.horizonHours ?? RECONCILE_DEFAULTS.horizonHours;
  // Compared only when each is valid on its own, so that one mistake is reported once.
  if (
    ranges.length === 0 &&
    !Token.isUnresolved(afterMinutes) &&
    !Token.isUnresolved(horizonHours) &&
    horizonHours * 60 <= afterMinutes
  )
    problems.push(
      `reconcile.horizonHours (${horizonHours} h) must be longer than reconcile.afterMinutes (${afterMinutes} min)`,
    );
  return problems;
};

/** `poll-reports` runs when reports are polled or inbound messages are. */
export const pollsGateway = (options: ScheduledJobsOptions): boolean =>
  (options.reportDelivery ?? 'webhook') !== 'webhook' || options.moPolling === true;

/** Every problem the constructor reports at once. */
const constructorProblems = (props: ScheduledJobsProps): string[] => [
  ...scheduledJobsProblems(props),
  ...integerProblem('storeConcurrency', props.storeConcurrency, { min: 1, max: 100 }),
  ...gatewayCallersProblems(props),
];

/**
 * The scheduled gateway jobs and their alarms:
 * - `refresh-token` every 5 minutes keeps the shared gateway token current;
 * - `poll-reports` every minute, only when reports or inbound messages are polled;
 * - `reconcile-status` every 15 minutes asks for the status of sends whose report is late.
 *
 * Each function may make exactly the table calls its handler makes, on the tables themselves
 * (`reconcile-status` may also query the `awaiting-report` index), and read the gateway
 * credentials. Each alarm's description says what to do; docs/operations.md has the details.
 */
export class ScheduledJobs extends MonitoredConstruct {
  /** Powertools service names: the `service` dimension of each job's metrics. */
  static readonly SERVICES = JOB_SERVICES;

  public readonly refreshToken: GatewayFunction;
  public readonly refreshTokenSchedule: FunctionSchedule;
  /** Present when reports or inbound messages are polled. */
  public readonly pollReports?: GatewayFunction;
  public readonly pollReportsSchedule?: FunctionSchedule;
  public readonly reconcileStatus: GatewayFunction;
  public readonly reconcileStatusSchedule: FunctionSchedule;

  /** `refresh-token` failed in 2 of the last 3 runs. */
  public readonly tokenRefreshFailures: Alarm;
  /** The stored token has less than 8 minutes left, or no run reported for 10 minutes. */
  public readonly tokenMinutesLeft: Alarm;
  /** The oldest polled report was more than 5 minutes old (polling modes only). */
  public readonly pollLag?: Alarm;
  /** Polled pages could not be confirmed in 3 of 5 minutes (polling modes only). */
  public readonly pagesUnconfirmed?: Alarm;
  /** No report poll for 5 minutes: the poller is not running (polling modes only). */
  public readonly reportPollerStopped?: Alarm;
  /** No MO poll for 5 minutes (MO polling only). */
  public readonly moPollerStopped?: Alarm;
  /**
   * Polled inbound messages could be neither stored after 3 attempts nor kept in the durable
   * quarantine (MO polling only).
   */
  public readonly inboundMessagesNotStored?: Alarm;
  /** A polled page kept in the durable quarantine was still there for 15 minutes. */
  public readonly polledPagesInQuarantine?: Alarm;
  private polledPageBucket?: IBucket;
  /** The gateway answered OVER_DATE or INVALID_KEY for late sends. */
  public readonly statusUnavailable: Alarm;
  /** Reconciled reports could not be stored. */
  public readonly reconcileStoreFailures: Alarm;
  /** Late recipients were left unqueried in 3 runs in a row: the backlog is not shrinking. */
  public readonly notQueried: Alarm;

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id, 'ScheduledJobs', props, constructorProblems(props));
    const reportDelivery = props.reportDelivery ?? 'webhook';
    // poll-reports fails at cold start without its bucket: say so at synth time instead.
    this.node.addValidation({
      validate: () =>
        this.pollReports && this.polledPageBucket === undefined
          ? ['poll-reports needs keepPolledPagesIn(bucket): where unstored polled pages are kept']
          : [],
    });
    const parts: JobParts = {
      scope: this,
      common: {
        gateway: props.gateway,
        egress: props.egress,
        credentials: props.credentials,
        stateTable: props.stateTable,
        metricsNamespace: this.metricsNamespace,
        logEncryptionKey: props.encryptionKey,
      },
      stored: {
        EVENT_TABLE_NAME: props.eventTable.tableName,
        EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? 35),
        STORE_CONCURRENCY: String(props.storeConcurrency ?? 16),
      },
      gatewayTimeoutMs: props.gateway.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS,
      metric: (service, metricName, statistic, period) =>
        new Metric({
          namespace: this.metricsNamespace,
          metricName,
          dimensionsMap: { service },
          statistic,
          period,
        }),
      above: (alarmId, description, anchor, watched, periods) =>
        alarmAbove(this, alarmId, { description, anchor, metric: watched, ...periods }),
    };

    // Functions first, then alarms: the order the resources have always been synthesized in.
    const refresh = refreshTokenJob(parts);
    this.refreshToken = refresh.fn;
    this.refreshTokenSchedule = refresh.schedule;
    const polling = { reportDelivery, moPolling: props.moPolling === true };
    if (pollsGateway(props)) {
      const poll = pollReportsJob(parts, { ...polling, eventTable: props.eventTable });
      this.pollReports = poll.fn;
      this.pollReportsSchedule = poll.schedule;
    }
    const reconcile = reconcileStatusJob(parts, {
      ...props.reconcile,
      eventTable: props.eventTable,
      reportChecks: props.reportChecks,
      acceptedEvents: props.acceptedEvents === true,
    });
    this.reconcileStatus = reconcile.fn;
    this.reconcileStatusSchedule = reconcile.schedule;

    const tokenAlarms = refreshTokenAlarms(parts);
    this.tokenRefreshFailures = tokenAlarms.failures;
    this.tokenMinutesLeft = tokenAlarms.minutesLeft;
    if (this.pollReports) {
      const pollAlarms = pollReportsAlarms(parts, polling);
      this.pollLag = pollAlarms.pollLag;
      this.pagesUnconfirmed = pollAlarms.pagesUnconfirmed;
      this.reportPollerStopped = pollAlarms.reportPollerStopped;
      this.moPollerStopped = pollAlarms.moPollerStopped;
      this.inboundMessagesNotStored = pollAlarms.inboundMessagesNotStored;
      this.polledPagesInQuarantine = pollAlarms.polledPagesInQuarantine;
    }
    const reconcileAlarms = reconcileStatusAlarms(parts);
    this.statusUnavailable = reconcileAlarms.statusUnavailable;
    this.reconcileStoreFailures = reconcileAlarms.reconcileStoreFailures;
    this.notQueried = reconcileAlarms.notQueried;

    notifyAlarmTopic(this, props.alarmTopicArn, this.alarms);
  }

  /**
   * Where `poll-reports` keeps a polled page it could not store after every attempt: objects below
   * `quarantine/polled/` of `bucket` (the attachment bucket: another failure domain than the
   * event table), re-ingested and deleted by the next runs. Grants exactly that: put, get and
   * delete on objects below the prefix (and the multipart calls a large page's upload makes),
   * listing with that prefix only, and the data key's GenerateDataKey/Decrypt under SSE-KMS.
   * Does nothing when `poll-reports` is not deployed.
   */
  public keepPolledPagesIn(bucket: IBucket): void {
    const fn = this.pollReports;
    if (fn === undefined) return;
    this.polledPageBucket = bucket;
    fn.addEnvironment('QUARANTINE_BUCKET', bucket.bucketName);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [...OBJECT_UPLOAD_ACTIONS, 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${POLLED_QUARANTINE_PREFIX}*`)],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${POLLED_QUARANTINE_PREFIX}*`] } },
      }),
    );
    bucket.encryptionKey?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    const cfnBucket = bucket.node.defaultChild;
    if (fn.role && CfnElement.isCfnElement(cfnBucket))
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(bucket).getLogicalId(cfnBucket)}.Arn>/${POLLED_QUARANTINE_PREFIX}*]`,
        reason: `Each kept page is a new object whose key (${POLLED_QUARANTINE_PREFIX}<reports|mo>/<time>-<hash>.json) is only known at run time; poll-reports writes, reads back (the copy that sets its metadata, the re-ingest) and deletes objects below that prefix only, and lists the bucket with that prefix only.`,
      });
  }

  /** Every alarm of the jobs deployed. */
  public get alarms(): Alarm[] {
    return [
      this.tokenRefreshFailures,
      this.tokenMinutesLeft,
      this.pollLag,
      this.pagesUnconfirmed,
      this.reportPollerStopped,
      this.moPollerStopped,
      this.inboundMessagesNotStored,
      this.polledPagesInQuarantine,
      this.statusUnavailable,
      this.reconcileStoreFailures,
      this.notQueried,
    ].flatMap((alarm) => (alarm ? [alarm] : []));
  }
}
