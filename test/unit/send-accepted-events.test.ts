import { describe, expect, it } from 'vitest';
import type { SendDeps } from '../../functions/sending/ports.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
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

/*
 * "Message Accepted" as a deployment's choice (`SendDeps.acceptedEvents`): on by default; when
 * off, an accepted recipient's OUTCOME item is stored without an event, and every other outcome
 * is still an event.
 */

const setup = (gateway: ScriptedGateway, overrides: Partial<SendDeps> = {}) =>
  sendSetup(gateway, UNLIMITED, overrides);

/** An item's size as DynamoDB bills it: attribute names plus string, number and boolean values. */
const itemBytes = (item: object): number =>
  Object.entries(item).reduce((total, [name, value]) => {
    const bytes =
      typeof value === 'string'
        ? Buffer.byteLength(value)
        : typeof value === 'number'
          ? 1 + Math.ceil(String(value).length / 2)
          : 1;
    return total + Buffer.byteLength(name) + bytes;
  }, 0);

describe('sendQueuedMessage with "Message Accepted" events', () => {
  it('stores accepted recipients as events when acceptedEvents is left out or true', async () => {
    for (const overrides of [{}, { acceptedEvents: true }]) {
      const { store, deps } = setup(new ScriptedGateway((keys) => accept(keys)), overrides);

      await sendQueuedMessage(delivery(sms(2)), deps);

      expect(store.details('Message Accepted')).toHaveLength(2);
    }
  });

  it('stores accepted recipients without an event when acceptedEvents is false', async () => {
    // Prepare
    const gateway = new ScriptedGateway((keys) =>
      accept(keys, (_, i) => (i === 1 ? '29024' : '10000')),
    );
    const { store, deps } = setup(gateway, { acceptedEvents: false });
    const message = sms(2);
    const [first, second] = message.recvInfoLst.map((r) => r.cliKey);

    // Act
    const result = await sendQueuedMessage(delivery(message), deps);

    // Assess: the same outcome on the send record, queued for reconcile-status, and no item for the bus
    expect(result).toMatchObject({ kind: 'done', accepted: 2 });
    expect(store.details('Message Accepted')).toEqual([]);
    expect(store.events.size).toBe(0);
    expect(store.accepted()).toEqual([
      {
        cliKey: first,
        msgKey: `M-${first}`,
        acceptedAt: NOW.toISOString(),
        alreadyAccepted: false,
      },
      {
        cliKey: second,
        msgKey: `M-${second}`,
        acceptedAt: NOW.toISOString(),
        alreadyAccepted: true,
      },
    ]);
    expect(store.checks.map((check) => check.recipients)).toEqual([
      [
        { cliKey: first, msgKey: `M-${first}` },
        { cliKey: second, msgKey: `M-${second}` },
      ],
    ]);
  });

  it('keeps the outcome: a redelivery sends nobody again', async () => {
    // Prepare
    const gateway = new ScriptedGateway((keys) => accept(keys));
    const { deps } = setup(gateway, { acceptedEvents: false });
    const message = sms(3);

    // Act
    const [, again] = await deliverTwice(message, deps);

    // Assess
    expect(again).toMatchObject({ kind: 'done', accepted: 0, skipped: 3 });
    expect(gateway.calls).toHaveLength(1);
  });

  it('still publishes rejected and scheduled recipients', async () => {
    // Prepare
    const mixed = new ScriptedGateway((keys) =>
      accept(keys, (_, i) => (i === 0 ? '21013' : '10000')),
    );
    const scheduled = new ScriptedGateway(() => ({
      kind: 'scheduled',
      regDt: '2026-11-21 09:00:00',
      webReqId: 'W-1',
    }));
    const one = setup(mixed, { acceptedEvents: false });
    const two = setup(scheduled, { acceptedEvents: false });
    const resvReqDt = formatKst(NOW.getTime() + 86_400_000, 'YYYY-MM-DD HH:mm');

    // Act
    await sendQueuedMessage(delivery(sms(2)), one.deps);
    await sendQueuedMessage(delivery({ ...sms(2), resvYn: 'Y', resvReqDt }), two.deps);

    // Assess
    expect(one.store.details('Message Rejected')).toHaveLength(1);
    expect(one.store.details('Message Accepted')).toHaveLength(0);
    expect(two.store.details('Message Scheduled')).toHaveLength(2);
  });

  it('writes a smaller item without the event, both within one write unit (1 KB)', async () => {
    // Prepare: the longest cliKey the gateway takes and an SQS message id as long as a real one
    const sizes: number[] = [];
    for (const acceptedEvents of [true, false]) {
      const { store, deps } = setup(new ScriptedGateway((keys) => accept(keys)), {
        acceptedEvents,
      });
      const message = sms(1);
      const recipient = { ...message.recvInfoLst[0], cliKey: 'k'.repeat(30) };

      // Act
      await sendQueuedMessage(
        delivery({ ...message, recvInfoLst: [recipient] }, 1, crypto.randomUUID()),
        deps,
      );
      sizes.push(...[...store.events.values()].map(itemBytes));
    }

    // Assess
    const [withEvent = 0, without = 0] = sizes;
    expect(withEvent).toBeLessThanOrEqual(1_024);
    expect(without).toBeLessThan(withEvent / 2);
  });
});
