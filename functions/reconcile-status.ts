import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { traceInvocations } from './commons/tracing.ts';
import { composeReconcileStatus } from './reconcile/compose-reconcile-status.ts';
import { reconcileStatusExclusively } from './reconcile/reconcile-status.ts';

/**
 * `reconcile-status`, on a schedule: asks the gateway for the status of sends whose outcome is
 * unknown (their last attempt got no answer) and of accepted recipients whose report is late, and
 * stores what it learns (see `reconcileStatus`), one run at a time (lease `reconcile-status` in
 * the state table). Environment: see `composeReconcileStatus`.
 */
const { logger, metrics, deps, lease, batchBudgetMs } = composeReconcileStatus();

export const handler = middy(async (_event: unknown, context: Context) => {
  const run = await reconcileStatusExclusively(
    {
      ...deps,
      owner: `reconcile-status#${context.awsRequestId}`,
      now: () => new Date(),
      hasTimeLeft: () => context.getRemainingTimeInMillis() > batchBudgetMs,
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
  metrics.addMetric('ReportChecksFinished', MetricUnit.Count, run.checksFinished);
  metrics.addMetric('ReportChecksExpired', MetricUnit.Count, run.checksExpired);
  metrics.addMetric('ReportChecksInvalid', MetricUnit.Count, run.checksInvalid);
  if (run.stoppedBy === 'complete') logger.info('reconcile-status run ended', { run });
  else logger.warn('reconcile-status run stopped early; the next run goes on', { run });
  return run;
})
  .use(traceInvocations('reconcile-status'))
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
