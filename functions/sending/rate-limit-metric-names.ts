/**
 * The rate limiter's metric names, for the metered limiter, the dashboard, the docs and the
 * tests: a module of its own, so that the constructs read them without the metrics library.
 */
export const RATE_LIMIT_METRICS = {
  waitMilliseconds: 'RateLimitWaitMilliseconds',
  waits: 'RateLimitWaits',
  waitsExceeded: 'RateLimitWaitsExceeded',
  quotaRecipientsReserved: 'QuotaRecipientsReserved',
} as const;
