import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeRefreshToken } from './tokens/compose.ts';

/**
 * `refresh-token` (scheduled): keeps the one shared gateway token in the state table current.
 * Environment, metrics and failures: see `composeRefreshToken`, plus POWERTOOLS_METRICS_NAMESPACE.
 */
const refresher = composeRefreshToken();

export const handler = middy(refresher.handler)
  .use(injectLambdaContext(refresher.logger))
  .use(logMetrics(refresher.metrics, { captureColdStartMetric: true }));
