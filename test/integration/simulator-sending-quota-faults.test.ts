import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import { mulberry32 } from '../../simulator/prng.ts';
import { callLatencyMs } from '../../simulator/server.ts';
import {
  recipients,
  send,
  sim,
  smsBody,
  startSendingSimulator,
  token,
  tokenOf,
  useSendingSimulator,
} from '../support/sending-simulator.ts';
import { callGateway } from '../support/simulator-http.ts';

useSendingSimulator();

describe('TPS quota', () => {
  let small: Simulator;
  let smallToken: string;

  beforeAll(async () => {
    small = await startSendingSimulator({ tpsQuota: 5 });
    smallToken = await tokenOf(small);
  });

  afterAll(async () => {
    await small.close();
  });

  const sendSmall = (count: number) =>
    callGateway(small, {
      method: 'POST',
      path: '/msg/v1/sms',
      token: smallToken,
      body: smsBody(recipients(count, 'tps')),
    });

  it('refuses a call whose recipients exceed the quota of the second, and accepts again a second later', async () => {
    // Prepare
    const first = await sendSmall(3);

    // Act
    const over = await sendSmall(3);
    await small.advance(1_000);
    const nextSecond = await sendSmall(3);

    // Assess
    expect(first.status).toBe(200);
    expect(over).toMatchObject({ status: 400, body: { code: '29002' } });
    expect(nextSecond.status).toBe(200);
  });

  it('counts a call in the second it arrived, though its checks finish in the next', async () => {
    // Prepare: a fresh second; the first call's answer is held back after it arrived.
    await small.advance(1_000);
    small.setFaults({ latencyMs: 600 });
    const arrivedFirst = sendSmall(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    small.setFaults({ latencyMs: 0 });

    // Act: the next second's call is checked before the first one is.
    await small.advance(1_000);
    const nextSecond = await sendSmall(3);
    const first = await arrivedFirst;

    // Assess: 3 + 3 would be over the quota of 5 in one second; they are in two.
    expect(nextSecond.status).toBe(200);
    expect(first.status).toBe(200);
  });

  it('reports the recipients counted in each second, which never exceed the quota', async () => {
    // Prepare: a fresh second.
    await small.advance(1_000);
    const second = String(Math.floor(small.clock.now() / 1000));

    // Act
    await sendSmall(3);
    await sendSmall(2);
    const refused = await sendSmall(1);

    // Assess
    expect(refused.body).toMatchObject({ code: '29002' });
    expect(small.snapshot().quotaUsedBySecond[second]).toBe(5);
  });
});

describe('latency jitter', () => {
  it('answers each call after latencyMs plus a seeded uniform draw up to latencyJitterMs', async () => {
    // Prepare: 50–150 ms, as the benchmark sets it.
    sim.setFaults({ latencyMs: 50, latencyJitterMs: 100 });

    try {
      // Act
      const times: number[] = [];
      for (let call = 0; call < 12; call++) {
        const started = performance.now();
        await send('/msg/v1/sms', smsBody(recipients(1, 'jitter')));
        times.push(performance.now() - started);
      }

      // Assess: within the range (a loaded machine may add a little), and spread over it.
      expect(Math.min(...times)).toBeGreaterThanOrEqual(49);
      expect(Math.max(...times)).toBeLessThan(400);
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(20);
    } finally {
      sim.setFaults({ latencyMs: 0, latencyJitterMs: 0 });
    }
  });

  it('draws whole milliseconds from latencyMs to latencyMs + latencyJitterMs, the same for a seed', () => {
    // Prepare
    const faults = { latencyMs: 50, latencyJitterMs: 100 };
    const draws = (seed: number) => {
      const random = mulberry32(seed);
      return Array.from({ length: 2_000 }, () => callLatencyMs(faults, random));
    };

    // Act
    const first = draws(7);
    const again = draws(7);

    // Assess
    expect(again).toEqual(first);
    expect(first.every((ms) => Number.isInteger(ms) && ms >= 50 && ms <= 150)).toBe(true);
    expect(Math.min(...first)).toBe(50);
    expect(Math.max(...first)).toBe(150);
    expect(callLatencyMs({ latencyMs: 30, latencyJitterMs: 0 }, () => 0.99)).toBe(30);
  });
});

describe('faults', () => {
  it('rateLimitBurst answers 29002 to the next N send calls only', async () => {
    // Prepare
    sim.setFaults({ rateLimitBurst: 2 });

    // Act
    const answers = [];
    for (let call = 0; call < 3; call++) {
      answers.push(await send('/msg/v1/sms', smsBody(recipients(1, 'burst'))));
    }

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 200]);
    expect(answers[0]?.body).toMatchObject({ code: '29002' });
  });

  it('POST /_sim/faults changes only the faults it names', async () => {
    // Act
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/_sim/faults',
      body: { rateLimitBurst: 1 },
    });
    const limited = await send('/msg/v1/sms', smsBody(recipients(1, 'burst')));

    // Assess
    expect(answer.body).toMatchObject({
      code: '10000',
      data: { rateLimitBurst: 1, errorRate: 0, timeoutRate: 0 },
    });
    expect(limited.body).toMatchObject({ code: '29002' });
  });

  it('errorRate 1 answers HTTP 503 with a retryable 49xxx code, but never on /_sim/', async () => {
    // Prepare
    sim.setFaults({ errorRate: 1 });

    try {
      // Act
      const answer = await send('/msg/v1/sms', smsBody(recipients(1, 'err')));
      const control = await callGateway(sim, { method: 'GET', path: '/_sim/state' });

      // Assess
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ code: expect.stringMatching(/^49\d{3}$/) });
      expect(control.status).toBe(200);
    } finally {
      sim.setFaults({ errorRate: 0 });
    }
  });

  it('timeoutRate 1 never answers, so the client timeout fires', async () => {
    // Prepare
    sim.setFaults({ timeoutRate: 1 });

    try {
      // Act
      const timedOut = callGateway(sim, {
        method: 'POST',
        path: '/msg/v1/sms',
        token,
        body: smsBody(recipients(1, 'slow')),
        headersTimeout: 300,
      });

      // Assess
      await expect(timedOut).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    } finally {
      sim.setFaults({ timeoutRate: 0 });
    }
  });

  it('counts accepted sends and recipients in the snapshot', async () => {
    // Prepare
    const before = sim.snapshot();

    // Act
    await send('/msg/v1/sms', smsBody(recipients(3, 'count')));

    // Assess
    const after = sim.snapshot();
    expect(after.sends).toBe(before.sends + 1);
    expect(after.recipientsAccepted).toBe(before.recipientsAccepted + 3);
  });
});
