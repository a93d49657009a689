import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { traceInvocations } from './commons/tracing.ts';
import { composePollReports } from './polling/compose-poll-reports.ts';
import {
  type InboundPollOutcome,
  type ReportPollOutcome,
  runPolling,
} from './polling/poll-reports.ts';

/**
 * `poll-reports`, run every minute: polls delivery reports (and, with MO_POLLING=on, inbound
 * messages) until its timeout less a margin, one poller at a time (leases in the state table). In
 * REPORT_DELIVERY=webhook it returns at once. Environment: see `composePollReports`.
 */
const { logger, metrics, config, deps } = composePollReports();
/** Left at the end of the invocation for releasing the leases and flushing metrics. */
const END_MARGIN_MS = 5_000;

export const handler = middy(async (_event: unknown, context: Context) => {
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
})
  .use(traceInvocations('poll-reports'))
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));

const recordReports = (metrics: Metrics, outcome: ReportPollOutcome) => {
  if (outcome.stopped === 'webhook-mode') return;
  metrics.addMetric('ReportPolls', MetricUnit.Count, outcome.polls);
  metrics.addMetric('EmptyPolls', MetricUnit.Count, outcome.emptyPolls);
  metrics.addMetric('RateLimitedPolls', MetricUnit.Count, outcome.rateLimitedPolls);
  metrics.addMetric('FailedPolls', MetricUnit.Count, outcome.failedPolls);
  metrics.addMetric('ReportsPolled', MetricUnit.Count, outcome.reportsPolled);
  metrics.addMetric('ReportsStored', MetricUnit.Count, outcome.reportsStored);
  metrics.addMetric('ReportsDuplicate', MetricUnit.Count, outcome.reportsDuplicate);
  metrics.addMetric('ItemsQuarantined', MetricUnit.Count, outcome.itemsQuarantined);
  metrics.addMetric('PagesConfirmed', MetricUnit.Count, outcome.pagesConfirmed);
  metrics.addMetric('PagesUnconfirmed', MetricUnit.Count, outcome.pagesUnconfirmed);
  metrics.addMetric('ReportPagesNotKept', MetricUnit.Count, outcome.pagesNotKept);
  if (outcome.oldestReportAgeSeconds !== null)
    metrics.addMetric('PollLagSeconds', MetricUnit.Seconds, outcome.oldestReportAgeSeconds);
};

const recordInbound = (metrics: Metrics, outcome: InboundPollOutcome) => {
  metrics.addMetric('MoPolls', MetricUnit.Count, outcome.polls);
  metrics.addMetric('InboundMessagesPolled', MetricUnit.Count, outcome.messagesPolled);
  metrics.addMetric('InboundMessagesStored', MetricUnit.Count, outcome.messagesStored);
  metrics.addMetric('InboundMessagesDuplicate', MetricUnit.Count, outcome.messagesDuplicate);
  metrics.addMetric('InboundMessagesNotStored', MetricUnit.Count, outcome.messagesNotStored);
  metrics.addMetric('ItemsQuarantined', MetricUnit.Count, outcome.itemsQuarantined);
};

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
  metrics.addMetric(
    'PolledPagesQuarantined',
    MetricUnit.Count,
    sum((o) => o.pagesQuarantined),
  );
  metrics.addMetric(
    'PolledPagesReingested',
    MetricUnit.Count,
    sum((o) => o.pagesReingested),
  );
  // Only when every poller could list its kept pages: a failed listing is not "none left".
  if (polled.every((outcome) => outcome.quarantinedPagesLeft !== null))
    metrics.addMetric(
      'PolledPagesInQuarantine',
      MetricUnit.Count,
      sum((o) => o.quarantinedPagesLeft ?? 0),
    );
};
