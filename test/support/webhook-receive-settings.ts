import type { ReceiveDeps } from '../../functions/received-items/receive-items.ts';

/** The receive settings of the webhook handler tests: a fixed clock, 35 days kept, 4 at a time. */
export const RECEIVE_SETTINGS: Pick<ReceiveDeps, 'now' | 'retentionDays' | 'concurrency'> = {
  now: () => new Date('2026-11-21T00:00:00Z'),
  retentionDays: 35,
  concurrency: 4,
};
