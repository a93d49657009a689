import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
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
