/** The one backoff law of every retry loop (functions/commons/helpers/backoff.ts). */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../functions/commons/helpers/backoff.ts';

describe('backoffDelay', () => {
  it('doubles from the first wait up to the longest', () => {
    const policy = { firstMs: 100, maxMs: 1_000 };

    const waits = [1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(policy, retry));

    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('waits as the first retry for a retry number of 0 or below', () => {
    expect(backoffDelay({ firstMs: 300, maxMs: 5_000 }, 0)).toBe(300);
    expect(backoffDelay({ firstMs: 300, maxMs: 5_000 }, -2)).toBe(300);
  });

  it('takes a random share of the wait off, never more than the jitter', () => {
    const policy = { firstMs: 1_000, maxMs: 8_000, jitter: 0.25 };

    expect(backoffDelay(policy, 2, () => 0)).toBe(1_500);
    expect(backoffDelay(policy, 2, () => 0.5)).toBe(1_750);
    expect(backoffDelay(policy, 2, () => 1)).toBe(2_000);
    for (let run = 0; run < 200; run += 1) {
      const wait = backoffDelay({ ...policy, jitter: 0.5 }, 3);
      expect(wait).toBeGreaterThanOrEqual(2_000);
      expect(wait).toBeLessThanOrEqual(4_000);
    }
  });
});
