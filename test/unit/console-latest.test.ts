/**
 * The console's landing list (ops/latest-messages.ts): one row per message from the event table's
 * items, its status as its items tell it (a report's result, the sender's outcome, a rejected
 * queue message, an inbound message), newest first, paged by a cursor and filtered by status.
 */
import { describe, expect, it } from 'vitest';
import {
  BadCursorError,
  cursorAfter,
  type ListedMessage,
  messagesOf,
  pageOf,
  parseCursor,
} from '../../ops/latest-messages.ts';
import { toEntry } from '../../ops/trace.ts';

const detail = (type: string, at: string, data: Record<string, unknown>) =>
  JSON.stringify({ metadata: { id: `id-${type}-${at}`, type, receivedAt: at }, data });

const report = (msgKey: string, code: string, at: string, data: Record<string, unknown> = {}) =>
  toEntry({
    pk: `REPORT#${msgKey}`,
    sk: `RESULT#${code}#SMS`,
    detailType: 'Delivery Report Received',
    eventId: `r-${msgKey}-${code}`,
    receivedAt: at,
    detail: detail('Delivery Report Received', at, {
      msgKey,
      resultCode: code,
      channel: 'SMS',
      phone: '01012345678',
      ...data,
    }),
  });

const sendRecord = (cliKey: string, accepted: Record<string, { t: number; m: string }>) =>
  toEntry({
    pk: `SEND#${cliKey}`,
    sk: 'MESSAGE',
    channel: 'sms',
    claimedUntil: 0,
    queuedAt: Date.parse('2026-12-01T00:00:00Z'),
    ...Object.fromEntries(
      Object.entries(accepted).map(([key, value]) => [`accepted#${key}`, value]),
    ),
  });

const at = (iso: string) => Date.parse(iso) / 1000;

describe('the latest messages', () => {
  it('gives each message the status its items tell, a report by its result and a failure in words', () => {
    // Prepare
    const entries = [
      sendRecord('a-1', {
        'a-1': { t: at('2026-12-01T00:00:01Z'), m: 'M-1' },
        'a-2': { t: at('2026-12-01T00:00:01Z'), m: 'M-2' },
        'a-3': { t: at('2026-12-01T00:00:01Z'), m: 'M-3' },
      }),
      report('M-1', '10000', '2026-12-01T00:00:05Z', { cliKey: 'a-1' }),
      // A late "success uncertain" does not take a delivery back.
      report('M-1', '32114', '2026-12-01T00:00:09Z', { cliKey: 'a-1' }),
      // No cliKey in the report: it joins the send whose acceptance gave its msgKey.
      report('M-2', '40001', '2026-12-01T00:00:06Z'),
      toEntry({
        pk: 'SEND#b-1',
        sk: 'OUTCOME',
        detailType: 'Message Rejected',
        eventId: 'rej',
        receivedAt: '2026-12-01T00:00:02Z',
        detail: detail('Message Rejected', '2026-12-01T00:00:02Z', {
          cliKey: 'b-1',
          channel: 'lms',
          code: '22001',
        }),
      }),
      toEntry({
        pk: 'SENDREJECTED#sqs-9',
        sk: 'REJECTED',
        detailType: 'Send Rejected',
        eventId: 'sr',
        receivedAt: '2026-12-01T00:00:03Z',
        detail: detail('Send Rejected', '2026-12-01T00:00:03Z', { channel: 'rcs', cliKeys: ['x'] }),
      }),
      // The pointer a rejected queue message leaves in a cliKey's partition is not a message.
      toEntry({ pk: 'SEND#x', sk: 'REJECTED#sqs-9', receivedAt: '2026-12-01T00:00:03Z' }),
      toEntry({
        pk: 'MO#mo-1',
        sk: 'MO',
        detailType: 'Inbound Message Received',
        eventId: 'mo',
        receivedAt: '2026-12-01T00:00:04Z',
        detail: detail('Inbound Message Received', '2026-12-01T00:00:04Z', {
          moKey: 'mo-1',
          type: 'MMS',
          sender: '01098765432',
        }),
      }),
      toEntry({
        pk: 'MO#mo-1',
        sk: 'ATTACHMENT#0',
        detailType: 'Inbound Attachment Stored',
        eventId: 'att',
        receivedAt: '2026-12-01T00:00:07Z',
        detail: detail('Inbound Attachment Stored', '2026-12-01T00:00:07Z', { index: 0 }),
      }),
    ];

    // Act
    const rows = messagesOf(entries);

    // Assess
    const byKey = Object.fromEntries(rows.map((row) => [row.key, row]));
    expect(rows.map((row) => `${row.kind} ${row.key} ${row.status}`)).toEqual([
      'cliKey a-1 delivered',
      'moKey mo-1 received',
      'cliKey a-2 failed',
      'sqsMessageId sqs-9 rejected',
      'cliKey b-1 rejected',
      'cliKey a-3 accepted',
    ]);
    expect(byKey['a-1']).toMatchObject({
      msgKey: 'M-1',
      channel: 'sms',
      at: '2026-12-01T00:00:09Z',
      latest: 'Delivery Report Received',
    });
    expect(byKey['a-2']).toMatchObject({ msgKey: 'M-2', channel: 'sms' });
    expect(byKey['mo-1']).toMatchObject({ channel: 'MMS', latest: 'Inbound Attachment Stored' });
    expect(byKey['b-1']).toMatchObject({ channel: 'lms', latest: 'Message Rejected' });
    expect(JSON.stringify(rows)).not.toContain('01098765432');
  });

  it('lists a report with no send found by its msgKey, and takes a stored messageStatus when higher', () => {
    const rows = messagesOf([
      report('M-9', '40001', '2026-12-01T00:00:05Z', { messageStatus: 'delivered' }),
    ]);

    expect(rows).toEqual([
      expect.objectContaining({ kind: 'msgKey', key: 'M-9', status: 'delivered', channel: 'SMS' }),
    ]);
  });
});

describe('a page of the list', () => {
  const rows: ListedMessage[] = Array.from({ length: 7 }, (_, index) => ({
    kind: 'cliKey',
    key: `k-${index}`,
    msgKey: undefined,
    channel: 'sms',
    status: index % 3 === 0 ? 'failed' : 'delivered',
    // Two rows share each instant: the cursor tells them apart by key.
    at: `2026-12-01T00:00:0${9 - Math.floor(index / 2)}Z`,
    latest: undefined,
  }));
  const sorted = [...rows].sort((a, b) => `${b.at} ${b.key}`.localeCompare(`${a.at} ${a.key}`));

  it('walks the list newest first by its cursor, every row once, and ends', () => {
    // Act
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = pageOf(sorted, { size: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.rows.map((row) => row.key));
      cursor = page.next;
      pages += 1;
    } while (cursor !== undefined && pages < 10);

    // Assess
    expect(pages).toBe(3);
    expect(seen).toEqual(sorted.map((row) => row.key));
    expect(new Set(seen).size).toBe(7);
  });

  it('filters by status before it pages', () => {
    const first = pageOf(sorted, { size: 2, status: 'failed' });
    const second = pageOf(sorted, { size: 2, status: 'failed', cursor: first.next as string });

    expect([...first.rows, ...second.rows].map((row) => row.key).sort()).toEqual([
      'k-0',
      'k-3',
      'k-6',
    ]);
    expect(second.next).toBeUndefined();
    expect(pageOf(sorted, { size: 2, status: 'rejected' })).toEqual({
      rows: [],
      next: undefined,
    });
  });

  it('reads back the cursor it gave and refuses any other', () => {
    const row = { at: '2026-12-01T00:00:09Z', kind: 'moKey' as const, key: 'a#b' };

    expect(parseCursor(cursorAfter(row))).toEqual(row);
    for (const bad of ['nope', Buffer.from('["x","cliKey","k"]').toString('base64url')])
      expect(() => parseCursor(bad)).toThrow(BadCursorError);
  });
});
