import { join } from 'node:path';
import { Duration, Token } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { ReportDelivery } from '../../functions/polling/poll-use-case.ts';
import { POLLED_QUARANTINE_PREFIX } from '../../functions/polling/polled-page-quarantine.ts';
import { FunctionSchedule } from '../function-schedule.ts';
import { GatewayFunction, TOKEN_PROVIDER_STATE_ACTIONS } from '../gateway-function.ts';
import { grantTableItemActions } from '../grants.ts';
import { JOB_SERVICES, type JobParts } from './job-parts.ts';

/** `poll-reports` never waits longer than this for one gateway call: each page fits 120 s. */
const POLL_GATEWAY_TIMEOUT_MS = 5_000;

/** What decides how `poll-reports` runs and which of its alarms exist. */
interface PollingProps {
  readonly reportDelivery: ReportDelivery;
  readonly moPolling: boolean;
}

/**
 * `poll-reports` every minute (no retries: the next run makes up a missed minute), polling
 * delivery reports and, with `moPolling`, inbound messages.
 */
export const pollReportsJob = (
  { scope, common, stored, gatewayTimeoutMs }: JobParts,
  props: PollingProps & { readonly eventTable: ITableV2 },
) => {
  const fn = new GatewayFunction(scope, JOB_SERVICES.pollReports, {
    ...common,
    entry: join(import.meta.dirname, '../../functions/poll-reports.ts'),
    description: 'msgbridge: polls delivery reports (and inbound messages) for a minute',
    timeout: Duration.seconds(60),
    gatewayTimeoutMs: Token.isUnresolved(gatewayTimeoutMs)
      ? POLL_GATEWAY_TIMEOUT_MS
      : Math.min(gatewayTimeoutMs, POLL_GATEWAY_TIMEOUT_MS),
    environment: {
      ...stored,
      REPORT_DELIVERY: props.reportDelivery,
      MO_POLLING: props.moPolling ? 'on' : 'off',
    },
    // Token and leases; the pollers renew their leases (UpdateItem).
    stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS, 'dynamodb:UpdateItem'],
  });
  // Reports, inbound messages and quarantined items: conditional puts.
  grantTableItemActions(props.eventTable, fn, 'dynamodb:PutItem');
  const schedule = new FunctionSchedule(scope, `${JOB_SERVICES.pollReports}-schedule`, {
    target: fn,
    rate: Duration.minutes(1),
    // A missed minute is made up by the next run; a retry would only wait for the lease.
    retryAttempts: 0,
    maxEventAge: Duration.minutes(1),
    description: 'msgbridge poll-reports: every minute, no retries',
  });
  return { fn, schedule };
};

/**
 * The alarms of `poll-reports`: lag, unconfirmed pages and a stopped poller when reports are
 * polled; a stopped poller and inbound messages not stored with MO polling; pages left in the
 * durable quarantine.
 */
export const pollReportsAlarms = ({ scope, metric, above }: JobParts, props: PollingProps) => {
  const fiveMinutes = Duration.minutes(5);
  // A poller that reported no poll for 5 minutes is stopped; no data at all means the same.
  const pollerStopped = (alarmId: string, description: string, pollsMetric: string) =>
    new Alarm(scope, alarmId, {
      alarmDescription: `${description} See docs/operations.md#report-delivery.`,
      metric: metric(JOB_SERVICES.pollReports, pollsMetric, Stats.SUM, fiveMinutes),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.BREACHING,
    });
  const reportsPolled = props.reportDelivery !== 'webhook';
  const reportAlarms = reportsPolled
    ? {
        pollLag: new Alarm(scope, 'poll-lag', {
          alarmDescription:
            'msgbridge: a polled delivery report was more than 5 minutes old when it was stored; polling is falling behind. See docs/operations.md#report-delivery.',
          metric: metric(JOB_SERVICES.pollReports, 'PollLagSeconds', Stats.MAXIMUM, fiveMinutes),
          threshold: 300,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        pagesUnconfirmed: above(
          'pages-unconfirmed',
          'msgbridge: poll-reports could not confirm stored report pages in 3 of the last 5 minutes; the gateway will hand them out again (they are stored once), but confirming is failing.',
          'report-delivery',
          metric(JOB_SERVICES.pollReports, 'PagesUnconfirmed', Stats.SUM, Duration.minutes(1)),
          { evaluation: 5, toAlarm: 3 },
        ),
        reportPollerStopped: pollerStopped(
          'report-poller-stopped',
          'msgbridge: poll-reports has not polled for delivery reports for 5 minutes; reports are not arriving by polling.',
          'ReportPolls',
        ),
      }
    : {};
  const moAlarms = props.moPolling
    ? {
        moPollerStopped: pollerStopped(
          'mo-poller-stopped',
          'msgbridge: poll-reports has not polled for inbound messages for 5 minutes; MO messages are not arriving.',
          'MoPolls',
        ),
        inboundMessagesNotStored: above(
          'inbound-messages-not-stored',
          'msgbridge: polled inbound messages could be neither stored after 3 attempts nor kept in the durable quarantine (S3 failed too); the gateway hands each MO message out once, so these are lost unless found in the poll-reports log by moKey.',
          'report-delivery',
          metric(JOB_SERVICES.pollReports, 'InboundMessagesNotStored', Stats.SUM, fiveMinutes),
        ),
      }
    : {};
  // Each run re-ingests the kept pages first and reports how many are left; the lowest count of
  // 3 periods in a row above 0 means one page has failed every re-ingest for 15 minutes.
  const polledPagesInQuarantine = above(
    'polled-pages-in-quarantine',
    `msgbridge: a polled page kept in the durable quarantine (${POLLED_QUARANTINE_PREFIX} of the attachment bucket) has not been stored for 15 minutes; every run tries again. Check the event table and the poll-reports log.`,
    'polled-page-quarantine',
    metric(JOB_SERVICES.pollReports, 'PolledPagesInQuarantine', Stats.MINIMUM, fiveMinutes),
    { evaluation: 3, toAlarm: 3 },
  );
  return { ...reportAlarms, ...moAlarms, polledPagesInQuarantine };
};
