import { setTimeout as sleep } from 'node:timers/promises';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { S3ObjectStorage } from './attachments/adapters/s3-object-storage.ts';
import { DynamoDbLease } from './commons/dynamodb-lease.ts';
import { requiredEnv } from './commons/environment.ts';
import { gatewayFromEnvironment } from './commons/gateway-environment.ts';
import { createLogger, createMetrics } from './commons/observability.ts';
import { receiveDepsFromEnvironment } from './inbound/receive-environment.ts';
import {
  type InboundPollOutcome,
  ReportDeliverySchema,
  type ReportPollOutcome,
  resolvePollTiming,
  runPolling,
} from './polling/poll-reports.ts';
import { S3PolledPageQuarantine } from './polling/s3-polled-page-quarantine.ts';

/**
 * `poll-reports`, run every minute: polls delivery reports (and, with MO_POLLING=on, inbound
 * messages) until its timeout less a margin, one poller at a time (leases in the state table).
 * Environment (read once): REPORT_DELIVERY (webhook | polling | both; in `webhook` it returns at
 * once), MO_POLLING (on | off, default off), EVENT_TABLE_NAME, STATE_TABLE_NAME,
 * EVENT_RETENTION_DAYS, STORE_CONCURRENCY, QUARANTINE_BUCKET (where a page that could not be stored
 * is kept, below `quarantine/polled/`), GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL,
 * GATEWAY_TIMEOUT_MS, GATEWAY_CREDENTIALS_SECRET_ARN.
 */
const logger = createLogger('poll-reports');
const metrics = createMetrics('poll-reports');

const enumEnv = <T extends z.ZodType>(name: string, schema: T): z.output<T> => {
  const parsed = schema.safeParse(process.env[name]);
  if (!parsed.success)
    throw new Error(`environment variable ${name}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
};

const config = {
  reportDelivery: enumEnv('REPORT_DELIVERY', ReportDeliverySchema),
  moPolling: enumEnv('MO_POLLING', z.enum(['on', 'off']).default('off')) === 'on',
};
// Each page must fit its poll, puts and confirm into the 120 s window (see `pageBudgetMs`).
const { client: gateway, timeoutMs } = gatewayFromEnvironment(logger, { maxTimeoutMs: 30_000 });
const stateTableName = requiredEnv('STATE_TABLE_NAME');
const lease = new DynamoDbLease(stateTableName);
const receive = receiveDepsFromEnvironment(logger);
const quarantine = new S3PolledPageQuarantine(
  new S3ObjectStorage(requiredEnv('QUARANTINE_BUCKET')),
);
/** Left at the end of the invocation for releasing the leases and flushing metrics. */
const END_MARGIN_MS = 5_000;
// After a poll starts, its page needs the poll call, the puts and the confirm call: no poll starts
// later than that before the deadline, and a confirm only starts while the 120 s window still has
// room for the whole call. Checked here, so a bad combination fails at cold start.
const pageBudgetMs = 2 * timeoutMs + 5_000;
const timing = resolvePollTiming({
  pageBudgetMs,
  confirmMarginMs: timeoutMs + 5_000,
  leaseTtlMs: pageBudgetMs + 30_000,
});

export const handler = middy(async (_event: unknown, context: Context) => {
  const run = await runPolling(config, {
    gateway,
    receive,
    quarantine,
    lease,
    owner: context.awsRequestId,
    now: Date.now,
    sleep: (ms) => sleep(ms),
    deadline: Date.now() + context.getRemainingTimeInMillis() - END_MARGIN_MS,
    logger,
    timing,
  });
  if (run.reports) recordReports(metrics, run.reports);
  if (run.inbound) recordInbound(metrics, run.inbound);
  recordQuarantine(metrics, run.reports, run.inbound);
  logger.info('polling run ended', { reports: run.reports, inbound: run.inbound });
  if (run.errors.length > 0) throw new AggregateError(run.errors, 'polling run failed');
  return { reports: run.reports, inbound: run.inbound };
})
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
