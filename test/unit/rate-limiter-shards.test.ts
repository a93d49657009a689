import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DynamoDbRateLimiter,
  rateWindowKey,
} from '../../functions/sending/adapters/dynamodb-rate-limiter.ts';
import {
  RateLimitWaitExceededError,
  type RateWindowStore,
  shardCapacities,
  WindowedRateLimiter,
  type WindowedRateLimiterOptions,
} from '../../functions/sending/rate-limiter.ts';
import { mulberry32 } from '../../simulator/prng.ts';
import { SECOND, T0, W0 } from '../support/rate-windows.ts';

/*
 * The limiter runs on its defaults (`Date.now`, `setTimeout`) under vitest's fake timers, so
 * hundreds of concurrent acquirers spend seconds of virtual time in milliseconds.
 */
beforeEach(() => {
  vi.useFakeTimers({ now: T0, loopLimit: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `work` to the end in virtual time. */
const inVirtualTime = async <T>(work: Promise<T>): Promise<T> => {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  await vi.runAllTimersAsync();
  await settled;
  return work;
};

/**
 * Counters written from the store port's contract alone: a reservation is added only while the
 * counter stays within the capacity it is given, atomically, after `latencyMs`. It records every
 * write per counter (refused and given back included) and the capacity each counter was given.
 */
const memoryStore = (latencyMs: () => number = () => 0) => {
  const name = (window: number, shard: number | undefined) => `${window}/${shard ?? '-'}`;
  const counts = new Map<string, number>();
  const writes = new Map<string, number>();
  const refused = new Map<string, number>();
  const capacities = new Map<string, number>();
  const wrote = (key: string) => writes.set(key, (writes.get(key) ?? 0) + 1);
  const store: RateWindowStore = {
    async tryReserve(window, recipients, capacity, shard) {
      await delay(latencyMs());
      const key = name(window, shard);
      wrote(key);
      if (capacities.has(key) && capacities.get(key) !== capacity)
        throw new Error(`counter ${key} given capacities ${capacities.get(key)} and ${capacity}`);
      capacities.set(key, capacity);
      const used = counts.get(key) ?? 0;
      const reserved = used + recipients <= capacity;
      if (reserved) counts.set(key, used + recipients);
      else refused.set(key, (refused.get(key) ?? 0) + 1);
      await delay(latencyMs());
      return reserved;
    },
    async giveBack(window, recipients, shard) {
      await delay(latencyMs());
      const key = name(window, shard);
      wrote(key);
      const used = counts.get(key) ?? 0;
      if (used < recipients) throw new Error(`counter ${key} holds ${used}, not ${recipients}`);
      counts.set(key, used - recipients);
      await delay(latencyMs());
    },
  };
  /** What the window's counters hold, summed over its shards. */
  const usedIn = (window: number) =>
    [...counts].reduce((sum, [key, used]) => (key.startsWith(`${window}/`) ? sum + used : sum), 0);
  return { store, counts, writes, refused, capacities, name, usedIn };
};

const limiterOn = (
  store: RateWindowStore,
  options: Partial<WindowedRateLimiterOptions> & { quota: number },
) => new WindowedRateLimiter(store, { random: mulberry32(7), ...options });

describe('shardCapacities', () => {
  it.each([
    [10, [10]],
    [100, [100]],
    [400, [400]],
    [401, [200, 201]],
    [1_000, [340, 330, 330]],
    [1_237, [310, 310, 310, 307]],
    [5_000, [390, 390, 390, 390, 390, 390, 380, 380, 380, 380, 380, 380, 380]],
  ])('splits a quota of %i into ceil(quota / 400) shards: %j', (quota, expected) => {
    expect(shardCapacities(quota)).toEqual(expected);
  });

  it('adds up to the quota, holds a whole request in every shard and stays near quota / N', () => {
    const random = mulberry32(11);
    for (let i = 0; i < 2_000; i += 1) {
      const quota = 10 + Math.floor(random() * 100_000);
      const shards = shardCapacities(quota);

      expect(shards).toHaveLength(Math.ceil(quota / 400));
      expect(shards.reduce((sum, capacity) => sum + capacity, 0)).toBe(quota);
      expect(Math.min(...shards)).toBeGreaterThanOrEqual(10);
      expect(Math.max(...shards)).toBeLessThan(quota / shards.length + 10);
      // Whole multiples of the largest request, except one shard holding the quota's remainder.
      expect(shards.filter((capacity) => capacity % 10 !== 0).length).toBeLessThanOrEqual(1);
    }
  });

  it('follows recipientsPerShard and maxRecipients', () => {
    expect(shardCapacities(1_000, { recipientsPerShard: 500 })).toEqual([500, 500]);
    expect(shardCapacities(100, { recipientsPerShard: 30, maxRecipients: 3 })).toEqual([
      27, 24, 24, 25,
    ]);
  });
});

describe('the shard count', () => {
  it('is what the limiter uses, computed from the quota', () => {
    const { store } = memoryStore();

    expect(limiterOn(store, { quota: 100 }).shards).toEqual([100]);
    expect(limiterOn(store, { quota: 5_000 }).shards).toHaveLength(13);
    expect(limiterOn(store, { quota: 5_000, recipientsPerShard: 500 }).shards).toHaveLength(10);
  });

  it.each([
    [{ quota: 5 }, 'quota 5 cannot hold one request of maxRecipients (10) recipients'],
    [
      { quota: 1_000, recipientsPerShard: 4 },
      'recipientsPerShard 4 is not a whole number of at least maxRecipients (10)',
    ],
    [
      { quota: 25, recipientsPerShard: 10 },
      'quota 25 split over 3 shards of at most 10 leaves a shard of 5, less than one request of maxRecipients (10) recipients',
    ],
    [{ quota: 100, maxRecipients: 0 }, 'maxRecipients 0 is not a positive integer'],
  ])('refuses %j: a request must fit one shard', (options, message) => {
    const construct = () => limiterOn(memoryStore().store, options);

    expect(construct).toThrow(RangeError);
    expect(construct).toThrow(message);
  });

  it('rejects a request larger than maxRecipients at once, without a write', async () => {
    const { store, writes } = memoryStore();
    const limiter = limiterOn(store, { quota: 1_000 });

    const error = await limiter.acquire(11, { deadline: T0 + SECOND }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RangeError);
    expect(error).toMatchObject({
      message: expect.stringContaining('11 recipients are more than the largest request of 10'),
    });
    expect(writes.size).toBe(0);
  });
});

describe('a window split over shards', () => {
  it('falls over from a full shard to another one in the same window', async () => {
    // Prepare: 3 shards of 400; the first one tried (random 0.5 → shard 1) is full.
    const { store, counts, writes, name } = memoryStore(() => 2);
    const limiter = limiterOn(store, { quota: 1_200, random: () => 0.5 });
    counts.set(name(W0, 1), 400);
    vi.setSystemTime(T0 + 100);

    // Act
    const acquired = await inVirtualTime(limiter.acquire(10, { deadline: T0 + 5 * SECOND }));

    // Assess
    expect(acquired).toEqual({ window: W0, waitedMs: 8, fullWindows: 0, reserved: 10 });
    expect(counts.get(name(W0, 2))).toBe(10);
    expect(writes.get(name(W0, 1))).toBe(1);
    expect(limiter.stats).toMatchObject({ attempts: 2, reserved: 1, waits: 0 });
  });

  it('waits for the next window only when no shard can take the request, and never splits it', async () => {
    // Prepare: 3 shards of 400 with 5 free in each: 15 free in the window, but no shard has 6.
    const { store, counts, name, usedIn } = memoryStore(() => 1);
    const limiter = limiterOn(store, { quota: 1_200, jitterMs: 0 });
    for (const shard of [0, 1, 2]) counts.set(name(W0, shard), 395);
    vi.setSystemTime(T0 + 200);

    // Act
    const six = await inVirtualTime(limiter.acquire(6, { deadline: T0 + 5 * SECOND }));

    // Assess: one refused write per shard, then the next window.
    expect(six).toMatchObject({ window: W0 + 1, fullWindows: 1, reserved: 6 });
    expect(limiter.stats).toMatchObject({ attempts: 4, reserved: 1, waits: 1 });
    expect(usedIn(W0)).toBe(1_185);
    expect([0, 1, 2].map((shard) => counts.get(name(W0 + 1, shard)) ?? 0).sort()).toEqual([
      0, 0, 6,
    ]);
  });

  it('does not write again to shards this container found full, unless for a smaller request', async () => {
    // Prepare: every shard of the window holds 395 of 400.
    const { store, counts, writes, name } = memoryStore();
    const limiter = limiterOn(store, { quota: 1_200 });
    for (const shard of [0, 1, 2]) counts.set(name(W0, shard), 395);
    vi.setSystemTime(T0 + 200);
    const deadline = T0 + 900;

    // Act: three 10-recipient requests one after the other, then one of 5.
    const tens: unknown[] = [];
    for (let i = 0; i < 3; i += 1) {
      tens.push(await inVirtualTime(limiter.acquire(10, { deadline }).catch((e: unknown) => e)));
    }
    const afterTens = limiter.stats.attempts;
    const five = await inVirtualTime(limiter.acquire(5, { deadline }));

    // Assess: all three gave up (the next window opens after the deadline); only the first wrote,
    // one refused write per shard, and the 5-recipient request still got a shard.
    for (const error of tens) expect(error).toBeInstanceOf(RateLimitWaitExceededError);
    expect(afterTens).toBe(3);
    expect([...writes.values()].reduce((sum, n) => sum + n, 0)).toBe(4);
    expect(five).toMatchObject({ window: W0, fullWindows: 0, reserved: 5 });
  });

  it('has one write in flight per shard at a time, so concurrent acquisitions are refused once', async () => {
    // Prepare: every shard of the window holds 395 of 400; writes take 5 ms each way.
    const { store, counts, writes, name } = memoryStore(() => 5);
    const limiter = limiterOn(store, { quota: 1_200 });
    for (const shard of [0, 1, 2]) counts.set(name(W0, shard), 395);
    vi.setSystemTime(T0 + 200);

    // Act: two 10-recipient requests at once, each able to wait until T0 + 900 ms.
    const answers = await inVirtualTime(
      Promise.all(
        [1, 2].map(() => limiter.acquire(10, { deadline: T0 + 900 }).catch((e: unknown) => e)),
      ),
    );

    // Assess: both found the window full, with one refused write per shard between them.
    for (const answer of answers) {
      expect(answer).toBeInstanceOf(RateLimitWaitExceededError);
      expect(answer).toMatchObject({ fullWindows: 1, reserved: 0 });
    }
    expect([0, 1, 2].map((shard) => writes.get(name(W0, shard)))).toEqual([1, 1, 1]);
  });

  it('moves to the next window when the shards it tries reach the guard, without counting it full', async () => {
    // Prepare: 2 shards; 120 ms left, the guard is 50 ms and each write takes 40 ms each way.
    const { store, counts, name } = memoryStore(() => 40);
    const limiter = limiterOn(store, { quota: 800, random: () => 0 });
    counts.set(name(W0, 0), 400);
    vi.setSystemTime(T0 + 880);

    // Act
    const acquired = await inVirtualTime(limiter.acquire(10, { deadline: T0 + 5 * SECOND }));

    // Assess: shard 0 refused at T0+960, in the guard: shard 1 of W0 was not tried.
    expect(acquired).toMatchObject({ window: W0 + 1, fullWindows: 0, reserved: 10 });
    expect(counts.has(name(W0, 1))).toBe(false);
    expect(limiter.stats).toMatchObject({ attempts: 2, reserved: 1, waits: 0, givenBack: 0 });
  });

  it('gives back to the shard it reserved in when the answer came inside the guard', async () => {
    const { store, counts, name } = memoryStore(() => 10);
    const limiter = limiterOn(store, { quota: 1_200, random: () => 0.9 });
    vi.setSystemTime(T0 + 935);

    const acquired = await inVirtualTime(limiter.acquire(10, { deadline: T0 + 5 * SECOND }));

    expect(acquired).toMatchObject({ window: W0 + 1, reserved: 10 });
    expect(counts.get(name(W0, 2))).toBe(0);
    expect(limiter.stats).toMatchObject({ reserved: 2, givenBack: 1, abandoned: 0 });
  });
});

describe('many containers on one split window', () => {
  it.each([1, 2, 3])(
    'never exceed the quota in any second summed over shards, and use at least 95 percent of it (seed %i)',
    async (seed) => {
      // Prepare: quota 1,237 = 4 shards (310, 310, 310, 307); 15 containers (one limiter each)
      // with 10 concurrent senders each; writes take 2–12 ms, gateway calls 20–80 ms; requests of
      // 1–10 recipients; 10 virtual seconds from T0 + 337 ms.
      const quota = 1_237;
      const random = mulberry32(seed);
      const memory = memoryStore(() => 2 + random() * 10);
      vi.setSystemTime(T0 + 337);
      const deadline = T0 + 10 * SECOND - 1;
      const granted: Array<{ window: number; at: number; recipients: number }> = [];
      let reportedReserved = 0;
      const container = async (id: number) => {
        const limiter = limiterOn(memory.store, { quota, random: mulberry32(seed * 100 + id) });
        const sender = async () => {
          for (;;) {
            const recipients = 1 + Math.floor(random() * 10);
            try {
              const { window, reserved } = await limiter.acquire(recipients, { deadline });
              granted.push({ window, at: Date.now(), recipients });
              reportedReserved += reserved;
            } catch (error) {
              if (!(error instanceof RateLimitWaitExceededError)) throw error;
              reportedReserved += error.reserved;
              return;
            }
            await delay(20 + random() * 60);
          }
        };
        await Promise.all(Array.from({ length: 10 }, sender));
        return limiter;
      };

      // Act
      const limiters = await inVirtualTime(
        Promise.all(Array.from({ length: 15 }, (_, id) => container(id))),
      );

      // Assess: the grants per second, summed over shards.
      const perWindow = new Map<number, number>();
      for (const { window, recipients } of granted)
        perWindow.set(window, (perWindow.get(window) ?? 0) + recipients);
      expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(quota);
      for (const grant of granted) {
        expect(grant.at).toBeGreaterThanOrEqual(grant.window * SECOND);
        expect(grant.at).toBeLessThanOrEqual((grant.window + 1) * SECOND - 50);
      }
      // Every counter stayed within its share; the shares of a second add up to the quota.
      const shards = shardCapacities(quota);
      for (const [key, used] of memory.counts) {
        const shard = Number(key.split('/')[1]);
        expect(memory.capacities.get(key)).toBe(shards[shard]);
        expect(used).toBeLessThanOrEqual(shards[shard] ?? 0);
      }
      // The nine whole seconds are saturated and at least 95 % used.
      const whole = [...perWindow].filter(([window]) => window > W0);
      expect(whole).toHaveLength(9);
      for (const [, used] of whole) expect(used).toBeGreaterThanOrEqual(0.95 * quota);
      // The counters agree exactly with the grants and with what the calls reported.
      const stored = [...memory.counts.values()].reduce((sum, used) => sum + used, 0);
      expect(stored).toBe(granted.reduce((sum, grant) => sum + grant.recipients, 0));
      expect(reportedReserved).toBe(stored);
      expect(limiters.reduce((sum, limiter) => sum + limiter.stats.abandoned, 0)).toBe(0);
      // Writes per counter item and second, refused and given back included: the reservations a
      // shard can hold, plus at most one refused write per container and request size.
      // Refused writes per counter item and second: at most one per container and request size
      // (15 containers, 10 sizes).
      for (const refused of memory.refused.values()) expect(refused).toBeLessThanOrEqual(15 * 10);
    },
  );
});

describe('5,000 recipients per second', () => {
  it.each([1, 10])(
    'keeps every counter item under 500 writes a second with %i-recipient requests',
    async (size) => {
      // Prepare: quota 5,000 = 13 shards of 380–390; 50 containers of 10 senders each, sending
      // requests of `size` recipients as fast as the quota lets them (gateway calls 30–90 ms,
      // writes 2–12 ms), for two virtual seconds.
      const quota = 5_000;
      const random = mulberry32(size);
      const memory = memoryStore(() => 2 + random() * 10);
      vi.setSystemTime(T0);
      const deadline = T0 + 2 * SECOND - 1;
      const perWindow = new Map<number, number>();
      const container = async (id: number) => {
        const limiter = limiterOn(memory.store, { quota, random: mulberry32(1_000 + id) });
        const sender = async () => {
          for (;;) {
            try {
              const { window } = await limiter.acquire(size, { deadline });
              perWindow.set(window, (perWindow.get(window) ?? 0) + size);
            } catch (error) {
              if (error instanceof RateLimitWaitExceededError) return;
              throw error;
            }
            await delay(30 + random() * 60);
          }
        };
        await Promise.all(Array.from({ length: 10 }, sender));
      };

      // Act
      await inVirtualTime(Promise.all(Array.from({ length: 50 }, (_, id) => container(id))));

      // Assess: both seconds carry the quota, never more; no counter item took 500 writes in
      // its second, refused ones included, and no more refused writes than containers (one each,
      // the requests being of one size).
      const whole = [0, 1].map((offset) => perWindow.get(W0 + offset) ?? 0);
      for (const used of whole) {
        expect(used).toBeLessThanOrEqual(quota);
        expect(used).toBeGreaterThanOrEqual(0.95 * quota);
      }
      const busiest = Math.max(...memory.writes.values());
      const mostRefused = Math.max(...memory.refused.values());
      console.log(
        `5,000/s in ${size}-recipient requests: per second ${whole.join(', ')}; ` +
          `busiest counter item ${busiest} writes/s, most refused ${mostRefused}/s`,
      );
      expect(busiest).toBeLessThan(500);
      expect(mostRefused).toBeLessThanOrEqual(50);
    },
    60_000,
  );
});

describe('DynamoDbRateWindowStore keys', () => {
  it('keeps RATE#<second> for a single counter and names shards RATE#<second>#<shard>', () => {
    expect(rateWindowKey(W0)).toBe(`RATE#${W0}`);
    expect(rateWindowKey(W0, 0)).toBe(`RATE#${W0}#0`);
    expect(rateWindowKey(W0, 12)).toBe(`RATE#${W0}#12`);
  });

  it("writes a shard's item with the shard's share as the limit", async () => {
    // Prepare: 3 shards of 400; the first one tried (random 0.7 → shard 2) refuses.
    const documents = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        region: 'ap-northeast-2',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      }),
    );
    const mock = mockClient(documents);
    mock
      .on(UpdateCommand, { Key: { pk: `RATE#${W0}#2` } })
      .rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }))
      .on(UpdateCommand, { Key: { pk: `RATE#${W0}#0` } })
      .resolves({});
    const limiter = new DynamoDbRateLimiter(
      'state-table',
      { quota: 1_200, random: () => 0.7 },
      documents,
    );
    vi.setSystemTime(T0 + 100);

    // Act
    const acquired = await inVirtualTime(limiter.acquire(7, { deadline: T0 + 5 * SECOND }));

    // Assess
    expect(acquired.window).toBe(W0);
    const writes = mock.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(writes.map((input) => [input.Key?.pk, input.ExpressionAttributeValues])).toEqual([
      [`RATE#${W0}#2`, { ':n': 7, ':maxBefore': 393, ':expiresAt': W0 + 300 }],
      [`RATE#${W0}#0`, { ':n': 7, ':maxBefore': 393, ':expiresAt': W0 + 300 }],
    ]);
  });
});
