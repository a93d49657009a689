import { gatherer } from '../commons/helpers/gather.ts';
import type { AcquireOptions, Acquisition, RateLimiter } from './rate-limiter.ts';

export interface CoalescingOptions {
  /** The most recipients one reservation holds: the inner limiter's largest request. */
  readonly maxRecipients: number;
  /** How long the first request of a group waits for others to join it. */
  readonly gatherMs: number;
  /** @default a timer */
  readonly schedule?: (run: () => void, ms: number) => void;
}

interface Asked {
  readonly recipients: number;
  readonly deadline: number;
}

/**
 * Requests that ask for the quota within `gatherMs` of each other share one reservation of the
 * inner limiter (one conditional write instead of one each) while their recipients add up to at
 * most `maxRecipients`: the concurrent 1-recipient sends of one batch take one counter write.
 * A group is reserved as soon as it is full, else when its first request has waited `gatherMs`.
 *
 * Nothing is owned across requests: the shared reservation is made whatever becomes of the
 * requests in it (outside any one request's async context), each request goes out on its own as
 * soon as it is reserved, and a request that never goes out (its invocation killed) leaves its
 * recipients counted and unused, as a lone request would. Every request of a group gets the
 * group's window and waited time, and its share of what the group counted against the quota (the
 * shares add up to it; a failed group's error goes to each request as it is).
 */
export const coalescingRateLimiter = (
  limiter: RateLimiter,
  { maxRecipients, gatherMs, schedule }: CoalescingOptions,
): RateLimiter => {
  /** Each request's acquisition → the group's, whose answer times the inner limiter keeps. */
  const groupOf = new WeakMap<Acquisition, Acquisition>();
  const reserve = gatherer<Asked, Acquisition>({
    capacity: maxRecipients,
    weight: (asked) => asked.recipients,
    gatherMs,
    ...(schedule ? { schedule } : {}),
    flush: async (group) => {
      const recipients = group.reduce((sum, asked) => sum + asked.recipients, 0);
      const deadline = Math.min(...group.map((asked) => asked.deadline));
      const shared = await limiter.acquire(recipients, { deadline });
      let left = shared.reserved;
      return group.map((asked, index) => {
        const share =
          index === group.length - 1
            ? left
            : Math.floor((shared.reserved * asked.recipients) / recipients);
        left -= share;
        const own: Acquisition = { ...shared, reserved: share };
        groupOf.set(own, shared);
        return { ok: true, value: own };
      });
    },
  });

  return {
    acquire(recipients: number, { deadline }: AcquireOptions): Promise<Acquisition> {
      // Too large to share (or invalid: the inner limiter says why): straight through.
      if (!Number.isInteger(recipients) || recipients < 1 || recipients >= maxRecipients)
        return limiter.acquire(recipients, { deadline });
      return reserve({ recipients, deadline });
    },
    answered(acquisition: Acquisition): void {
      limiter.answered?.(groupOf.get(acquisition) ?? acquisition);
    },
  };
};
