import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { AWAITING_REPORT_INDEX } from '../../functions/commons/tables.ts';
import { RECONCILE_DEFAULTS } from '../../functions/reconcile/reconcile-ports.ts';
import { FunctionSchedule } from '../function-schedule.ts';
import { GatewayFunction, TOKEN_PROVIDER_STATE_ACTIONS } from '../gateway-function.ts';
import { grantIndexQuery, grantTableItemActions } from '../grants.ts';
import { RECONCILE_RATE, RECONCILE_TIMEOUT, type ReportCheckQueue } from '../report-check-queue.ts';
import { JOB_SERVICES, type JobParts } from './job-parts.ts';

/** The report-check queue's event source on `reconcile-status`. */
export const REPORT_CHECK_SOURCE = {
  /** Checks per invocation: at most 1,000 recipients, 100 status queries. */
  batchSize: 100,
  /** How long the source gathers checks for one invocation, when fewer are waiting. */
  maxBatchingWindow: Duration.seconds(10),
  checkConcurrency: 50,
} as const;

/**
 * `reconcile-status`: invoked with batches of report checks by the queue's event source, and
 * every 15 minutes for the unknown outcomes.
 */
export const reconcileStatusJob = (
  { scope, common, stored }: JobParts,
  props: {
    readonly eventTable: ITableV2;
    readonly reportChecks: ReportCheckQueue;
    readonly acceptedEvents: boolean;
    readonly afterMinutes?: number;
    readonly horizonHours?: number;
    readonly maxRecipients?: number;
    readonly checkConcurrency?: number;
  },
) => {
  const fn = new GatewayFunction(scope, JOB_SERVICES.reconcileStatus, {
    ...common,
    entry: join(import.meta.dirname, '../../functions/reconcile-status.ts'),
    description: 'msgbridge: queries the status of accepted sends whose report is late',
    timeout: RECONCILE_TIMEOUT,
    environment: {
      ...stored,
      REPORT_CHECK_QUEUE_URL: props.reportChecks.queue.queueUrl,
      RECONCILE_AFTER_MINUTES: String(props.afterMinutes ?? RECONCILE_DEFAULTS.afterMinutes),
      RECONCILE_HORIZON_HOURS: String(props.horizonHours ?? RECONCILE_DEFAULTS.horizonHours),
      RECONCILE_MAX_RECIPIENTS: String(props.maxRecipients ?? RECONCILE_DEFAULTS.maxRecipients),
      ACCEPTED_EVENTS: props.acceptedEvents ? 'on' : 'off',
    },
    // Token and its lease, and the run's own lease (taken and given back, never renewed).
    stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS],
  });
  // Invoked with batches of report checks by the queue's event source (which needs receive and
  // delete); puts checks back, and queues one for each acceptance the status query finds.
  props.reportChecks.grantConsume(fn);
  props.reportChecks.grantSend(fn);
  fn.addEventSource(
    new SqsEventSource(props.reportChecks.queue, {
      reportBatchItemFailures: true,
      batchSize: REPORT_CHECK_SOURCE.batchSize,
      maxBatchingWindow: REPORT_CHECK_SOURCE.maxBatchingWindow,
      maxConcurrency: props.checkConcurrency ?? REPORT_CHECK_SOURCE.checkConcurrency,
    }),
  );
  // Reports by message (Query), status-unavailable and send-record look-ups (GetItem), reports
  // and events (conditional PutItem), claims on send records and taking a resolved unknown
  // outcome off the index (UpdateItem); the index's unknown outcomes (Query on the index).
  grantTableItemActions(
    props.eventTable,
    fn,
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:Query',
    'dynamodb:UpdateItem',
  );
  grantIndexQuery(props.eventTable, fn, AWAITING_REPORT_INDEX.name);
  const schedule = new FunctionSchedule(scope, `${JOB_SERVICES.reconcileStatus}-schedule`, {
    target: fn,
    rate: RECONCILE_RATE,
    // The next run picks up whatever this one left.
    retryAttempts: 0,
    maxEventAge: Duration.minutes(10),
    description: 'msgbridge reconcile-status: every 15 minutes, no retries',
  });
  return { fn, schedule };
};

/**
 * The alarms of `reconcile-status` (sums over 15 minutes): statuses the gateway no longer has,
 * statuses not stored, and a backlog one run cannot take.
 */
export const reconcileStatusAlarms = ({ metric, above }: JobParts) => {
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
      metric(JOB_SERVICES.reconcileStatus, metricName, Stats.SUM, Duration.minutes(15)),
      periods,
    );
  return {
    statusUnavailable: reconcileAlarm(
      'status-unavailable',
      'msgbridge: the status query answered OVER_DATE or INVALID_KEY for late sends; each is a "Message Status Unavailable" event, and no report will come for them.',
      'StatusUnavailable',
    ),
    reconcileStoreFailures: reconcileAlarm(
      'reconcile-store-failures',
      'msgbridge: reconcile-status could not store statuses it learned; they are queried again in the next run.',
      'ReconcileStoreFailures',
    ),
    notQueried: reconcileAlarm(
      'reconcile-not-queried',
      'msgbridge: reconcile-status left late recipients unqueried in 3 runs in a row; the backlog is larger than one run can take (reconcile.maxRecipients, the 5-minute timeout).',
      'NotQueried',
      { evaluation: 3, toAlarm: 3 },
    ),
  };
};
