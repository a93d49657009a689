import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { integerEnv, requiredEnv } from './commons/environment.ts';
import { GatewayAuthApi } from './commons/gateway/gateway-auth.ts';
import {
  gatewayCredentialsFromEnvironment,
  gatewayHostsFromEnvironment,
} from './commons/gateway-credentials.ts';
import { createLogger, createMetrics } from './commons/observability.ts';
import { DynamoDbTokenStore } from './tokens/adapters/dynamodb-token-store.ts';
import { type RefreshResult, refreshToken } from './tokens/refresh-token.ts';

/**
 * `refresh-token` (scheduled): keeps the one shared gateway token in the state table current.
 * Environment (read once): STATE_TABLE_NAME, GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL,
 * GATEWAY_TIMEOUT_MS (default 10000), GATEWAY_CREDENTIALS_SECRET_ARN, POWERTOOLS_METRICS_NAMESPACE.
 * Metrics: `TokenRefreshFailures` (1 on a failed run, 0 otherwise; the error is rethrown so the
 * schedule's retry and the Lambda `Errors` metric see it too) and `TokenMinutesLeft`.
 */
const logger = createLogger('refresh-token');
const metrics = createMetrics('refresh-token');
const hosts = gatewayHostsFromEnvironment();
const deps = {
  store: new DynamoDbTokenStore(requiredEnv('STATE_TABLE_NAME'), { logger }),
  auth: new GatewayAuthApi({
    hosts,
    timeoutMs: integerEnv('GATEWAY_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
  }),
  credentials: gatewayCredentialsFromEnvironment(),
  now: Date.now,
  logger,
};

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
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
