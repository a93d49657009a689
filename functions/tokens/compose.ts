import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { GatewayAuthApi, type GatewayCredentials } from '../../gateway/token-api.ts';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { DynamoDbTokenStore } from '../gateway-access/adapters/dynamodb-token-store.ts';
import {
  gatewayCredentialsFromEnvironment,
  gatewayHostsFromEnvironment,
  isCredentialsNotSet,
} from '../gateway-access/gateway-credentials.ts';
import { type RefreshResult, type RefreshTokenDeps, refreshToken } from './refresh-use-case.ts';

export interface RefreshTokenOverrides extends CompositionOverrides {
  /** The gateway's authentication API; the `GATEWAY_*_URL` variables are then not read. */
  readonly auth?: GatewayAuthApi;
  /** The gateway credentials; GATEWAY_CREDENTIALS_SECRET_ARN is then not read. */
  readonly credentials?: () => Promise<GatewayCredentials>;
}

/** What one run of `refresh-token` answers: the run, or that the credentials are not set yet. */
export type RefreshTokenRun = RefreshResult | { readonly outcome: 'credentials-not-set' };

/**
 * Composes `refresh-token` (keeps the one shared gateway token in the state table current) from
 * its environment, read once, at cold start: STATE_TABLE_NAME, GATEWAY_API_URL, GATEWAY_SEND_URL,
 * GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (default 10 000), GATEWAY_CREDENTIALS_SECRET_ARN.
 *
 * The handler (the Lambda entry's and the local run's) runs `refreshToken` and records metrics
 * `TokenRefreshFailures` (1 on a failed run, 0 otherwise) and `TokenMinutesLeft`. A failure is
 * rethrown, so that the schedule's retry and Lambda's `Errors` metric see it too — except a
 * credentials secret that does not hold the credentials yet: that is one warning with the fix and
 * `GatewayCredentialsNotSet` = 1 (with `TokenRefreshFailures` = 1, which the token alarm reads),
 * and no retry, which could not help.
 */
export const composeRefreshToken = (
  env: Environment = process.env,
  overrides: RefreshTokenOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('refresh-token', overrides);
  const auth =
    overrides.auth ??
    new GatewayAuthApi({
      hosts: gatewayHostsFromEnvironment(env),
      timeoutMs: integerEnv('GATEWAY_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }, env),
    });
  const deps: RefreshTokenDeps = {
    store: new DynamoDbTokenStore(requiredEnv('STATE_TABLE_NAME', env), {
      logger,
      client: overrides.documents,
    }),
    auth,
    credentials: overrides.credentials ?? gatewayCredentialsFromEnvironment(env, overrides.secrets),
    now: Date.now,
    logger,
  };
  const handler = async (): Promise<RefreshTokenRun> => {
    try {
      const result = await refreshToken(deps);
      metrics.addMetric('TokenRefreshFailures', MetricUnit.Count, 0);
      metrics.addMetric('GatewayCredentialsNotSet', MetricUnit.Count, 0);
      metrics.addMetric('TokenMinutesLeft', MetricUnit.NoUnit, result.minutesLeft);
      logger.info('gateway token checked', { ...result });
      return result;
    } catch (error) {
      metrics.addMetric('TokenRefreshFailures', MetricUnit.Count, 1);
      if (isCredentialsNotSet(error)) {
        metrics.addMetric('GatewayCredentialsNotSet', MetricUnit.Count, 1);
        logger.warn(error.message, { secretArn: error.secretArn });
        return { outcome: 'credentials-not-set' };
      }
      logger.error('gateway token refresh failed', { error });
      throw error;
    }
  };
  return { logger, metrics, deps, handler };
};
