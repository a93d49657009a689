import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { DynamoDbLease } from './commons/dynamodb-lease.ts';
import { integerEnv, requiredEnv } from './commons/environment.ts';
import { gatewayFromEnvironment } from './commons/gateway-environment.ts';
import { createLogger, createMetrics } from './commons/observability.ts';
import { receiveDepsFromEnvironment } from './inbound/receive-environment.ts';
import { DynamoDbAwaitingReports } from './reconcile/adapters/dynamodb-awaiting-reports.ts';
import {
  RECONCILE_DEFAULTS,
  ReconcileSettingsSchema,
  reconcileStatusExclusively,
} from './reconcile/reconcile-status.ts';

/**
 * `reconcile-status`, on a schedule: asks the gateway for the status of sends whose outcome is
 * unknown (their last attempt got no answer) and of accepted recipients whose report is late, and
 * stores what it learns (see `reconcileStatus`), one run at a time (lease `reconcile-status` in
 * the state table).
 * Environment (read once): EVENT_TABLE_NAME, STATE_TABLE_NAME, RECONCILE_AFTER_MINUTES (default
 * 30), RECONCILE_HORIZON_HOURS (default 96), RECONCILE_MAX_RECIPIENTS (per run, default 5000),
 * EVENT_RETENTION_DAYS, STORE_CONCURRENCY, GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL,
 * GATEWAY_TIMEOUT_MS, GATEWAY_CREDENTIALS_SECRET_ARN.
 */
const logger = createLogger('reconcile-status');
const metrics = createMetrics('reconcile-status');
const { client: gateway, timeoutMs } = gatewayFromEnvironment(logger);
const eventTableName = requiredEnv('EVENT_TABLE_NAME');
const stateTableName = requiredEnv('STATE_TABLE_NAME');
const settings = parseSettings({
  afterMinutes: integerEnv('RECONCILE_AFTER_MINUTES', RECONCILE_DEFAULTS.afterMinutes, {
    min: 1,
    max: 24 * 60,
  }),
  horizonHours: integerEnv('RECONCILE_HORIZON_HOURS', RECONCILE_DEFAULTS.horizonHours, {
    min: 1,
    max: 90 * 24,
  }),
  maxRecipients: integerEnv('RECONCILE_MAX_RECIPIENTS', RECONCILE_DEFAULTS.maxRecipients, {
    min: 10,
    max: 100_000,
  }),
});
function parseSettings(input: unknown) {
  const parsed = ReconcileSettingsSchema.safeParse(input);
  if (!parsed.success)
    throw new Error(`reconcile-status configuration: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
const awaiting = new DynamoDbAwaitingReports(eventTableName);
const lease = new DynamoDbLease(stateTableName);
const receive = receiveDepsFromEnvironment(logger);
// A status query batch needs one gateway call and its writes; none starts later than that.
const BATCH_BUDGET_MS = 2 * timeoutMs + 5_000;

export const handler = middy(async (_event: unknown, context: Context) => {
  const run = await reconcileStatusExclusively(
    {
      index: awaiting,
      ledger: awaiting,
      unknown: awaiting,
      guards: awaiting,
      owner: `reconcile-status#${context.awsRequestId}`,
      gateway,
      receive,
      now: () => new Date(),
      settings,
      hasTimeLeft: () => context.getRemainingTimeInMillis() > BATCH_BUDGET_MS,
    },
    // Held at most until this invocation's timeout, so a crashed run never blocks the next one.
    { lease, owner: context.awsRequestId, ttlMs: context.getRemainingTimeInMillis() + 5_000 },
  );
  if (run.kind === 'busy') {
    logger.info('another reconcile-status run holds the lease; nothing to do');
    return run;
  }
  metrics.addMetric('StatusQueries', MetricUnit.Count, run.statusQueries);
  metrics.addMetric('ReportsReconciled', MetricUnit.Count, run.reportsReconciled);
  metrics.addMetric('StatusUnavailable', MetricUnit.Count, run.statusUnavailable);
  metrics.addMetric('StillPending', MetricUnit.Count, run.stillPending);
  metrics.addMetric('ReconcileStoreFailures', MetricUnit.Count, run.storeFailures);
  metrics.addMetric('NotQueried', MetricUnit.Count, run.notQueried);
  metrics.addMetric('UnknownOutcomesAccepted', MetricUnit.Count, run.unknownAccepted);
  metrics.addMetric('UnknownOutcomesNotSent', MetricUnit.Count, run.unknownNotSent);
  metrics.addMetric('UnknownOutcomesPending', MetricUnit.Count, run.unknownPending);
  if (run.stoppedBy === 'complete') logger.info('reconcile-status run ended', { run });
  else logger.warn('reconcile-status run stopped early; the next run goes on', { run });
  return run;
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
