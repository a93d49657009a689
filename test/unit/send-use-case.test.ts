import { describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import { sendRecordKey } from '../../functions/send-records/send-record.ts';
import type { SendDeps } from '../../functions/sending/ports.ts';
import {
  type RateLimiter,
  RateLimitWaitExceededError,
} from '../../functions/sending/rate-limiter.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import {
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayTransportError,
} from '../../gateway/errors.ts';
import { formatKst } from '../../protocol/kst.ts';
import {
  accept,
  deliverTwice,
  delivery,
  NOW,
  ScriptedGateway,
  sendSetup,
  sms,
  UNLIMITED,
} from '../support/send-use-case-world.ts';

const setup = (gateway: ScriptedGateway, overrides: Partial<SendDeps> = {}) =>
  sendSetup(gateway, UNLIMITED, overrides);

describe('sendQueuedMessage', () => {
  it('sends once and records one accepted event per recipient', async () => {
    // Prepare
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const { store, deps } = setup(gateway);
    const message = sms(3);

    // Act
    const result = await sendQueuedMessage(delivery(message), deps);

    // Assess
    expect(result).toEqual({
      kind: 'done',
      accepted: 3,
      rejected: 0,
      scheduled: 0,
      unknown: 0,
      skipped: 0,
    });
    expect(gateway.calls).toHaveLength(1);
    const events = store.details('Message Accepted');
    expect(events.map((e) => e.data.cliKey)).toEqual(message.recvInfoLst.map((r) => r.cliKey));
    expect(events[0]?.data).toMatchObject({
      channel: 'sms',
      msgKey: `M-${message.recvInfoLst[0]?.cliKey}`,
      alreadyAccepted: false,
      sqsMessageId: 'sqs-1',
    });
    expect(events[0]?.metadata).toMatchObject({ via: 'send-queue', type: 'Message Accepted' });
  });

  it('never calls the gateway again for recipients already decided when the message is redelivered', async () => {
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const { deps } = setup(gateway);
    const message = sms(2);

    const [, again] = await deliverTwice(message, deps);

    expect(again).toMatchObject({ kind: 'done', skipped: 2, accepted: 0 });
    expect(gateway.calls).toHaveLength(1);
  });

  it('retries only the recipients that failed retryably, as a new request with the same cliKeys', async () => {
    const gateway = new ScriptedGateway((keys, call) =>
      accept(keys, (_, index) => (call === 1 && index === 1 ? '29019' : '10000')),
    );
    const { store, deps } = setup(gateway);
    const message = sms(3);

    const [first, second] = await deliverTwice(message, deps);

    expect(first).toMatchObject({ kind: 'retry', pending: 1 });
    expect(second).toMatchObject({ kind: 'done', accepted: 1, skipped: 2 });
    expect(gateway.calls[1]).toEqual([message.recvInfoLst[1]?.cliKey]);
    expect(store.details('Message Accepted')).toHaveLength(3);
  });

  it('records a permanent per-recipient failure as rejected and does not retry it', async () => {
    const gateway = new ScriptedGateway((keys) =>
      accept(keys, (_, index) => (index === 0 ? '21013' : '10000')),
    );
    const { store, deps } = setup(gateway);

    const result = await sendQueuedMessage(delivery(sms(2)), deps);

    expect(result).toMatchObject({ kind: 'done', accepted: 1, rejected: 1 });
    expect(store.details('Message Rejected')[0]?.data).toMatchObject({
      code: '21013',
      category: 'permanent',
    });
  });

  it('reads a duplicate-family answer as already accepted', async () => {
    const gateway = new ScriptedGateway((keys) => accept(keys, () => '29024'));
    const { store, deps } = setup(gateway);

    await sendQueuedMessage(delivery(sms(1)), deps);

    expect(store.details('Message Accepted')[0]?.data).toMatchObject({
      alreadyAccepted: true,
      code: '29024',
    });
  });

  it.each([
    [
      'the rate limit (29002)',
      new GatewayRateLimitedError({
        code: '29002',
        message: 'tps',
        endpoint: 'e',
        httpStatus: 400,
      }),
    ],
    [
      'a timeout',
      new GatewayTransportError('timeout', { code: 'TIMEOUT', message: 'slow', endpoint: 'e' }),
    ],
  ])(
    'returns the whole message for a retry on %s, and the retry goes through',
    async (_, error) => {
      const gateway = new ScriptedGateway((keys, call) => (call === 1 ? error : accept(keys)));
      const { store, deps } = setup(gateway);
      const message = sms(2);

      const [first, second] = await deliverTwice(message, deps);

      expect(first).toMatchObject({ kind: 'retry', pending: 2 });
      expect(second).toMatchObject({ kind: 'done', accepted: 2 });
      expect(store.details('Message Accepted')).toHaveLength(2);
    },
  );

  it('records every recipient as rejected when the gateway rejects the whole request', async () => {
    const gateway = new ScriptedGateway(
      () =>
        new GatewayRejectedError({ code: '21024', message: 'bad', endpoint: 'e', httpStatus: 400 }),
    );
    const { store, deps } = setup(gateway);

    const result = await sendQueuedMessage(delivery(sms(2)), deps);

    expect(result).toMatchObject({ kind: 'done', rejected: 2 });
    expect(store.details('Message Rejected').map((e) => e.data.code)).toEqual(['21024', '21024']);
  });

  it('gives up on the last delivery with a retries-exhausted rejection instead of a DLQ entry', async () => {
    const gateway = new ScriptedGateway((keys) => accept(keys, () => '29019'));
    const { store, deps } = setup(gateway);

    const result = await sendQueuedMessage(delivery(sms(1), 6), deps);

    expect(result).toMatchObject({ kind: 'done', rejected: 1 });
    expect(store.details('Message Rejected')[0]?.data).toMatchObject({
      category: 'retries-exhausted',
      code: '29019',
    });
  });

  it('stores one send-rejected event listing every problem, and calls nothing', async () => {
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const { store, deps } = setup(gateway);
    const message = { ...sms(1), msg: '가'.repeat(46), callback: undefined };

    const result = await sendQueuedMessage(delivery(message), deps);
    await sendQueuedMessage(delivery(message), deps);

    expect(result.kind).toBe('invalid');
    expect(gateway.calls).toHaveLength(0);
    const [rejected, ...others] = store.details('Send Rejected');
    expect(others).toHaveLength(0);
    const problems = (rejected?.data.problems ?? []) as Array<{ path: string }>;
    expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(['$.msg', '$.callback']));
    expect(rejected?.data.cliKeys).toEqual([message.recvInfoLst[0]?.cliKey]);
  });

  it('rejects a body that is not JSON', async () => {
    const { store, deps } = setup(new ScriptedGateway((keys) => accept(keys)));

    await sendQueuedMessage(delivery('{not json'), deps);

    expect(store.details('Send Rejected')[0]?.data.problems).toEqual([
      { path: '$', message: expect.stringContaining('not JSON') },
    ]);
  });

  it('leaves a message whose send record a live attempt holds alone and asks to be delivered again', async () => {
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const { store, deps } = setup(gateway);
    const message = sms(2);
    await store.claim(
      sendRecordKey(message.recvInfoLst.map((r) => r.cliKey)),
      'other-attempt',
      NOW.getTime() + 10_000,
    );

    const result = await sendQueuedMessage(delivery(message), deps);

    expect(result).toMatchObject({ kind: 'retry', pending: 2 });
    expect(gateway.calls).toEqual([]);
  });

  it('claims one send record per message, under its smallest cliKey, and lists the acceptances there', async () => {
    // Prepare
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const { store, deps } = setup(gateway, { acceptedEvents: false });
    const message = {
      channel: 'sms',
      ...smsBody(3),
    };
    const keys = ['k-c', 'k-a', 'k-b'];
    message.recvInfoLst = message.recvInfoLst.map((r, i) => ({ ...r, cliKey: keys[i] ?? '' }));

    // Act
    const result = await sendQueuedMessage(delivery(message), deps);

    // Assess: one record, released, listing all three; one report check; no outcome items.
    expect(result).toMatchObject({ kind: 'done', accepted: 3 });
    expect([...store.records.keys()]).toEqual(['SEND#k-a']);
    expect([...(store.records.get('SEND#k-a')?.keys() ?? [])].sort()).toEqual(keys.sort());
    expect(store.claims.get('SEND#k-a')?.until).toBe(0);
    expect(store.events.size).toBe(0);
    expect(store.checks).toEqual([
      {
        channel: 'sms',
        acceptedAt: NOW.toISOString(),
        recipients: ['k-c', 'k-a', 'k-b'].map((cliKey) => ({ cliKey, msgKey: `M-${cliKey}` })),
      },
    ]);
  });

  it('takes over a claim whose holder crashed after the gateway accepted, and reads the duplicate as accepted', async () => {
    // The first attempt's call was accepted, then it died before recording: its claim expires.
    const gateway = new ScriptedGateway((keys) => accept(keys, () => '29005'));
    const { store, deps } = setup(gateway);
    const message = sms(1);
    await store.claim(
      sendRecordKey(message.recvInfoLst.map((r) => r.cliKey)),
      'crashed-attempt',
      NOW.getTime() - 1,
    );

    const result = await sendQueuedMessage(delivery(message, 2), deps);

    expect(result).toMatchObject({ kind: 'done', accepted: 1 });
    expect(store.details('Message Accepted')[0]?.data).toMatchObject({
      alreadyAccepted: true,
      msgKey: expect.any(String),
    });
  });

  it('returns the message to the queue when no quota is left before the deadline, releasing its claims', async () => {
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const busyQuota: RateLimiter = {
      acquire: async (n, { deadline }) => {
        throw new RateLimitWaitExceededError(n, deadline, 0, 0);
      },
    };
    const { store, deps } = setup(gateway, { rateLimiter: busyQuota });
    const message = sms(2);

    const result = await sendQueuedMessage(delivery(message), deps);

    expect(result).toMatchObject({ kind: 'retry', pending: 2 });
    expect(gateway.calls).toHaveLength(0);
    expect([...store.claims.values()].every((claim) => claim.until === 0)).toBe(true);
  });

  it('validates a redelivered scheduled send as of the time it was queued', async () => {
    // Queued a minute before its time; delivered again (for a retried recipient) after it.
    const gateway = new ScriptedGateway((keys, call) =>
      call === 1 ? accept(keys, (_, i) => (i === 0 ? '10000' : '29019')) : accept(keys),
    );
    const queuedAt = new Date(NOW.getTime() - 120_000);
    const resvReqDt = formatKst(NOW.getTime() - 60_000, 'YYYY-MM-DD HH:mm');
    const { store, deps } = setup(gateway);
    const message = { ...sms(2), resvYn: 'Y', resvReqDt };

    const later = await sendQueuedMessage({ ...delivery(message, 2), sentAt: queuedAt }, deps);

    expect(later.kind).not.toBe('invalid');
    expect(store.details('Send Rejected')).toHaveLength(0);
  });

  it('records a scheduled send once per recipient with the webReqId', async () => {
    const gateway = new ScriptedGateway(() => ({
      kind: 'scheduled',
      regDt: '2026-11-21 09:00:00',
      webReqId: 'W-1',
    }));
    const { store, deps } = setup(gateway);
    const resvReqDt = formatKst(NOW.getTime() + 86_400_000, 'YYYY-MM-DD HH:mm');

    const result = await sendQueuedMessage(delivery({ ...sms(2), resvYn: 'Y', resvReqDt }), deps);

    expect(result).toMatchObject({ kind: 'done', scheduled: 2 });
    const events = store.details('Message Scheduled');
    expect(events.map((e) => e.data.webReqId)).toEqual(['W-1', 'W-1']);
    expect(events[0]?.data.scheduledFor).toBe(
      new Date(NOW.getTime() + 86_400_000).toISOString().replace(/:\d{2}\.\d{3}Z$/, ':00.000Z'),
    );
  });

  it('publishes a scheduled recipient the gateway already had as accepted, events on or off, with no report check', async () => {
    // Prepare: the registration of an attempt that died is answered as a duplicate, one by one
    const gateway = new ScriptedGateway((keys) => accept(keys, () => '29024'));
    const { store, deps } = setup(gateway, { acceptedEvents: false });
    const resvReqDt = formatKst(NOW.getTime() + 86_400_000, 'YYYY-MM-DD HH:mm');

    // Act
    const result = await sendQueuedMessage(delivery({ ...sms(2), resvYn: 'Y', resvReqDt }), deps);

    // Assess: an outcome event each (no webReqId is known), listed on the record, no check
    expect(result).toMatchObject({ kind: 'done', accepted: 2 });
    expect(store.details('Message Accepted').map((e) => e.data.alreadyAccepted)).toEqual([
      true,
      true,
    ]);
    expect(store.accepted()).toHaveLength(2);
    expect(store.checks).toEqual([]);
  });
});
