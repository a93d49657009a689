/**
 * The send path's rejections under attack: a message too large for DynamoDB's item, one too large
 * for the bus, and a cliKey reused with other content. Every bad message is one "Send Rejected",
 * stored once and within the real limits (DynamoDB's 400 KB item, EventBridge's 256 KiB entry,
 * measured as the services measure them); a retry with the same content stays a silent duplicate.
 */
import { describe, expect, it } from 'vitest';
import {
  DETAIL_BUDGET_BYTES,
  ITEM_BUDGET_BYTES,
  itemBytes,
  utf8Bytes,
} from '../../functions/event-table/item-size.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import {
  acceptAll,
  delivery,
  MemoryPayloads,
  ScriptedGateway,
  sendSetup,
  sms,
  UNLIMITED,
} from '../support/send-use-case-world.ts';

const world = () => {
  const gateway = new ScriptedGateway(acceptAll);
  const payloads = new MemoryPayloads();
  return { gateway, payloads, ...sendSetup(gateway, UNLIMITED, { payloads }) };
};

/** The one stored Send Rejected item, and its event as the bus would take it. */
const rejectionOf = (store: ReturnType<typeof world>['store']) => {
  const items = [...store.events.values()].filter(
    (record) => 'detailType' in record && record.detailType === 'Send Rejected',
  );
  expect(items).toHaveLength(1);
  const [item] = items;
  if (!item || !('detail' in item)) throw new Error('no Send Rejected item');
  return { item, detail: JSON.parse(item.detail) as { data: Record<string, unknown> } };
};

describe('a message too large for its table item', () => {
  it('is rejected once, its body kept in the payload bucket and the item within DynamoDB’s 400 KB', async () => {
    // Prepare: 450 KB of Hangul text, valid JSON, invalid as a message (LMS text is at most 2,000 bytes).
    const { store, deps, payloads, gateway } = world();
    const message = { ...sms(1), msg: '가'.repeat(150_000) };
    const body = JSON.stringify(message);
    expect(utf8Bytes(body)).toBeGreaterThan(409_600);

    // Act: delivered twice, as a redelivery would
    const first = await sendQueuedMessage(delivery(body), deps);
    const again = await sendQueuedMessage(delivery(body), deps);

    // Assess
    expect(first.kind).toBe('invalid');
    expect(again.kind).toBe('invalid');
    expect(gateway.calls).toEqual([]);
    const { item, detail } = rejectionOf(store);
    expect(itemBytes(item)).toBeLessThanOrEqual(ITEM_BUDGET_BYTES);
    expect('payload' in item).toBe(false);
    expect(detail.data.payloadRef).toMatchObject({
      key: expect.stringMatching(/^payloads\/send\//),
    });
    expect([...payloads.objects.values()]).toEqual([body]);
    expect(detail.data.truncated).toBe(true);
  });

  it('keeps a body within the item’s budget in the item itself', async () => {
    const { store, deps, payloads } = world();
    const body = JSON.stringify({ ...sms(1), msg: '가'.repeat(10_000) });

    await sendQueuedMessage(delivery(body), deps);

    const { item, detail } = rejectionOf(store);
    expect((item as { payload?: string }).payload).toBe(body);
    expect(detail.data.payloadRef).toBeUndefined();
    expect(payloads.objects.size).toBe(0);
  });
});

describe('a rejection too large for the bus', () => {
  it('lists what fits of 1,500 long Hangul cliKeys and every problem with their counts, within 256 KiB', async () => {
    // Prepare: 1,500 recipients (at most 10 are allowed) with 40-character Hangul cliKeys, ~200 KB.
    const { store, deps } = world();
    const recipients = Array.from({ length: 1_500 }, (_, index) => ({
      cliKey: `${'키'.repeat(36)}${String(index).padStart(4, '0')}`,
      phone: '01012345678',
    }));
    const body = JSON.stringify({ ...sms(1), recvInfoLst: recipients });
    expect(utf8Bytes(body)).toBeGreaterThan(190_000);

    // Act
    const result = await sendQueuedMessage(delivery(body), deps);

    // Assess
    expect(result.kind).toBe('invalid');
    const { detail } = rejectionOf(store);
    const detailBytes = utf8Bytes(JSON.stringify(detail));
    expect(detailBytes).toBeLessThanOrEqual(DETAIL_BUDGET_BYTES);
    expect(detail.data.cliKeyCount).toBe(1_500);
    const listed = detail.data.cliKeys as string[];
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(1_500);
    expect(listed).toEqual(recipients.slice(0, listed.length).map((r) => r.cliKey));
    expect(detail.data.problemCount).toBeGreaterThanOrEqual(
      (detail.data.problems as unknown[]).length,
    );
  });
});

describe('a cliKey reused with other content', () => {
  it('sends the message whose claim came first as written and rejects the other, naming the cliKey and both queue messages', async () => {
    // Prepare: the same cliKey, another text
    const { store, deps, gateway } = world();
    const first = sms(1);
    const second = { ...first, msg: `${first.msg} (changed)` };
    const cliKey = first.recvInfoLst[0]?.cliKey ?? '';

    // Act
    const sent = await sendQueuedMessage(delivery(first, 1, 'sqs-first'), deps);
    const reused = await sendQueuedMessage(delivery(second, 1, 'sqs-second'), deps);

    // Assess
    expect(sent).toMatchObject({ kind: 'done', accepted: 1 });
    expect(reused).toEqual({ kind: 'invalid', problems: 1 });
    expect(gateway.calls).toEqual([[cliKey]]);
    expect(gateway.messages.map((message) => (message.body as { msg: string }).msg)).toEqual([
      first.msg,
    ]);
    const { detail } = rejectionOf(store);
    expect(detail.data).toMatchObject({
      sqsMessageId: 'sqs-second',
      reusedCliKey: { cliKey, sqsMessageId: 'sqs-first' },
      problems: [
        {
          path: '$.recvInfoLst[0].cliKey',
          message: expect.stringMatching(/sqs-first.*sqs-second/),
        },
      ],
    });
  });

  it('leaves a retry with the same content, however its JSON is spelt, a silent duplicate', async () => {
    const { store, deps, gateway } = world();
    const first = sms(2);
    // The same message, its keys in another order and its recipients swapped.
    const respelt = Object.fromEntries(
      Object.entries({ ...first, recvInfoLst: [...first.recvInfoLst].reverse() }).reverse(),
    );

    await sendQueuedMessage(delivery(first, 1, 'sqs-first'), deps);
    const retry = await sendQueuedMessage(delivery(respelt, 1, 'sqs-retry'), deps);

    expect(retry).toMatchObject({ kind: 'done', skipped: 2, accepted: 0 });
    expect(gateway.calls).toHaveLength(1);
    expect(store.details('Send Rejected')).toEqual([]);
  });

  it('rejects the later of two such messages in one batch, whichever runs first', async () => {
    const { store, deps, gateway } = world();
    const first = sms(1);
    const second = { ...first, recvInfoLst: [{ ...first.recvInfoLst[0], phone: '01099998888' }] };

    const results = await Promise.all([
      sendQueuedMessage(delivery(first, 1, 'sqs-a'), deps),
      sendQueuedMessage(delivery(second, 1, 'sqs-b'), deps),
    ]);

    expect(results.map((result) => result.kind).sort()).toEqual(['done', 'invalid']);
    expect(gateway.calls).toHaveLength(1);
    const { detail } = rejectionOf(store);
    const sent = gateway.messages[0]?.body as { recvInfoLst: Array<{ phone: string }> } | undefined;
    const sentPhone = sent?.recvInfoLst[0]?.phone;
    const winner = sentPhone === first.recvInfoLst[0]?.phone ? 'sqs-a' : 'sqs-b';
    expect(detail.data.reusedCliKey).toMatchObject({ sqsMessageId: winner });
  });
});
