import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import { createSendRecordHandler } from '../../functions/sending/handler.ts';
import { meteredRateLimiter } from '../../functions/sending/rate-limit-metrics.ts';
import {
  RateLimitWaitExceededError,
  type RateWindowStore,
  WindowedRateLimiter,
} from '../../functions/sending/rate-limiter.ts';
import { gatewayAnswering } from '../support/answering-gateway.ts';
import { FakeSendStore } from '../support/fake-send-store.ts';
import { SECOND, T0, W0 } from '../support/rate-windows.ts';

const QUOTA = 20;

/**
 * The clock the limiter reads and sleeps on, moved only by the test: `sleep` advances it at once,
 * and a store write takes `writeMs`.
 */
const manualClock = (start: number) => {
  let current = start;
  return {
    now: () => current,
    sleep: async (ms: number) => {
      current += Math.max(0, ms);
    },
    advance: (ms: number) => {
      current += ms;
    },
  };
};

/** The shared windows: one counter per epoch second, refusing what would exceed the quota. */
const windowStore = (clock: ReturnType<typeof manualClock>, writeMs = 0) => {
  const used = new Map<number, number>();
  const store: RateWindowStore = {
    tryReserve: async (window, recipients, quota) => {
      clock.advance(writeMs);
      const before = used.get(window) ?? 0;
      if (before + recipients > quota) return false;
      used.set(window, before + recipients);
      return true;
    },
    giveBack: async (window, recipients) => {
      clock.advance(writeMs);
      used.set(window, (used.get(window) ?? 0) - recipients);
    },
  };
  return { store, used };
};

const setup = (start: number, writeMs = 0) => {
  const clock = manualClock(start);
  const windows = windowStore(clock, writeMs);
  const limiter = new WindowedRateLimiter(windows.store, {
    quota: QUOTA,
    guardMs: 100,
    jitterMs: 20,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
  });
  const metrics = new Metrics({ namespace: 'msgbridge', serviceName: 'send-messages' });
  return { clock, windows, metrics, limiter: meteredRateLimiter(limiter, metrics) };
};

/** The EMF document the Lambda would print: metric definitions and their values. */
const emitted = (metrics: Metrics) => {
  const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
    _aws: {
      CloudWatchMetrics: Array<{
        Namespace: string;
        Dimensions: string[][];
        Metrics: Array<{ Name: string; Unit: string }>;
      }>;
    };
  };
  const [directive] = emf._aws.CloudWatchMetrics;
  const units = Object.fromEntries((directive?.Metrics ?? []).map((m) => [m.Name, m.Unit]));
  const values = (name: string): number[] => {
    const value = emf[name];
    return Array.isArray(value)
      ? (value as number[])
      : value === undefined
        ? []
        : [value as number];
  };
  return { directive, units, values, service: emf.service };
};

/** Every metric named in `expected` has exactly the values given there. */
const expectValues = (metrics: Metrics, expected: Record<string, number[]>) => {
  const { values } = emitted(metrics);
  expect(Object.fromEntries(Object.keys(expected).map((name) => [name, values(name)]))).toEqual(
    expected,
  );
};

describe('meteredRateLimiter', () => {
  it('reports a request that went straight through: no wait, its recipients reserved', async () => {
    // Prepare: 200 ms into a window, the write takes 4 ms.
    const { limiter, metrics } = setup(T0 + 200, 4);

    // Act
    await limiter.acquire(7, { deadline: T0 + 5 * SECOND });

    // Assess
    const { directive, units, service } = emitted(metrics);
    expect(directive?.Namespace).toBe('msgbridge');
    expect(directive?.Dimensions).toEqual([['service']]);
    expect(service).toBe('send-messages');
    expect(units).toEqual({
      RateLimitWaitMilliseconds: 'Milliseconds',
      RateLimitWaits: 'Count',
      RateLimitWaitsExceeded: 'Count',
      QuotaRecipientsReserved: 'Count',
    });
    expectValues(metrics, {
      RateLimitWaitMilliseconds: [4],
      RateLimitWaits: [0],
      RateLimitWaitsExceeded: [0],
      QuotaRecipientsReserved: [7],
    });
  });

  it('reports the time a request waited for the next window when its own was full', async () => {
    // Prepare: 15 of 20 already used in this window; the request needs 10.
    const { limiter, metrics, windows } = setup(T0 + 300);
    windows.used.set(W0, 15);

    // Act
    const acquisition = await limiter.acquire(10, { deadline: T0 + 5 * SECOND });

    // Assess: it slept to the next window plus half the 20 ms jitter.
    expect(acquisition.window).toBe(W0 + 1);
    expectValues(metrics, {
      RateLimitWaitMilliseconds: [710],
      RateLimitWaits: [1],
      RateLimitWaitsExceeded: [0],
      QuotaRecipientsReserved: [10],
    });
  });

  it("does not count a reservation given back at a window's end as quota used", async () => {
    // Prepare: 150 ms left; the 60 ms write answers inside the 100 ms guard.
    const { limiter, metrics, windows } = setup(T0 + 850, 60);

    // Act
    await limiter.acquire(5, { deadline: T0 + 5 * SECOND });

    // Assess: the closing window gets its 5 recipients back; the next one holds them.
    expect(windows.used.get(W0)).toBe(0);
    expect(windows.used.get(W0 + 1)).toBe(5);
    expectValues(metrics, {
      QuotaRecipientsReserved: [5],
      RateLimitWaitMilliseconds: [180],
      RateLimitWaits: [0],
    });
  });

  it('reports a request that gave up at its deadline, and still rejects it', async () => {
    // Prepare: the window is full and the deadline comes before the next one opens.
    const { limiter, metrics, windows } = setup(T0 + 400, 3);
    windows.used.set(W0, QUOTA);

    // Act
    const error = await limiter.acquire(4, { deadline: T0 + 900 }).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(RateLimitWaitExceededError);
    expectValues(metrics, {
      RateLimitWaitMilliseconds: [3],
      RateLimitWaits: [1],
      RateLimitWaitsExceeded: [1],
      QuotaRecipientsReserved: [0],
    });
  });

  it('emits nothing and rethrows when the request can never fit the quota', async () => {
    const { limiter, metrics } = setup(T0 + 100);

    await expect(limiter.acquire(QUOTA + 1, { deadline: T0 + SECOND })).rejects.toBeInstanceOf(
      RangeError,
    );
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});

describe('send-messages rate-limit metrics', () => {
  const record = (messageId: string, recipients: number): SQSRecord =>
    ({
      messageId,
      receiptHandle: `handle-${messageId}`,
      body: JSON.stringify({ channel: 'sms', ...smsBody(recipients) }),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
    }) as unknown as SQSRecord;

  it('emits one value per send request: waits, their times and the recipients reserved', async () => {
    // Prepare: a quota of 20 per second, requests of 10, 10 and 5 recipients in one second.
    const { clock, limiter, metrics, windows } = setup(T0 + 100, 2);
    const handler = createSendRecordHandler({
      deps: () => ({
        store: new FakeSendStore(),
        awaiting: new FakeSendStore(),
        acceptedEvents: false,
        gateway: gatewayAnswering('10000'),
        rateLimiter: limiter,
        now: () => new Date(clock.now()),
        retentionDays: 35,
        claimLeaseMs: 60_000,
        deadline: clock.now() + 10 * SECOND,
      }),
      maxReceiveCount: 6,
      delayRedelivery: async () => {},
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics,
    });

    // Act
    for (const [id, recipients] of [
      ['a', 10],
      ['b', 10],
      ['c', 5],
    ] as const)
      await handler(record(id, recipients), 30_000);

    // Assess: the third found the window full (asked at T0+104 ms, refused at T0+106 ms) and
    // waited for the next one: T0+1 s plus 10 ms of jitter, then its own 2 ms write.
    expect([...windows.used]).toEqual([
      [W0, 20],
      [W0 + 1, 5],
    ]);
    expectValues(metrics, {
      RateLimitWaitMilliseconds: [2, 2, 908],
      RateLimitWaits: [0, 0, 1],
      RateLimitWaitsExceeded: [0, 0, 0],
      QuotaRecipientsReserved: [10, 10, 5],
      RecipientsAccepted: [10, 10, 5],
    });
  });
});
