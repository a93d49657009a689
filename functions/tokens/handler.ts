import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { HandlerDeps } from '../commons/composition.ts';
import { isCredentialsNotSet } from '../gateway-access/gateway-credentials.ts';
import { type RefreshResult, type RefreshTokenDeps, refreshToken } from './refresh-use-case.ts';

/** What one run of `refresh-token` answers: the run, or that the credentials are not set yet. */
export type RefreshTokenRun = RefreshResult | { readonly outcome: 'credentials-not-set' };

/**
 * The scheduled run of `refresh-token`: runs `refreshToken` and records `TokenRefreshFailures`
 * (1 on a failed run, 0 otherwise) and `TokenMinutesLeft`. A failure is rethrown, so that the
 * schedule's retry and Lambda's `Errors` metric see it too — except a credentials secret that
 * does not hold the credentials yet: that is one warning with the fix and
 * `GatewayCredentialsNotSet` = 1 (with `TokenRefreshFailures` = 1, which the token alarm reads),
 * and no retry, which could not help.
 */
export const createRefreshTokenHandler =
  ({ deps, logger, metrics }: HandlerDeps<RefreshTokenDeps>) =>
  async (): Promise<RefreshTokenRun> => {
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
