import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { HandlerDeps } from '../commons/composition.ts';
import { addCounts } from '../commons/observability.ts';
import {
  type InboundPollOutcome,
  type PollDeps,
  type PollingConfig,
  type PollingGateway,
  type ReportPollOutcome,
  runPolling,
} from './poll-use-case.ts';

export interface PollReportsHandlerDeps
  extends HandlerDeps<Omit<PollDeps<PollingGateway>, 'owner' | 'deadline'>> {
  readonly config: PollingConfig;
}

/**
 * The scheduled run of `poll-reports`: runs `runPolling` until the invocation's timeout less
 * `END_MARGIN_MS`, records the run's metrics, and fails when the run met an error.
 */
export const createPollReportsHandler =
  ({ config, deps, logger, metrics }: PollReportsHandlerDeps) =>
  async (_event: unknown, context: Context) => {
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
