import { setTimeout as sleep } from 'node:timers/promises';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { DynamoDbLease } from '../commons/dynamodb-lease.ts';
import { booleanEnv, type Environment, enumEnv, requiredEnv } from '../commons/environment.ts';
import { addCounts } from '../commons/observability.ts';
import { gatewayFromEnvironment } from '../gateway-access/gateway-from-environment.ts';
import { receiveDepsFromEnvironment } from '../received-items/receive-environment.ts';
import type { ReceiveDeps } from '../received-items/receive-items.ts';
import {
  type InboundPollOutcome,
  type MoPollingGateway,
  type PollDeps,
  type PollingConfig,
  type PollTiming,
  ReportDeliverySchema,
  type ReportPollingGateway,
  type ReportPollOutcome,
  resolvePollTiming,
  runPolling,
} from './poll-use-case.ts';
import { S3PolledPageQuarantine } from './s3-polled-page-quarantine.ts';

export type PollingGateway = ReportPollingGateway & MoPollingGateway;

export interface PollReportsOverrides extends CompositionOverrides {
  /** The gateway and its per-call time limit; the `GATEWAY_*` variables are then not read. */
  readonly gateway?: { readonly client: PollingGateway; readonly timeoutMs: number };
  /** Where polled items are stored: the receivers' own dependencies (the local run's). */
  readonly receive?: ReceiveDeps;
  /** The time rules, instead of those derived from the gateway's time limit. */
  readonly timing?: Partial<PollTiming>;
  /** Wraps the gateway the polls go through (the local run loses confirmations on request). */
  readonly wrapPollingGateway?: (gateway: PollingGateway) => PollingGateway;
}

/**
 * Composes `poll-reports` (polls delivery reports and, with MO_POLLING=on, inbound messages, one
 * poller at a time) from its environment, read once, at cold start: REPORT_DELIVERY (webhook |
 * polling | both), MO_POLLING (on | off, default off), STATE_TABLE_NAME (the leases),
 * QUARANTINE_BUCKET (where a page that could not be stored is kept, below `quarantine/polled/`),
 * the receivers' EVENT_TABLE_NAME, PAYLOAD_BUCKET, EVENT_RETENTION_DAYS, STORE_CONCURRENCY, and
 * the gateway's GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (at most
 * 30 s), GATEWAY_CREDENTIALS_SECRET_ARN. A bad combination of timings fails here, at cold start.
 *
 * The handler (the Lambda entry's and the local run's) runs `runPolling` until the invocation's
 * timeout less `END_MARGIN_MS`, records the run's metrics, and fails when the run met an error.
 */
export const composePollReports = (
  env: Environment = process.env,
  overrides: PollReportsOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('poll-reports', overrides);
  const { documents, s3 } = overrides;
  const config: PollingConfig = {
    reportDelivery: enumEnv('REPORT_DELIVERY', ReportDeliverySchema.options, undefined, env),
    moPolling: booleanEnv('MO_POLLING', false, env),
  };
  // Each page must fit its poll, puts and confirm into the 120 s window (see `pageBudgetMs`).
  const gateway =
    overrides.gateway ??
    gatewayFromEnvironment(logger, {
      maxTimeoutMs: 30_000,
      env,
      documents,
      secrets: overrides.secrets,
    });
  const lease = new DynamoDbLease(requiredEnv('STATE_TABLE_NAME', env), documents);
  const receive = overrides.receive ?? receiveDepsFromEnvironment(logger, env, overrides);
  const quarantine = new S3PolledPageQuarantine(requiredEnv('QUARANTINE_BUCKET', env), s3);
  // After a poll starts, its page needs the poll call, the puts and the confirm call: no poll
  // starts later than that before the deadline, and a confirm only starts while the 120 s window
  // still has room for the whole call. Checked here, so a bad combination fails at cold start.
  const pageBudgetMs = 2 * gateway.timeoutMs + 5_000;
  const timing = resolvePollTiming(
    overrides.timing ?? {
      pageBudgetMs,
      confirmMarginMs: gateway.timeoutMs + 5_000,
      leaseTtlMs: pageBudgetMs + 30_000,
    },
  );
  const deps: Omit<PollDeps<PollingGateway>, 'owner' | 'deadline'> = {
    gateway: overrides.wrapPollingGateway?.(gateway.client) ?? gateway.client,
    receive,
    quarantine,
    lease,
    now: Date.now,
    sleep: (ms) => sleep(ms),
    logger,
    timing,
  };
  const handler = async (_event: unknown, context: Context) => {
    const run = await runPolling(config, {
      ...deps,
      owner: context.awsRequestId,
      deadline: Date.now() + context.getRemainingTimeInMillis() - END_MARGIN_MS,
    });
    if (run.reports) recordReports(metrics, run.reports);
    if (run.inbound) recordInbound(metrics, run.inbound);
    recordQuarantine(metrics, run.reports, run.inbound);
    logger.info('polling run ended', { reports: run.reports, inbound: run.inbound });
    if (run.errors.length > 0) throw new AggregateError(run.errors, 'polling run failed');
    return { reports: run.reports, inbound: run.inbound };
  };
  return { logger, metrics, config, deps, handler };
};

/** Left at the end of the invocation for releasing the leases and flushing metrics. */
const END_MARGIN_MS = 5_000;

const recordReports = (metrics: Metrics, outcome: ReportPollOutcome) => {
  if (outcome.stopped === 'webhook-mode') return;
  addCounts(metrics, {
    ReportPolls: outcome.polls,
    EmptyPolls: outcome.emptyPolls,
    RateLimitedPolls: outcome.rateLimitedPolls,
    FailedPolls: outcome.failedPolls,
    ReportsPolled: outcome.reportsPolled,
    ReportsStored: outcome.reportsStored,
    ReportsDuplicate: outcome.reportsDuplicate,
    ItemsQuarantined: outcome.itemsQuarantined,
    PagesConfirmed: outcome.pagesConfirmed,
    PagesUnconfirmed: outcome.pagesUnconfirmed,
    ReportPagesNotKept: outcome.pagesNotKept,
  });
  if (outcome.oldestReportAgeSeconds !== null)
    metrics.addMetric('PollLagSeconds', MetricUnit.Seconds, outcome.oldestReportAgeSeconds);
};

const recordInbound = (metrics: Metrics, outcome: InboundPollOutcome) =>
  addCounts(metrics, {
    MoPolls: outcome.polls,
    InboundMessagesPolled: outcome.messagesPolled,
    InboundMessagesStored: outcome.messagesStored,
    InboundMessagesDuplicate: outcome.messagesDuplicate,
    InboundMessagesNotStored: outcome.messagesNotStored,
    ItemsQuarantined: outcome.itemsQuarantined,
  });

/** Kept pages of both pollers: kept, re-ingested, and still waiting (the alarm's metric). */
const recordQuarantine = (
  metrics: Metrics,
  reports: ReportPollOutcome | undefined,
  inbound: InboundPollOutcome | undefined,
) => {
  const polled = [reports?.stopped === 'webhook-mode' ? undefined : reports, inbound].filter(
    (outcome) => outcome !== undefined,
  );
  if (polled.length === 0) return;
  const sum = (read: (outcome: ReportPollOutcome | InboundPollOutcome) => number) =>
    polled.reduce((total, outcome) => total + read(outcome), 0);
  addCounts(metrics, {
    PolledPagesQuarantined: sum((o) => o.pagesQuarantined),
    PolledPagesReingested: sum((o) => o.pagesReingested),
  });
  // Only when every poller could list its kept pages: a failed listing is not "none left".
  if (polled.every((outcome) => outcome.quarantinedPagesLeft !== null))
    addCounts(metrics, { PolledPagesInQuarantine: sum((o) => o.quarantinedPagesLeft ?? 0) });
};
