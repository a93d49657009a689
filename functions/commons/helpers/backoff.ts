/**
 * How long a retry waits: one law for every retry loop of the bridge and its producer. The n-th
 * retry waits `firstMs · 2^(n−1)`, at most `maxMs`; a `jitter` share of that is random (the wait
 * lies between `(1 − jitter)` of it and all of it), so that callers that failed together do not
 * come back in step. Each loop names its own policy beside it.
 */
export interface Backoff {
  /** The wait before the first retry. */
  readonly firstMs: number;
  /** The longest wait. */
  readonly maxMs: number;
  /** The random share of each wait, 0 to 1. @default 0 */
  readonly jitter?: number;
}

/** The wait before retry number `retry` (1 for the first; 0 and below wait as the first). */
export const backoffDelay = (
  backoff: Backoff,
  retry: number,
  random: () => number = Math.random,
): number => {
  const exact = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.max(0, retry - 1));
  const jitter = backoff.jitter ?? 0;
  return jitter === 0 ? exact : exact * (1 - jitter + jitter * random());
};
