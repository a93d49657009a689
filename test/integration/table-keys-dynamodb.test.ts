/**
 * Escaped keys in DynamoDB Local: reports whose parts collided under the earlier layout are
 * stored apart, unpaired surrogates survive the UTF-8 the table keeps, and an item stored under
 * the earlier spelling before an upgrade still makes a redelivery of it a duplicate.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { eventIdFor } from '../../functions/catalogue/envelope.ts';
import { legacyEventKeys } from '../../functions/commons/table-keys.ts';
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
  it('store reports apart that shared a key under the earlier layout', async () => {
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

  it('treat a report stored under the earlier spelling as the same report, and only that one', async () => {
    const { eventTable } = await createEventTable();
    // Stored before the upgrade, under the keys and event id the earlier layout gave it.
    const legacy = legacyEventKeys.report('K#1', '10000', 'SMS#X');
    await local().documents.send(
      new PutCommand({
        TableName: eventTable,
        Item: {
          pk: legacy.pk,
          sk: legacy.sk,
          kind: 'report',
          detailType: 'Delivery Report Received',
          detail: '{}',
          eventId: eventIdFor(legacy.idempotencyKey),
          receivedAt: NOW.toISOString(),
          expiresAt: 0,
        },
      }),
    );
    // A different report that the earlier layout put under the same keys (not the same event id).
    const colliding = { ...reportItem(0), msgKey: 'K#1', resultCode: '10000#SMS', ch: 'X' };

    const redelivered = await receive(
      eventTable,
      reports([{ ...reportItem(0), msgKey: 'K#1', resultCode: '10000', ch: 'SMS#X' }]),
    );
    const distinct = await receive(eventTable, reports([colliding]));

    expect(redelivered).toMatchObject({ stored: 0, duplicates: 1 });
    expect(distinct).toMatchObject({ stored: 1, duplicates: 0 });
    const items = await scanItems(local().documents, eventTable);
    expect(items.map((item) => `${String(item.pk)} ${String(item.sk)}`).sort()).toEqual([
      'REPORT#K#1 RESULT#10000#SMS#X',
      'REPORT#K%231 RESULT#10000%23SMS#X',
    ]);
  });
});
