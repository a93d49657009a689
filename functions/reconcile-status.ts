import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeReconcileStatus } from './reconcile/compose.ts';

/**
 * `reconcile-status`, on a schedule: asks the gateway for the status of sends whose outcome is
 * unknown (their last attempt got no answer) and of accepted recipients whose report is late, and
 * stores what it learns, one run at a time (lease `reconcile-status` in the state table).
 * Environment and metrics: see `composeReconcileStatus`.
 */
const reconciler = composeReconcileStatus();

export const handler = middy(reconciler.handler)
  .use(injectLambdaContext(reconciler.logger))
  .use(logMetrics(reconciler.metrics, { captureColdStartMetric: true }));
