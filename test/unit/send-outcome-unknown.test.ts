import { describe, expect, it } from 'vitest';
import type { RecipientResult } from '../../functions/send-records/ports.ts';
import { sendRecordKey } from '../../functions/send-records/send-record.ts';
import type { SendDeps } from '../../functions/sending/ports.ts';
import {
  type RateLimiter,
  RateLimitWaitExceededError,
} from '../../functions/sending/rate-limiter.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import type { SendOutcome } from '../../gateway/client.ts';
import {
  GatewayDuplicateError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayResponseError,
  GatewayRetryableError,
  GatewayTransportError,
} from '../../gateway/errors.ts';
import { formatKst } from '../../protocol/kst.ts';
import {
  type Answer,
  accept,
  acceptAll,
  delivery,
  NOW,
  ScriptedGateway,
  sendSetup,
  sms,
} from '../support/send-use-case-world.ts';

/** Counts what it was asked for, like the shared limiter's reservations. */
const countingLimiter = () => {
  const reserved: number[] = [];
  const limiter: RateLimiter = {
    acquire: async (recipients) => {
      reserved.push(recipients);
      return { waitedMs: 0, window: 0, fullWindows: 0, reserved: recipients };
    },
  };
  return { limiter, reserved };
};

/** A limiter with no quota before any deadline: every reservation of `recipients` fails. */
const noQuota = (recipients: number): RateLimiter => ({
  acquire: async () => {
    throw new RateLimitWaitExceededError(recipients, NOW.getTime(), 0, 0);
  },
});

const setup = (gateway: ScriptedGateway, overrides: Partial<SendDeps> = {}) =>
  sendSetup(gateway, countingLimiter().limiter, overrides);

const keysOf = (message: ReturnType<typeof sms>) => message.recvInfoLst.map((r) => r.cliKey);

describe('a send whose outcome is unknown on its last delivery', () => {
  it.each([
    [
      'a timeout',
      new GatewayTransportError('timeout', { code: 'TIMEOUT', message: 'slow', endpoint: 'e' }),
    ],
    [
      'a lost connection',
      new GatewayTransportError('connection', {
        code: 'ECONNRESET',
        message: 'reset',
        endpoint: 'e',
      }),
    ],
    [
      'an unreadable answer',
      new GatewayResponseError({
        code: 'INVALID_RESPONSE',
        message: 'html',
        endpoint: 'e',
        httpStatus: 200,
      }),
    ],
    [
      'an HTTP 504',
      new GatewayRetryableError({
        code: '504',
        message: 'gateway timeout',
        endpoint: 'e',
        httpStatus: 504,
      }),
    ],
  ])('records %s as an unknown outcome, never as a rejection', async (_, error) => {
    // Prepare
    const gateway = new ScriptedGateway(() => error);
    const { store, deps } = setup(gateway);
    const message = sms(2);

    // Act
    const result = await sendQueuedMessage(delivery(message, 6), deps);

    // Assess
    expect(result).toMatchObject({ kind: 'done', rejected: 0, unknown: 2 });
    expect(store.details('Message Rejected')).toHaveLength(0);
    expect([...store.unknown.keys()]).toEqual(keysOf(message));
    expect(store.unknown.get(keysOf(message)[0] ?? '')).toMatchObject({
      channel: 'sms',
      sqsMessageId: 'sqs-1',
      attemptedAt: NOW.toISOString(),
      code: error.code,
    });
    // Given back, so that a resend of the same cliKey (safe: a duplicate answers "accepted") may go.
    expect([...store.claims.values()].every((claim) => claim.until === 0)).toBe(true);
  });

  it('marks the unknown outcome of a scheduled send as scheduled, and only that one', async () => {
    // A scheduled recipient's acceptance is published whatever acceptedEvents says, with no
    // report check: reconcile-status reads the mark when it resolves it.
    const timeout = () =>
      new GatewayTransportError('timeout', { code: 'TIMEOUT', message: 'slow', endpoint: 'e' });
    const resvReqDt = formatKst(NOW.getTime() + 86_400_000, 'YYYY-MM-DD HH:mm');
    const scheduled = setup(new ScriptedGateway(timeout));
    const now = setup(new ScriptedGateway(timeout));
    const message = sms(1);

    await sendQueuedMessage(delivery({ ...message, resvYn: 'Y', resvReqDt }, 6), scheduled.deps);
    await sendQueuedMessage(delivery(message, 6), now.deps);

    const key = keysOf(message)[0] ?? '';
    expect(scheduled.store.unknown.get(key)).toMatchObject({ code: 'TIMEOUT', scheduled: true });
    expect(now.store.unknown.get(key)).toMatchObject({ code: 'TIMEOUT' });
    expect(now.store.unknown.get(key)).not.toHaveProperty('scheduled');
  });

  it('still records an explicit retryable refusal on the last delivery as retries-exhausted', async () => {
    const gateway = new ScriptedGateway(
      () =>
        new GatewayRetryableError({ code: '29019', message: 'db', endpoint: 'e', httpStatus: 200 }),
    );
    const { store, deps } = setup(gateway);

    const result = await sendQueuedMessage(delivery(sms(1), 6), deps);

    expect(result).toMatchObject({ kind: 'done', rejected: 1, unknown: 0 });
    expect(store.details('Message Rejected')[0]?.data).toMatchObject({
      category: 'retries-exhausted',
    });
  });

  it('records a recipient the last answer did not mention as unknown', async () => {
    const gateway = new ScriptedGateway((keys) => acceptAll(keys.slice(0, 1)));
    const { store, deps } = setup(gateway);
    const message = sms(2);

    const result = await sendQueuedMessage(delivery(message, 6), deps);

    expect(result).toMatchObject({ kind: 'done', accepted: 1, unknown: 1 });
    expect([...store.unknown.keys()]).toEqual([keysOf(message)[1]]);
    expect(store.details('Message Rejected')).toHaveLength(0);
  });

  it('does not resend a recipient whose outcome reconcile-status stored before the claim', async () => {
    // Prepare: an earlier attempt left the record; the status query then decided the first recipient.
    const gateway = new ScriptedGateway((keys) => acceptAll(keys));
    const { store, deps } = setup(gateway);
    const message = sms(2);
    const [first, second] = keysOf(message);
    await store.claim(sendRecordKey(keysOf(message)), 'earlier', 0);
    store.events.set(`SEND#${first}|OUTCOME`, {
      pk: `SEND#${first}`,
      sk: 'OUTCOME',
      kind: 'send',
      detailType: 'Message Rejected',
      detail: '{}',
      eventId: 'x',
      receivedAt: NOW.toISOString(),
      expiresAt: 0,
    });

    // Act
    const result = await sendQueuedMessage(delivery(message, 2), deps);

    // Assess
    expect(gateway.calls).toEqual([[second]]);
    expect(result).toMatchObject({ kind: 'done', accepted: 1, skipped: 1 });
  });

  it('reads no outcomes for a message whose send record its claim created', async () => {
    const gateway = new ScriptedGateway((keys) => acceptAll(keys));
    const { store, deps } = setup(gateway);
    let reads = 0;
    const read = store.recordedOutcomes.bind(store);
    store.recordedOutcomes = async (keys) => {
      reads += 1;
      return read(keys);
    };

    const first = await sendQueuedMessage(delivery(sms(3)), deps);

    expect(first).toMatchObject({ kind: 'done', accepted: 3 });
    expect(reads).toBe(0);
  });
});

describe('the send claim', () => {
  it('is held by one attempt only, even when two deliveries carry the same receive count', async () => {
    // Prepare: a visibility expiry hands the same message to two invocations, both with
    // ApproximateReceiveCount 2; the first is still waiting for the gateway.
    let answer: (value: SendOutcome<RecipientResult>) => void = () => {};
    const pending = new Promise<SendOutcome<RecipientResult>>((resolve) => {
      answer = resolve;
    });
    const gateway = new ScriptedGateway((keys, call) => (call === 1 ? pending : acceptAll(keys)));
    const { store, deps } = setup(gateway);
    const message = sms(2);

    // Act
    const first = sendQueuedMessage(delivery(message, 2), deps);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = await sendQueuedMessage(delivery(message, 2), deps);
    answer(acceptAll(keysOf(message)));
    await first;

    // Assess
    expect(second).toMatchObject({ kind: 'retry', pending: 2 });
    expect(gateway.calls).toHaveLength(1);
    expect(store.details('Message Accepted')).toHaveLength(2);
  });
});

describe('a duplicate-key answer to a scheduled send', () => {
  const scheduled = (count: number) => ({
    ...sms(count),
    resvYn: 'Y',
    resvReqDt: formatKst(NOW.getTime() + 86_400_000, 'YYYY-MM-DD HH:mm'),
  });

  it('marks as accepted only the recipient the gateway already had, and schedules the others', async () => {
    // Prepare: the first recipient was scheduled by an attempt that died before recording it.
    // The gateway refuses any request that contains it with 29024 and no per-recipient list.
    const message = scheduled(3);
    const [known] = keysOf(message);
    const gateway = new ScriptedGateway((keys) =>
      keys.includes(known ?? '')
        ? new GatewayDuplicateError({
            code: '29024',
            message: 'dup',
            endpoint: 'e',
            httpStatus: 200,
          })
        : { kind: 'scheduled', regDt: '2026-11-21 09:00:00', webReqId: `W-${keys.join(',')}` },
    );
    const { limiter, reserved } = countingLimiter();
    const { store, deps } = setup(gateway, { rateLimiter: limiter });

    // Act
    const result = await sendQueuedMessage(delivery(message, 2), deps);

    // Assess
    expect(result).toMatchObject({ kind: 'done', accepted: 1, scheduled: 2 });
    expect(store.details('Message Accepted').map((e) => e.data.cliKey)).toEqual([known]);
    expect(store.details('Message Scheduled').map((e) => e.data.cliKey)).toEqual(
      keysOf(message).slice(1),
    );
    // Every request that reached the gateway had its recipients reserved.
    const sent = gateway.calls.reduce((sum, call) => sum + call.length, 0);
    expect(reserved.reduce((sum, n) => sum + n, 0)).toBe(sent);
  });
});

describe('an attempt that died holding its claim', () => {
  const quotaRefusal = () =>
    new GatewayRejectedError({
      code: '29018',
      message: 'send quota exceeded',
      endpoint: 'e',
      httpStatus: 200,
    });

  /**
   * One recipient whose claim by the dead attempt `dead` (of `sqs-1`) expired without being given
   * back, and a gateway that refuses every send with 29018.
   */
  const expiredClaimThenQuotaRefusal = async (dead: number) => {
    const message = sms(1);
    const [only = ''] = keysOf(message);
    const { store, deps } = setup(new ScriptedGateway(() => quotaRefusal()));
    await store.claim(sendRecordKey([only]), `${dead}#dead`, NOW.getTime() - 1);
    return { message, only, store, deps };
  };

  it('leaves the recipients of a message another attempt still holds on the last delivery as unknown outcomes, not lost in the DLQ', async () => {
    // Prepare: the attempt before died after the gateway accepted; its claim outlives the rest.
    const message = sms(2);
    const keys = keysOf(message);
    const gateway = new ScriptedGateway(acceptAll);
    const { store, deps } = setup(gateway);
    await store.claim(sendRecordKey(keys), '5#dead', NOW.getTime() + 60_000);

    // Act
    const result = await sendQueuedMessage(delivery(message, 6), deps);

    // Assess: nothing is sent; both are handed to reconcile-status, naming the record.
    expect(gateway.calls).toEqual([]);
    expect(result).toMatchObject({ kind: 'retry', pending: 2 });
    expect([...store.unknown.keys()]).toEqual(keys);
    expect(store.unknown.get(keys[0] ?? '')).toMatchObject({
      code: 'CLAIMED',
      record: sendRecordKey(keys),
    });
    expect(store.details('Message Rejected')).toEqual([]);
  });

  it('does not publish a refusal of the resend as a rejection: the dead attempt may have been accepted', async () => {
    // Prepare: a claim that expired without being given back, then a resend refused with 29018.
    const { message, only, store, deps } = await expiredClaimThenQuotaRefusal(1);

    // Act
    const second = await sendQueuedMessage(delivery(message, 2), deps);

    // Assess: tried again later, the claim kept so the next delivery still distrusts a refusal.
    expect(second).toMatchObject({ kind: 'retry' });
    expect(store.details('Message Rejected')).toEqual([]);
    expect(store.claims.get(`SEND#${only}`)?.until).toBeGreaterThan(0);
  });

  it('hands such a refusal on the last delivery to the status query', async () => {
    const { message, only, store, deps } = await expiredClaimThenQuotaRefusal(5);

    const last = await sendQueuedMessage(delivery(message, 6), deps);

    expect(last).toMatchObject({ kind: 'done', rejected: 0, unknown: 1 });
    expect(store.details('Message Rejected')).toEqual([]);
    expect(store.unknown.get(only ?? '')).toMatchObject({ code: '29018' });
  });

  it('still publishes a refusal as a rejection when no earlier attempt held the recipient', async () => {
    const message = sms(1);
    const gateway = new ScriptedGateway(() => quotaRefusal());
    const { store, deps } = setup(gateway);

    const result = await sendQueuedMessage(delivery(message, 1), deps);

    expect(result).toMatchObject({ kind: 'done', rejected: 1 });
    expect(store.details('Message Rejected')).toHaveLength(1);
  });

  /**
   * A pair the gateway answers as a duplicate, so each is sent alone: the first is accepted, then
   * the quota of the second fails with an error that is not the gateway's (`failAtAcquire`); a
   * later request of the pair is refused `29039`.
   */
  const failingAfterAcceptance = (failAtAcquire: number) => {
    const message = sms(2);
    const keys = keysOf(message);
    const gateway = new ScriptedGateway((cliKeys, call) =>
      call === 1
        ? new GatewayDuplicateError({ code: '29024', message: 'duplicate key', endpoint: 'e' })
        : call === 2
          ? acceptAll(cliKeys)
          : new GatewayRejectedError({
              code: '29039',
              message: 'no response data',
              endpoint: 'e',
              httpStatus: 200,
            }),
    );
    let acquired = 0;
    const { store, deps } = setup(gateway, {
      rateLimiter: {
        acquire: async (recipients) => {
          acquired += 1;
          if (acquired === failAtAcquire) throw new Error('quota counter unavailable');
          return { waitedMs: 0, window: 0, fullWindows: 0, reserved: recipients };
        },
      },
    });
    return { message, keys, gateway, store, deps };
  };

  it('keeps its claim when it fails after a request went out, and the next delivery distrusts a refusal', async () => {
    // Prepare
    const { message, keys, gateway, store, deps } = failingAfterAcceptance(3);

    // Act: the first delivery fails after the gateway accepted the first recipient alone.
    const first = sendQueuedMessage(delivery(message, 1), deps);
    await expect(first).rejects.toThrow('quota counter unavailable');
    const claimAfterFailure = store.claims.get(sendRecordKey(keys).pk)?.until;
    store.now = () => NOW.getTime() + 120_000; // the failed attempt's claim has lapsed
    const second = await sendQueuedMessage(delivery(message, 2), deps);

    // Assess: the accepted recipient is never published as rejected; both are tried again.
    expect(gateway.calls).toEqual([keys, keys.slice(0, 1), keys]);
    expect(claimAfterFailure).toBeGreaterThan(0);
    expect(second).toMatchObject({ kind: 'retry', pending: 2 });
    expect(store.details('Message Rejected')).toEqual([]);
  });

  it('gives its claim back when it fails before any request went out', async () => {
    const { message, keys, gateway, store, deps } = failingAfterAcceptance(1);

    await expect(sendQueuedMessage(delivery(message, 1), deps)).rejects.toThrow(
      'quota counter unavailable',
    );

    expect(gateway.calls).toEqual([]);
    expect(store.claims.get(sendRecordKey(keys).pk)?.until).toBe(0);
  });

  it('leaves recipients without quota on the last delivery as unknown outcomes', async () => {
    const message = sms(2);
    const gateway = new ScriptedGateway(acceptAll);
    const { store, deps } = setup(gateway, { rateLimiter: noQuota(2) });

    const result = await sendQueuedMessage(delivery(message, 6), deps);

    expect(gateway.calls).toEqual([]);
    expect(result).toMatchObject({ kind: 'retry' });
    expect([...store.unknown.values()].map((u) => u.code)).toEqual(['NO_QUOTA', 'NO_QUOTA']);
  });
});

describe('a recipient the gateway may already have, and a later refusal of its resend', () => {
  const refused = (code: string) =>
    new GatewayRejectedError({
      code,
      message: 'send quota exceeded',
      endpoint: 'e',
      httpStatus: 200,
    });
  const timeout = () =>
    new GatewayTransportError('timeout', { code: 'TIMEOUT', message: 'slow', endpoint: 'e' });
  const rateLimited = () =>
    new GatewayRateLimitedError({ code: '29002', message: 'tps', endpoint: 'e', httpStatus: 400 });
  const duplicate = () =>
    new GatewayDuplicateError({ code: '29024', message: 'duplicate key', endpoint: 'e' });
  /** Answers every recipient but the last: the last is not mentioned. */
  const answerAllButLast = (keys: string[]) => accept(keys.slice(0, -1));

  // Each row: what the gateway answers call by call, the deliveries (receive counts) the message
  // gets, and the recipients it carries. A refusal after an answer that did not say (or after a
  // claim taken over) must never be published as a rejection.
  it.each<[string, readonly ((keys: string[]) => Answer)[], readonly number[], number]>([
    ['a timeout, then a quota refusal', [timeout, () => refused('29018')], [1, 2], 1],
    [
      'a timeout, then a quota refusal on the last delivery',
      [timeout, () => refused('29018')],
      [5, 6],
      1,
    ],
    [
      'a recipient the answer did not mention, then a refusal',
      [answerAllButLast, () => refused('29039')],
      [1, 2],
      2,
    ],
    [
      'a duplicate answer to a pair, then a refusal of each alone',
      [duplicate, () => refused('29018'), () => refused('29018')],
      [1],
      2,
    ],
    [
      'a timeout, then a rate-limited resend, then a refusal on the last delivery',
      [timeout, rateLimited, () => refused('29018')],
      [4, 5, 6],
      1,
    ],
  ])('%s', async (_, answers, receiveCounts, recipients) => {
    // Prepare
    const message = sms(recipients);
    const gateway = new ScriptedGateway((keys, call) => {
      const answer = answers[call - 1] ?? expect.fail(`no answer scripted for call ${call}`);
      return answer(keys);
    });
    const { store, deps } = setup(gateway);

    // Act
    const results = [];
    for (const count of receiveCounts)
      results.push(await sendQueuedMessage(delivery(message, count), deps));

    // Assess: every call scripted was made, and nothing the gateway may have was called rejected.
    expect(gateway.calls).toHaveLength(answers.length);
    expect(store.details('Message Rejected')).toEqual([]);
    const last = results.at(-1);
    if (receiveCounts.at(-1) === 6) {
      expect(last).toMatchObject({ rejected: 0 });
      expect(store.unknown.size).toBeGreaterThan(0);
    } else {
      expect(last).toMatchObject({ kind: 'retry' });
      // Given back marked as maybe sent: the next delivery may claim it at once, and takes it over.
      expect(store.claims.get(sendRecordKey(keysOf(message)).pk)?.until).toBe(1);
    }
  });

  it('gives a claim back unmarked when the gateway refused the whole request it was sent once', async () => {
    const gateway = new ScriptedGateway(() => rateLimited());
    const { store, deps } = setup(gateway);
    const message = sms(1);

    const result = await sendQueuedMessage(delivery(message, 1), deps);

    expect(result).toMatchObject({ kind: 'retry' });
    expect(store.claims.get(sendRecordKey(keysOf(message)).pk)?.until).toBe(0);
  });

  it('gives a taken-over claim back marked when no quota lets it resend', async () => {
    const message = sms(1);
    const gateway = new ScriptedGateway(acceptAll);
    const { store, deps } = setup(gateway, { rateLimiter: noQuota(1) });
    await store.claim(sendRecordKey(keysOf(message)), '1#dead', NOW.getTime() - 1);

    const result = await sendQueuedMessage(delivery(message, 2), deps);

    expect(result).toMatchObject({ kind: 'retry' });
    expect(gateway.calls).toEqual([]);
    expect(store.claims.get(sendRecordKey(keysOf(message)).pk)?.until).toBe(1);
  });
});
