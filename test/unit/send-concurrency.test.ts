import { describe, expect, it } from 'vitest';
import {
  defaultSendConcurrency,
  MAX_DEFAULT_SEND_CONCURRENCY,
  SENDER_RECIPIENTS_PER_SECOND,
} from '../../lib/send-concurrency.ts';

describe('the send queue consumer’s default concurrency', () => {
  it('gives 1-recipient messages enough invocations to fill the quota, at least Lambda’s 2', () => {
    // Act
    const quotas = [10, 68, 69, 100, 300, 1_000];
    const byQuota = quotas.map(defaultSendConcurrency);

    // Assess
    expect(byQuota).toEqual([2, 2, 3, 3, 9, 30]);
    for (const [index, quota] of quotas.entries())
      expect((byQuota[index] ?? 0) * SENDER_RECIPIENTS_PER_SECOND).toBeGreaterThanOrEqual(quota);
  });

  it('stops at 250, which a default account’s 1,000 executions hold with the other consumers', () => {
    // Act
    const largest = defaultSendConcurrency(100_000);

    // Assess
    expect(largest).toBe(MAX_DEFAULT_SEND_CONCURRENCY);
    expect(largest).toBe(250);
  });
});
