import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  type AcquireOptions,
  type Acquisition,
  type RateLimiter,
  RateLimitWaitExceededError,
} from './rate-limiter.ts';

/** The metric names, for the dashboard, the docs and the tests. */
export const RATE_LIMIT_METRICS = {
  waitMilliseconds: 'RateLimitWaitMilliseconds',
  waits: 'RateLimitWaits',
  waitsExceeded: 'RateLimitWaitsExceeded',
  quotaRecipientsReserved: 'QuotaRecipientsReserved',
} as const;

/**
 * A {@link RateLimiter} that reports every acquisition's answer as metrics, one value per send
 * request (so CloudWatch can give percentiles of the wait):
 *
 * - `RateLimitWaitMilliseconds`: how long the request waited for its share of the quota (the
 *   limiter's own measure, from its clock: the conditional write plus any wait for a later
 *   window or for the window to open), also when it gave up at its deadline.
 * - `RateLimitWaits`: 1 when the request found a window full and had to wait for a later one,
 *   else 0: the Sum is how many requests the quota held back, the Average which share of them.
 *   When a second's quota is split over shards, "full" means that no shard could take the
 *   request whole: a request that fell over from a full shard to another in the same second did
 *   not wait and counts 0.
 * - `RateLimitWaitsExceeded`: 1 when no window could be had before the deadline (the message goes
 *   back to the queue), else 0.
 * - `QuotaRecipientsReserved`: recipients the request counted against the quota. A reservation
 *   that came back too late to use is given back and not counted; one that could not be given
 *   back is, since it fills a window as much as a used one. A request is counted in one shard,
 *   so the shards need no metric of their own for the quota: their shares add up to it.
 *
 * Quota use is a count, not a percentage, on purpose. Every window is shared by all sending
 * containers and each of them knows only its own reservations, so no sender can compute the share
 * of a window that was used, and percentages from several senders can neither be added nor
 * averaged. Counts can: the Sum over a period is exactly what every sender reserved in it, and
 * the dashboard divides it by `tpsQuota × period seconds` (known at synth time) to show the share
 * of the quota used. Split seconds leave at most N × (largest request − 1) of the quota unused
 * while requests wait (under 5 % by the choice of N), which shows in that share.
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
