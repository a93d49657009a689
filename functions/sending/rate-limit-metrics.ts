import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { RATE_LIMIT_METRICS } from './rate-limit-metric-names.ts';
import {
  type AcquireOptions,
  type Acquisition,
  type RateLimiter,
  RateLimitWaitExceededError,
} from './rate-limiter.ts';

/**
 * A {@link RateLimiter} that reports every acquisition's answer as metrics, one value per send
 * request (so CloudWatch can give percentiles of the wait): `RateLimitWaitMilliseconds`,
 * `RateLimitWaits` (1 when no shard of the window could take the request whole),
 * `RateLimitWaitsExceeded` and `QuotaRecipientsReserved` (docs/operations.md, "Metrics"). Quota
 * use is a count, not a percentage: each sender knows only its own reservations, and counts from
 * every sender add up where percentages would not; the dashboard divides the Sum by the quota.
 */
export const meteredRateLimiter = (limiter: RateLimiter, metrics: Metrics): RateLimiter => {
  const record = (
    answer: Pick<Acquisition, 'waitedMs' | 'fullWindows' | 'reserved'>,
    exceeded: boolean,
  ) => {
    metrics.addMetric(
      RATE_LIMIT_METRICS.waitMilliseconds,
      MetricUnit.Milliseconds,
      answer.waitedMs,
    );
    metrics.addMetric(RATE_LIMIT_METRICS.waits, MetricUnit.Count, answer.fullWindows > 0 ? 1 : 0);
    metrics.addMetric(RATE_LIMIT_METRICS.waitsExceeded, MetricUnit.Count, exceeded ? 1 : 0);
    metrics.addMetric(
      RATE_LIMIT_METRICS.quotaRecipientsReserved,
      MetricUnit.Count,
      answer.reserved,
    );
  };
  return {
    async acquire(recipients: number, options: AcquireOptions): Promise<Acquisition> {
      try {
        const acquisition = await limiter.acquire(recipients, options);
        record(acquisition, false);
        return acquisition;
      } catch (error) {
        if (error instanceof RateLimitWaitExceededError) record(error, true);
        throw error;
      }
    },
    answered: (acquisition) => limiter.answered?.(acquisition),
  };
};
