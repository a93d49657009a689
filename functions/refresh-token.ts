import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { traceInvocations } from './commons/tracing.ts';
import { composeRefreshToken } from './tokens/compose-refresh-token.ts';
import { type RefreshResult, refreshToken } from './tokens/refresh-token.ts';

/**
 * `refresh-token` (scheduled): keeps the one shared gateway token in the state table current.
 * Environment: see `composeRefreshToken`, plus POWERTOOLS_METRICS_NAMESPACE.
 * Metrics: `TokenRefreshFailures` (1 on a failed run, 0 otherwise; the error is rethrown so the
 * schedule's retry and the Lambda `Errors` metric see it too) and `TokenMinutesLeft`.
 */
const { logger, metrics, deps } = composeRefreshToken();

export const handler = middy(async (): Promise<RefreshResult> => {
  try {
    const result = await refreshToken(deps);
    metrics.addMetric('TokenRefreshFailures', MetricUnit.Count, 0);
    metrics.addMetric('TokenMinutesLeft', MetricUnit.NoUnit, result.minutesLeft);
    logger.info('gateway token checked', { ...result });
    return result;
  } catch (error) {
    metrics.addMetric('TokenRefreshFailures', MetricUnit.Count, 1);
    logger.error('gateway token refresh failed', { error });
    throw error;
  }
})
  .use(traceInvocations('refresh-token'))
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
