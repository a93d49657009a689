import { join } from 'node:path';
import { CfnElement, Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { AWAITING_REPORT_INDEX } from '../functions/commons/tables.ts';
import type { ReportDelivery } from '../functions/polling/poll-use-case.ts';
import { POLLED_QUARANTINE_PREFIX } from '../functions/polling/polled-page-quarantine.ts';
import { RECONCILE_DEFAULTS } from '../functions/reconcile/reconcile-ports.ts';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';
import { FunctionSchedule } from './function-schedule.ts';
import { type GatewayCallersProps, gatewayCallersProblems } from './gateway-callers.ts';
import { GatewayFunction, TOKEN_PROVIDER_STATE_ACTIONS } from './gateway-function.ts';
import { DEFAULT_GATEWAY_TIMEOUT_MS } from './gateway-settings.ts';
import { grantIndexQuery, grantTableItemActions, OBJECT_UPLOAD_ACTIONS } from './grants.ts';
import { MonitoredConstruct } from './monitored-construct.ts';
import { integerProblem } from './props-validation.ts';
import {
  MAX_RECONCILE_HORIZON_HOURS,
  RECONCILE_RATE,
  RECONCILE_TIMEOUT,
  type ReportCheckQueue,
} from './report-check-queue.ts';

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

/** The report-check queue's event source on `reconcile-status`. */
export const REPORT_CHECK_SOURCE = {
  /** Checks per invocation: at most 1,000 recipients, 100 status queries. */
  batchSize: 100,
  /** How long the source gathers checks for one invocation, when fewer are waiting. */
  maxBatchingWindow: Duration.seconds(10),
  checkConcurrency: 50,
} as const;

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

/** `poll-reports` never waits longer than this for one gateway call: each page fits 120 s. */
const POLL_GATEWAY_TIMEOUT_MS = 5_000;

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
  static readonly SERVICES = {
    refreshToken: 'refresh-token',
    pollReports: 'poll-reports',
    reconcileStatus: 'reconcile-status',
  } as const;

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
    const reconcile = props.reconcile ?? {};
    const gatewayTimeoutMs = props.gateway.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
    const common = {
      gateway: props.gateway,
      egress: props.egress,
      credentials: props.credentials,
      stateTable: props.stateTable,
      metricsNamespace: this.metricsNamespace,
      logEncryptionKey: props.encryptionKey,
    };
    const stored = {
      EVENT_TABLE_NAME: props.eventTable.tableName,
      EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? 35),
      STORE_CONCURRENCY: String(props.storeConcurrency ?? 16),
    };
    const services = ScheduledJobs.SERVICES;

    this.refreshToken = new GatewayFunction(this, services.refreshToken, {
      ...common,
      entry: join(import.meta.dirname, '../functions/refresh-token.ts'),
      description: 'msgbridge: keeps the one shared gateway token in the state table current',
      // A refresh and, when it is refused, a full authentication: two gateway calls at most.
      timeout: Duration.seconds(
        Token.isUnresolved(gatewayTimeoutMs)
          ? 30
          : Math.max(30, Math.ceil((2 * gatewayTimeoutMs) / 1_000) + 5),
      ),
      // It never takes the re-authentication lease: its writes are version-checked instead.
      stateTableActions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
    });
    this.refreshTokenSchedule = new FunctionSchedule(this, `${services.refreshToken}-schedule`, {
      target: this.refreshToken,
      rate: Duration.minutes(5),
      // Two quick retries, all before the next regular run.
      retryAttempts: 2,
      maxEventAge: Duration.minutes(4),
      description: 'msgbridge refresh-token: every 5 minutes, 2 retries',
    });

    if (pollsGateway(props)) {
      const fn = new GatewayFunction(this, services.pollReports, {
        ...common,
        entry: join(import.meta.dirname, '../functions/poll-reports.ts'),
        description: 'msgbridge: polls delivery reports (and inbound messages) for a minute',
        timeout: Duration.seconds(60),
        gatewayTimeoutMs: Token.isUnresolved(gatewayTimeoutMs)
          ? POLL_GATEWAY_TIMEOUT_MS
          : Math.min(gatewayTimeoutMs, POLL_GATEWAY_TIMEOUT_MS),
        environment: {
          ...stored,
          REPORT_DELIVERY: reportDelivery,
          MO_POLLING: props.moPolling === true ? 'on' : 'off',
        },
        // Token and leases; the pollers renew their leases (UpdateItem).
        stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS, 'dynamodb:UpdateItem'],
      });
      // Reports, inbound messages and quarantined items: conditional puts, and for a key with an
      // escaped part the check of its earlier spelling (functions/commons/table-keys.ts).
      grantTableItemActions(
        props.eventTable,
        fn,
        'dynamodb:PutItem',
        'dynamodb:ConditionCheckItem',
      );
      this.pollReports = fn;
      this.pollReportsSchedule = new FunctionSchedule(this, `${services.pollReports}-schedule`, {
        target: fn,
        rate: Duration.minutes(1),
        // A missed minute is made up by the next run; a retry would only wait for the lease.
        retryAttempts: 0,
        maxEventAge: Duration.minutes(1),
        description: 'msgbridge poll-reports: every minute, no retries',
      });
    }

    this.reconcileStatus = new GatewayFunction(this, services.reconcileStatus, {
      ...common,
      entry: join(import.meta.dirname, '../functions/reconcile-status.ts'),
      description: 'msgbridge: queries the status of accepted sends whose report is late',
      timeout: RECONCILE_TIMEOUT,
      environment: {
        ...stored,
        REPORT_CHECK_QUEUE_URL: props.reportChecks.queue.queueUrl,
        RECONCILE_AFTER_MINUTES: String(reconcile.afterMinutes ?? RECONCILE_DEFAULTS.afterMinutes),
        RECONCILE_HORIZON_HOURS: String(reconcile.horizonHours ?? RECONCILE_DEFAULTS.horizonHours),
        RECONCILE_MAX_RECIPIENTS: String(
          reconcile.maxRecipients ?? RECONCILE_DEFAULTS.maxRecipients,
        ),
        ACCEPTED_EVENTS: props.acceptedEvents === true ? 'on' : 'off',
      },
      // Token and its lease, and the run's own lease (taken and given back, never renewed).
      stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS],
    });
    // Invoked with batches of report checks by the queue's event source (which needs receive and
    // delete); puts checks back, and queues one for each acceptance the status query finds.
    props.reportChecks.grantConsume(this.reconcileStatus);
    props.reportChecks.grantSend(this.reconcileStatus);
    this.reconcileStatus.addEventSource(
      new SqsEventSource(props.reportChecks.queue, {
        reportBatchItemFailures: true,
        batchSize: REPORT_CHECK_SOURCE.batchSize,
        maxBatchingWindow: REPORT_CHECK_SOURCE.maxBatchingWindow,
        maxConcurrency: reconcile.checkConcurrency ?? REPORT_CHECK_SOURCE.checkConcurrency,
      }),
    );
    // Reports by message (Query), status-unavailable and send-record look-ups (GetItem), reports
    // and events (conditional PutItem), claims on send records and settling an OUTCOME item an
    // earlier release listed (UpdateItem).
    grantTableItemActions(
      props.eventTable,
      this.reconcileStatus,
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    );
    grantIndexQuery(props.eventTable, this.reconcileStatus, AWAITING_REPORT_INDEX.name);
    this.reconcileStatusSchedule = new FunctionSchedule(
      this,
      `${services.reconcileStatus}-schedule`,
      {
        target: this.reconcileStatus,
        rate: RECONCILE_RATE,
        // The next run picks up whatever this one left.
        retryAttempts: 0,
        maxEventAge: Duration.minutes(10),
        description: 'msgbridge reconcile-status: every 15 minutes, no retries',
      },
    );

    const metric = (service: string, metricName: string, statistic: string, period: Duration) =>
      new Metric({
        namespace: this.metricsNamespace,
        metricName,
        dimensionsMap: { service },
        statistic,
        period,
      });
    const above = (
      alarmId: string,
      description: string,
      anchor: string,
      watched: Metric,
      periods?: { readonly evaluation: number; readonly toAlarm: number },
    ) => alarmAbove(this, alarmId, { description, anchor, metric: watched, ...periods });
    const fiveMinutes = Duration.minutes(5);
    const fifteenMinutes = Duration.minutes(15);
    // A poller that reported no poll for 5 minutes is stopped; no data at all means the same.
    const pollerStopped = (alarmId: string, description: string, pollsMetric: string) =>
      new Alarm(this, alarmId, {
        alarmDescription: `${description} See docs/operations.md#report-delivery.`,
        metric: metric(services.pollReports, pollsMetric, Stats.SUM, fiveMinutes),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.BREACHING,
      });

    this.tokenRefreshFailures = above(
      'token-refresh-failures',
      'msgbridge: refresh-token failed in 2 of the last 3 runs (after its retries); the other functions re-authenticate on demand meanwhile, but check the credentials secret and the gateway.',
      'the-gateway-token',
      metric(services.refreshToken, 'TokenRefreshFailures', Stats.SUM, fiveMinutes),
      { evaluation: 3, toAlarm: 2 },
    );
    this.tokenMinutesLeft = new Alarm(this, 'token-minutes-left', {
      alarmDescription:
        'msgbridge: the stored gateway token has less than 8 minutes left, or refresh-token has not reported for 10 minutes (stopped, failing or not scheduled). See docs/operations.md#the-gateway-token.',
      metric: metric(services.refreshToken, 'TokenMinutesLeft', Stats.MINIMUM, fiveMinutes),
      threshold: 8,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      // Two periods, so that one run reported a little late is not an alarm.
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      // No data means no refresher: that must alarm too.
      treatMissingData: TreatMissingData.BREACHING,
    });

    const reportsPolled = reportDelivery !== 'webhook';
    if (reportsPolled) {
      this.pollLag = new Alarm(this, 'poll-lag', {
        alarmDescription:
          'msgbridge: a polled delivery report was more than 5 minutes old when it was stored; polling is falling behind. See docs/operations.md#report-delivery.',
        metric: metric(services.pollReports, 'PollLagSeconds', Stats.MAXIMUM, fiveMinutes),
        threshold: 300,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      this.pagesUnconfirmed = above(
        'pages-unconfirmed',
        'msgbridge: poll-reports could not confirm stored report pages in 3 of the last 5 minutes; the gateway will hand them out again (they are stored once), but confirming is failing.',
        'report-delivery',
        metric(services.pollReports, 'PagesUnconfirmed', Stats.SUM, Duration.minutes(1)),
        { evaluation: 5, toAlarm: 3 },
      );
      this.reportPollerStopped = pollerStopped(
        'report-poller-stopped',
        'msgbridge: poll-reports has not polled for delivery reports for 5 minutes; reports are not arriving by polling.',
        'ReportPolls',
      );
    }
    if (props.moPolling === true) {
      this.moPollerStopped = pollerStopped(
        'mo-poller-stopped',
        'msgbridge: poll-reports has not polled for inbound messages for 5 minutes; MO messages are not arriving.',
        'MoPolls',
      );
      this.inboundMessagesNotStored = above(
        'inbound-messages-not-stored',
        'msgbridge: polled inbound messages could be neither stored after 3 attempts nor kept in the durable quarantine (S3 failed too); the gateway hands each MO message out once, so these are lost unless found in the poll-reports log by moKey.',
        'report-delivery',
        metric(services.pollReports, 'InboundMessagesNotStored', Stats.SUM, fiveMinutes),
      );
    }
    if (this.pollReports) {
      // Each run re-ingests the kept pages first and reports how many are left; the lowest count
      // of 3 periods in a row above 0 means one page has failed every re-ingest for 15 minutes.
      this.polledPagesInQuarantine = above(
        'polled-pages-in-quarantine',
        `msgbridge: a polled page kept in the durable quarantine (${POLLED_QUARANTINE_PREFIX} of the attachment bucket) has not been stored for 15 minutes; every run tries again. Check the event table and the poll-reports log.`,
        'polled-page-quarantine',
        metric(services.pollReports, 'PolledPagesInQuarantine', Stats.MINIMUM, fiveMinutes),
        { evaluation: 3, toAlarm: 3 },
      );
    }

    // The status reconciliation's alarms: sums over 15 minutes of reconcile-status metrics.
    const reconcileAlarm = (
      alarmId: string,
      description: string,
      metricName: string,
      periods?: { readonly evaluation: number; readonly toAlarm: number },
    ) =>
      above(
        alarmId,
        description,
        'status-reconciliation',
        metric(services.reconcileStatus, metricName, Stats.SUM, fifteenMinutes),
        periods,
      );
    this.statusUnavailable = reconcileAlarm(
      'status-unavailable',
      'msgbridge: the status query answered OVER_DATE or INVALID_KEY for late sends; each is a "Message Status Unavailable" event, and no report will come for them.',
      'StatusUnavailable',
    );
    this.reconcileStoreFailures = reconcileAlarm(
      'reconcile-store-failures',
      'msgbridge: reconcile-status could not store statuses it learned; they are queried again in the next run.',
      'ReconcileStoreFailures',
    );
    this.notQueried = reconcileAlarm(
      'reconcile-not-queried',
      'msgbridge: reconcile-status left late recipients unqueried in 3 runs in a row; the backlog is larger than one run can take (reconcile.maxRecipients, the 5-minute timeout).',
      'NotQueried',
      { evaluation: 3, toAlarm: 3 },
    );

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
