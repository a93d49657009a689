import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import {
  DynamoDbRateLimiter,
  type DynamoDbRateLimiterOptions,
} from '../../functions/sending/adapters/dynamodb-rate-limiter.ts';
import { RateLimitWaitExceededError } from '../../functions/sending/rate-limiter.ts';
import { mulberry32 } from '../../simulator/prng.ts';
import { SECOND, T0, W0 } from '../support/rate-windows.ts';

/**
 * Virtual time: `sleep` parks a timer, and `run` moves the clock from timer to timer once every
 * pending promise has settled, so hundreds of concurrent acquirers run in milliseconds and in a
 * reproducible order.
 */
class FakeClock {
  private current: number;
  private sequence = 0;
  private readonly timers: Array<{ at: number; order: number; wake: () => void }> = [];

  constructor(start: number) {
    this.current = start;
  }

  readonly now = (): number => this.current;

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((wake) => {
      this.timers.push({ at: this.current + Math.max(0, ms), order: this.sequence++, wake });
    });

  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return work;
      this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.timers.shift();
      if (next === undefined) throw new Error('nothing scheduled, yet the work has not settled');
      this.current = Math.max(this.current, next.at);
      next.wake();
    }
  }
}

/** A seeded PRNG, so jitter and latencies are the same on every run. */
const seeded = mulberry32;

const UPDATE_EXPRESSION = 'ADD used :n SET expiresAt = :expiresAt';
const CONDITION_EXPRESSION = 'attribute_not_exists(used) OR used <= :maxBefore';
const GIVE_BACK_EXPRESSION = 'ADD used :n';
const GIVE_BACK_CONDITION = 'used >= :given';

/**
 * The state table as DynamoDB treats this one update: the request travels for `latencyMs`, then
 * the condition is checked and the counter added to in one step, then the answer travels back.
 * It refuses any other expression, so it cannot silently pass an adapter that asks for
 * something else (the real semantics are exercised against dynalite and DynamoDB Local).
 */
const fakeStateTable = (clock: FakeClock, latencyMs: () => number = () => 0) => {
  const items = new Map<string, { used: number; expiresAt: number }>();
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'ap-northeast-2',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    }),
  );
  const mock = mockClient(documents);
  mock.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    if (
      input.UpdateExpression === GIVE_BACK_EXPRESSION &&
      input.ConditionExpression === GIVE_BACK_CONDITION
    ) {
      const pk = String(input.Key?.pk);
      const { ':n': n, ':given': given } = input.ExpressionAttributeValues ?? {};
      const item = items.get(pk);
      if (typeof n !== 'number' || typeof given !== 'number' || n !== -given)
        throw new Error(`fake state table: bad values ${JSON.stringify(input)}`);
      await clock.sleep(latencyMs());
      if (item === undefined || item.used < given)
        throw new ConditionalCheckFailedException({ message: 'failed', $metadata: {} });
      items.set(pk, { ...item, used: item.used + n });
      await clock.sleep(latencyMs());
      return {};
    }
    if (
      input.UpdateExpression !== UPDATE_EXPRESSION ||
      input.ConditionExpression !== CONDITION_EXPRESSION
    ) {
      throw new Error(`fake state table: unsupported update ${JSON.stringify(input)}`);
    }
    const pk = String(input.Key?.pk);
    const values = input.ExpressionAttributeValues ?? {};
    const [n, maxBefore, expiresAt] = [values[':n'], values[':maxBefore'], values[':expiresAt']];
    if (typeof n !== 'number' || typeof maxBefore !== 'number' || typeof expiresAt !== 'number') {
      throw new Error(`fake state table: bad values ${JSON.stringify(values)}`);
    }
    await clock.sleep(latencyMs());
    const item = items.get(pk);
    if (item !== undefined && item.used > maxBefore) {
      await clock.sleep(latencyMs());
      throw new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
      });
    }
    items.set(pk, { used: (item?.used ?? 0) + n, expiresAt });
    await clock.sleep(latencyMs());
    return {};
  });
  return { documents, items, mock };
};

const limiterOn = (
  clock: FakeClock,
  table: ReturnType<typeof fakeStateTable>,
  options: Partial<DynamoDbRateLimiterOptions> = {},
) =>
  new DynamoDbRateLimiter(
    'state-table',
    { quota: 50, now: clock.now, sleep: clock.sleep, random: seeded(7), ...options },
    table.documents,
  );

/** A limiter starting at `start` (virtual time) over a fresh table whose writes take `latencyMs`. */
const limiterAt = (
  start: number,
  latencyMs?: () => number,
  options: Partial<DynamoDbRateLimiterOptions> = {},
) => {
  const clock = new FakeClock(start);
  const table = fakeStateTable(clock, latencyMs);
  const limiter = limiterOn(clock, table, options);
  /** Acquires 10 recipients with a deadline 5 s after T0, in virtual time. */
  const acquireTen = () => clock.run(limiter.acquire(10, { deadline: T0 + 5 * SECOND }));
  return { clock, table, limiter, acquireTen };
};

describe('DynamoDbRateLimiter under concurrency', () => {
  it('never hands out more than the quota in any window, and uses it', async () => {
    // Prepare: 40 containers (one limiter each) sharing one table, 5–25 ms per write, requests
    // of 1–10 recipients, each followed by a 5–40 ms gateway call, for 10 virtual seconds.
    const clock = new FakeClock(T0 + 337);
    const random = seeded(42);
    const table = fakeStateTable(clock, () => 5 + random() * 20);
    const endsAt = T0 + 10 * SECOND - 1;
    const granted: Array<{ window: number; at: number; recipients: number }> = [];
    // What each call said it counted against the quota (the QuotaRecipientsReserved metric).
    let reportedReserved = 0;
    const sender = async (id: number) => {
      const limiter = limiterOn(clock, table, { random: seeded(id) });
      for (;;) {
        const recipients = 1 + Math.floor(random() * 10);
        try {
          const { window, reserved } = await limiter.acquire(recipients, { deadline: endsAt });
          granted.push({ window, at: clock.now(), recipients });
          reportedReserved += reserved;
        } catch (error) {
          if (error instanceof RateLimitWaitExceededError) {
            reportedReserved += error.reserved;
            return limiter.stats;
          }
          throw error;
        }
        await clock.sleep(5 + random() * 35);
      }
    };

    // Act
    const stats = await clock.run(Promise.all(Array.from({ length: 40 }, (_, id) => sender(id))));

    // Assess: the subject is what the acquirers were granted, per window.
    const perWindow = new Map<number, number>();
    for (const { window, recipients } of granted) {
      perWindow.set(window, (perWindow.get(window) ?? 0) + recipients);
    }
    expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(50);
    for (const grant of granted) {
      // Each grant resolves inside its window with at least the 50 ms guard left.
      expect(grant.at).toBeGreaterThanOrEqual(grant.window * SECOND);
      expect(grant.at).toBeLessThanOrEqual((grant.window + 1) * SECOND - 50);
    }
    // Nine full windows (T0+1 s … T0+9 s); with requests of up to 10, at least 41 fit each.
    const full = [...perWindow].filter(([window]) => window > W0);
    expect(full).toHaveLength(9);
    for (const [, used] of full) expect(used).toBeGreaterThanOrEqual(41);
    // The store agrees exactly: reservations that came back inside the guard were given back,
    // none was left counted and unused.
    expect(stats.reduce((sum, s) => sum + s.abandoned, 0)).toBe(0);
    const stored = [...table.items.values()].reduce((sum, item) => sum + item.used, 0);
    const handedOut = granted.reduce((sum, grant) => sum + grant.recipients, 0);
    expect(stored).toBe(handedOut);
    // The calls' own answers add up to exactly what the windows hold.
    expect(reportedReserved).toBe(stored);
  });
});

describe('DynamoDbRateLimiter, one acquirer', () => {
  it('costs one write per acquisition while windows have room (0.1 per recipient at 10)', async () => {
    // Prepare
    const { clock, table, limiter } = limiterAt(T0 + 100, () => 3, { quota: 100 });

    // Act: 30 requests of 10, one every 250 ms: 40 of 100 per window, never full.
    const windows = await clock.run(
      (async () => {
        const seen: number[] = [];
        for (let i = 0; i < 30; i += 1) {
          seen.push((await limiter.acquire(10, { deadline: T0 + 60 * SECOND })).window);
          await clock.sleep(250);
        }
        return seen;
      })(),
    );

    // Assess
    expect(limiter.stats).toEqual({
      attempts: 30,
      reserved: 30,
      recipients: 300,
      waits: 0,
      givenBack: 0,
      abandoned: 0,
      heldAhead: 0,
    });
    expect(limiter.stats.attempts / limiter.stats.recipients).toBe(0.1);
    expect(new Set(windows).size).toBe(8);
    expect(table.items.get(`RATE#${W0}`)).toEqual({ used: 40, expiresAt: W0 + 300 });
  });

  it('waits for the next window when the current one is full, resolving as it opens', async () => {
    // Prepare: the window already holds 45 of 50.
    const { table, limiter, acquireTen } = limiterAt(T0 + 200, undefined, { jitterMs: 0 });
    table.items.set(`RATE#${W0}`, { used: 45, expiresAt: 0 });

    // Act
    const acquired = await acquireTen();

    // Assess
    expect(acquired).toEqual({ window: W0 + 1, waitedMs: 800, fullWindows: 1, reserved: 10 });
    expect(limiter.stats).toMatchObject({ attempts: 2, reserved: 1, waits: 1 });
  });
});

describe('the boundary guard', () => {
  it('reserves in the next window when less than the guard is left, and waits for it', async () => {
    // Prepare: 40 ms left in the window, guard 50 ms.
    const { clock, table, limiter, acquireTen } = limiterAt(T0 + 960, () => 2);

    // Act
    const acquired = await acquireTen();

    // Assess: nothing was counted in the closing window; the call may go out at T0+1 s.
    expect(acquired).toEqual({ window: W0 + 1, waitedMs: 40, fullWindows: 0, reserved: 10 });
    expect(clock.now()).toBe(T0 + SECOND);
    expect(table.items.has(`RATE#${W0}`)).toBe(false);
    expect(limiter.stats).toMatchObject({ attempts: 1, reserved: 1, waits: 0 });
  });

  it('uses the current window while at least the guard is left', async () => {
    const { acquireTen } = limiterAt(T0 + 940, () => 1);

    const acquired = await acquireTen();

    expect(acquired).toEqual({ window: W0, waitedMs: 2, fullWindows: 0, reserved: 10 });
  });

  it('does not use a reservation whose write ended inside the guard, and takes the next window', async () => {
    // Prepare: 60 ms left, but the write takes 10 ms each way: it answers with 40 ms left.
    const { table, limiter, acquireTen } = limiterAt(T0 + 940, () => 10);

    // Act
    const acquired = await acquireTen();

    // Assess
    // The late reservation's 10 recipients are given back: the closing window is not charged
    // for recipients that were never sent in it.
    expect(acquired).toEqual({ window: W0 + 1, waitedMs: 60, fullWindows: 0, reserved: 10 });
    expect(limiter.stats).toMatchObject({ attempts: 2, reserved: 2, givenBack: 1, abandoned: 0 });
    expect(table.items.get(`RATE#${W0}`)?.used).toBe(0);
    expect(table.items.get(`RATE#${W0 + 1}`)?.used).toBe(10);
  });

  it('with a guard of 0 uses the window to its last millisecond', async () => {
    const { acquireTen } = limiterAt(T0 + 999, undefined, { guardMs: 0 });

    const acquired = await acquireTen();

    expect(acquired.window).toBe(W0);
  });
});

describe('the arrival margin', () => {
  it('holds the recipients in the next window too when let go within the margin of the end', async () => {
    // Prepare: 200 ms left, margin 300 ms.
    const { table, limiter, acquireTen } = limiterAt(T0 + 800, () => 1, { arrivalMarginMs: 300 });

    // Act
    const acquired = await acquireTen();

    // Assess: counted in both seconds the gateway may count the request in.
    expect(acquired).toMatchObject({ window: W0, fullWindows: 0, reserved: 20 });
    expect(table.items.get(`RATE#${W0}`)?.used).toBe(10);
    expect(table.items.get(`RATE#${W0 + 1}`)?.used).toBe(10);
    expect(limiter.stats).toMatchObject({ attempts: 2, reserved: 1, heldAhead: 1 });
  });

  it('holds one window when more than the margin is left', async () => {
    const { table, limiter, acquireTen } = limiterAt(T0 + 600, () => 1, { arrivalMarginMs: 300 });

    const acquired = await acquireTen();

    expect(acquired).toMatchObject({ window: W0, reserved: 10 });
    expect(table.items.has(`RATE#${W0 + 1}`)).toBe(false);
    expect(limiter.stats.heldAhead).toBe(0);
  });

  it('with the next window full, gives the current one back and waits for the one after', async () => {
    // Prepare
    const { clock, table, limiter, acquireTen } = limiterAt(T0 + 800, () => 1, {
      arrivalMarginMs: 300,
      jitterMs: 0,
    });
    table.items.set(`RATE#${W0 + 1}`, { used: 45, expiresAt: 0 });

    // Act
    const acquired = await acquireTen();

    // Assess
    expect(acquired).toMatchObject({ window: W0 + 2, fullWindows: 1, reserved: 10 });
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 2 * SECOND);
    expect(table.items.get(`RATE#${W0}`)?.used).toBe(0);
    expect(table.items.get(`RATE#${W0 + 1}`)?.used).toBe(45);
    expect(limiter.stats).toMatchObject({ givenBack: 1, abandoned: 0, heldAhead: 0 });
  });

  it('widens the margin to the longest recent time from a reservation to its answer', async () => {
    // Prepare: no margin of its own; one request answered 700 ms after its reservation.
    const { clock, table, limiter } = limiterAt(T0 + 100, () => 1);
    const first = await clock.run(limiter.acquire(10, { deadline: T0 + 5 * SECOND }));
    await clock.run(clock.sleep(700));
    limiter.answered(first);

    // Act: the next request is let go with 600 ms left.
    await clock.run(clock.sleep(1_000 - (clock.now() - T0) + 400));
    const second = await clock.run(limiter.acquire(10, { deadline: T0 + 5 * SECOND }));

    // Assess
    expect(limiter.arrivalMargin()).toBeGreaterThanOrEqual(700);
    expect(second).toMatchObject({ window: W0 + 1, reserved: 20 });
    expect(table.items.get(`RATE#${W0 + 2}`)?.used).toBe(10);
  });

  /**
   * Senders on one table, each request travelling `transit` ms to a gateway that counts recipients
   * by the second they arrive in, as the real one does. Answers `perArrivalSecond` (recipients).
   */
  const gatewayCounts = async (
    options: Partial<DynamoDbRateLimiterOptions>,
    seed: number,
    { reportAnswers = true } = {},
  ) => {
    const clock = new FakeClock(T0 + 13);
    const random = seeded(seed);
    const table = fakeStateTable(clock, () => 2 + random() * 8);
    const endsAt = T0 + 20 * SECOND;
    const perArrivalSecond = new Map<number, number>();
    const sender = async (id: number) => {
      const limiter = limiterOn(clock, table, { random: seeded(seed * 100 + id), ...options });
      for (;;) {
        const recipients = 1 + Math.floor(random() * 10);
        try {
          const acquisition = await limiter.acquire(recipients, { deadline: endsAt });
          // Up to 400 ms on the way (a busy process, a slow network), then 20 ms to answer.
          const transit = random() * 400;
          await clock.sleep(transit);
          const second = Math.floor(clock.now() / SECOND);
          perArrivalSecond.set(second, (perArrivalSecond.get(second) ?? 0) + recipients);
          await clock.sleep(20);
          if (reportAnswers) limiter.answered(acquisition);
        } catch (error) {
          if (error instanceof RateLimitWaitExceededError) return;
          throw error;
        }
        // Bursty demand: about the quota on average, so some seconds are still open near their
        // end while the next one fills.
        await clock.sleep(random() * 1_600);
      }
    };
    await clock.run(Promise.all(Array.from({ length: 8 }, (_, id) => sender(id))));
    return perArrivalSecond;
  };

  const SEEDS = Array.from({ length: 20 }, (_, index) => index + 1);

  it('keeps every second the gateway counts within the quota when requests arrive up to the margin late', async () => {
    for (const seed of SEEDS) {
      const counted = await gatewayCounts({ arrivalMarginMs: 400 }, seed);
      expect(Math.max(...counted.values())).toBeLessThanOrEqual(50);
      // And the quota is used: many seconds are full or nearly.
      const seconds = [...counted.values()].slice(1, -1);
      expect(seconds.filter((used) => used >= 40).length).toBeGreaterThan(seconds.length / 4);
    }
  });

  it('(control) with the guard alone and no answers reported, the same late arrivals exceed the quota', async () => {
    const exceeded = await Promise.all(
      SEEDS.map(async (seed) => {
        const counted = await gatewayCounts({ arrivalMarginMs: 0 }, seed, {
          reportAnswers: false,
        });
        return Math.max(...counted.values()) > 50;
      }),
    );
    expect(exceeded.filter(Boolean).length).toBeGreaterThan(SEEDS.length / 2);
  });
});

describe('limits', () => {
  it.each([
    [51, 'more than the quota'],
    [0, 'zero'],
    [2.5, 'a fraction'],
  ])('rejects %s recipients (%s) at once, without a write', async (recipients) => {
    // Prepare
    const { table, limiter } = limiterAt(T0);

    // Act
    const error = await limiter
      .acquire(recipients, { deadline: T0 + 60 * SECOND })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(RangeError);
    expect(error).toMatchObject({
      message: expect.stringContaining(`${recipients} recipients can never fit a quota of 50`),
    });
    expect(table.mock.calls()).toHaveLength(0);
  });

  it('rejects with RateLimitWaitExceededError when the next free window opens after the deadline', async () => {
    // Prepare: the window is full and the caller can wait 500 ms, not until the next second.
    const { clock, table, limiter } = limiterAt(T0 + 300, () => 1);
    table.items.set(`RATE#${W0}`, { used: 50, expiresAt: 0 });

    // Act
    const error = await clock
      .run(limiter.acquire(10, { deadline: T0 + 800 }))
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(RateLimitWaitExceededError);
    expect(error).toMatchObject({
      name: 'RateLimitWaitExceededError',
      recipients: 10,
      deadline: T0 + 800,
      waitedMs: 2,
      nextWindow: W0 + 1,
      fullWindows: 1,
      reserved: 0,
    });
    expect(limiter.stats).toMatchObject({ attempts: 1, reserved: 0, waits: 0 });
  });

  it('does not reserve a window that only the guard would move it to, past the deadline', async () => {
    const { clock, table, limiter } = limiterAt(T0 + 970);

    const error = await clock
      .run(limiter.acquire(10, { deadline: T0 + 990 }))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RateLimitWaitExceededError);
    expect(table.mock.calls()).toHaveLength(0);
  });

  it('refuses options that cannot work, listing every problem', () => {
    const construct = () =>
      new DynamoDbRateLimiter(
        'state-table',
        { quota: 0, guardMs: 600 },
        fakeStateTable(new FakeClock(T0)).documents,
      );

    expect(construct).toThrow(RangeError);
    expect(construct).toThrow(
      /quota 0 is not a positive integer; guardMs 600 is not in \[0, 500\)/,
    );
  });
});
