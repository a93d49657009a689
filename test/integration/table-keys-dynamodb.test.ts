/**
 * Escaped keys in DynamoDB Local: reports whose parts would collide if joined unescaped are
 * stored apart, and unpaired surrogates survive the UTF-8 the table keeps.
 */
import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import { createEventTable, local, useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { scanItems } from '../support/scan-items.ts';

useDynamoDbLocal();

const NOW = new Date('2026-11-28T00:00:00.000Z');
const receive = (table: string, body: string) =>
  receiveReports(body, {
    store: new DynamoDbEventStore(table, local().documents),
    now: () => NOW,
    retentionDays: 35,
    concurrency: 4,
  });

const reports = (items: ReadonlyArray<Record<string, unknown>>) =>
  JSON.stringify({ rptCnt: items.length, rptLst: items });

describe('escaped keys in DynamoDB', () => {
  it('store reports apart whose parts joined unescaped would share a key', async () => {
    const { eventTable } = await createEventTable();
    const body = reports([
      { ...reportItem(0), msgKey: 'K', resultCode: '10000#SMS', ch: 'X' },
      { ...reportItem(0), msgKey: 'K', resultCode: '10000', ch: 'SMS#X' },
      { ...reportItem(0), msgKey: 'K:b', resultCode: 'c', ch: 'SMS' },
      { ...reportItem(0), msgKey: 'K', resultCode: 'b:c', ch: 'SMS' },
    ]);
    const surrogates = `{"rptCnt":2,"rptLst":[${['\\ud800', '\\udbff']
      .map((tail) => JSON.stringify({ ...reportItem(1), msgKey: 'L' }).replace('"L"', `"L${tail}"`))
      .join(',')}]}`;

    const first = await receive(eventTable, body);
    const second = await receive(eventTable, surrogates);
    const again = await receive(eventTable, body);

    expect(first).toMatchObject({ stored: 4, duplicates: 0 });
    expect(second).toMatchObject({ stored: 2, duplicates: 0 });
    expect(again).toMatchObject({ stored: 0, duplicates: 4 });
    const items = await scanItems(local().documents, eventTable);
    expect(items).toHaveLength(6);
    expect(new Set(items.map((item) => item.eventId)).size).toBe(6);
  });
});
