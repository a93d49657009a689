import { describe, expect, it } from 'vitest';
import { coalescingRateLimiter } from '../../functions/sending/coalescing-rate-limiter.ts';
import {
  type Acquisition,
  type RateLimiter,
  RateLimitWaitExceededError,
  type RateWindowStore,
  WindowedRateLimiter,
} from '../../functions/sending/rate-limiter.ts';

/** An inner limiter that answers when told to, and remembers what it was asked. */
const scriptedInner = () => {
  const asked: number[] = [];
  const answered: Acquisition[] = [];
  const pending: Array<{ resolve: (a: Acquisition) => void; reject: (e: unknown) => void }> = [];
  const limiter: RateLimiter = {
    acquire: (recipients) => {
      asked.push(recipients);
      return new Promise((resolve, reject) => pending.push({ resolve, reject }));
    },
    answered: (acquisition) => {
      answered.push(acquisition);
    },
  };
  return { limiter, asked, answered, pending };
};

/** A timer the test fires by hand. */
const manualTimer = () => {
  const due: Array<() => void> = [];
  return {
    schedule: (run: () => void) => {
      due.push(run);
    },
    fire: () => {
      for (const run of due.splice(0)) run();
    },
  };
};

/** A coalescing limiter (10 recipients, 10 ms) over a scripted inner one, with a hand-fired timer. */
const coalescingOverScript = () => {
  const inner = scriptedInner();
  const timer = manualTimer();
  const limiter = coalescingRateLimiter(inner.limiter, {
    maxRecipients: 10,
    gatherMs: 10,
    schedule: timer.schedule,
  });
  return { inner, timer, limiter };
};

const DEADLINE = { deadline: 10_000 };
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescingRateLimiter', () => {
  it('reserves the requests that ask together in one acquisition, each with its share', async () => {
    // Prepare
    const { inner, timer, limiter } = coalescingOverScript();

    // Act: three requests of 1, 2 and 1 recipients, then the gathering time runs out.
    const requests = [1, 2, 1].map((n) => limiter.acquire(n, DEADLINE));
    expect(inner.asked).toEqual([]);
    timer.fire();
    inner.pending[0]?.resolve({ window: 7, waitedMs: 3, fullWindows: 0, reserved: 4 });
    const answers = await Promise.all(requests);

    // Assess
    expect(inner.asked).toEqual([4]);
    expect(answers.map((a) => a.window)).toEqual([7, 7, 7]);
    expect(answers.map((a) => a.reserved)).toEqual([1, 2, 1]);
  });

  it('shares out a reservation held in two windows (8 for 4 recipients) in proportion', async () => {
    const { inner, timer, limiter } = coalescingOverScript();

    const requests = [1, 3].map((n) => limiter.acquire(n, DEADLINE));
    timer.fire();
    inner.pending[0]?.resolve({ window: 7, waitedMs: 0, fullWindows: 0, reserved: 8 });
    const answers = await Promise.all(requests);

    expect(answers.map((a) => a.reserved)).toEqual([2, 6]);
  });

  it('reserves a full group at once, and starts a new one for a request that would overflow it', async () => {
    // Prepare
    const { inner, timer, limiter } = coalescingOverScript();

    // Act: 6 + 4 fill a group (reserved without waiting); 7 + 5 overflow, so 7 goes alone.
    void limiter.acquire(6, DEADLINE);
    void limiter.acquire(4, DEADLINE);
    const askedWhenFull = [...inner.asked];
    void limiter.acquire(7, DEADLINE);
    void limiter.acquire(5, DEADLINE);
    const askedAfterOverflow = [...inner.asked];
    timer.fire();

    // Assess
    expect(askedWhenFull).toEqual([10]);
    expect(askedAfterOverflow).toEqual([10, 7]);
    expect(inner.asked).toEqual([10, 7, 5]);
  });

  it('sends a request of the largest size straight through', () => {
    const { inner, limiter } = coalescingOverScript();

    void limiter.acquire(10, DEADLINE);

    expect(inner.asked).toEqual([10]);
  });

  it('fails every request of a group whose reservation failed', async () => {
    const { inner, timer, limiter } = coalescingOverScript();

    const requests = [1, 1].map((n) => limiter.acquire(n, DEADLINE));
    timer.fire();
    inner.pending[0]?.reject(new RateLimitWaitExceededError(2, 10_000, 50, 9));

    for (const request of requests)
      await expect(request).rejects.toThrow(RateLimitWaitExceededError);
  });

  it("reports each request's answer against the group's reservation", async () => {
    const { inner, timer, limiter } = coalescingOverScript();
    const requests = [1, 1].map((n) => limiter.acquire(n, DEADLINE));
    timer.fire();
    const shared = { window: 7, waitedMs: 0, fullWindows: 0, reserved: 2 };
    inner.pending[0]?.resolve(shared);
    const [first, second] = await Promise.all(requests);

    if (first) limiter.answered?.(first);
    if (second) limiter.answered?.(second);

    expect(inner.answered).toEqual([shared, shared]);
    expect(inner.answered[0]).toBe(shared);
  });

  it('makes the concurrent 1-recipient sends of a batch one counter write', async () => {
    // Prepare: the windowed limiter over an in-memory store.
    const used = new Map<string, number>();
    let writes = 0;
    const store: RateWindowStore = {
      tryReserve: async (window, recipients, capacity, shard) => {
        writes += 1;
        const key = `${window}#${shard ?? ''}`;
        const count = used.get(key) ?? 0;
        if (count + recipients > capacity) return false;
        used.set(key, count + recipients);
        return true;
      },
      giveBack: async (window, recipients, shard) => {
        const key = `${window}#${shard ?? ''}`;
        used.set(key, (used.get(key) ?? 0) - recipients);
      },
    };
    const windowed = new WindowedRateLimiter(store, { quota: 100, now: () => 1_700_000_000_100 });
    const limiter = coalescingRateLimiter(windowed, { maxRecipients: 10, gatherMs: 5 });

    // Act
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => limiter.acquire(1, { deadline: 1_700_000_010_000 })),
    );
    await settle();

    // Assess
    expect(writes).toBe(1);
    expect([...used.values()]).toEqual([10]);
    expect(answers.reduce((sum, a) => sum + a.reserved, 0)).toBe(10);
  });
});
