/**
 * The write units the send record and a report item cost on DynamoDB Local, as DynamoDB bills
 * them (ConsumedCapacity of each call), at the largest sizes the gateway's fields allow: a send
 * record of 10 recipients with 30-character cliKeys claimed and then listing them all, and a
 * delivery report with every field of the webhook, stored through the event store (deflated
 * detail), both within one write unit.
 */
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { storedDetail } from '../../functions/event-table/stored-detail.ts';
import { storedMessageStatus } from '../../functions/publishing/adapters/stored-message-status.ts';
import { publishRecords } from '../../functions/publishing/publish.ts';
import { reportRecord } from '../../functions/received-items/item-records.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { sendRecordKey } from '../../functions/send-records/send-record.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createEventTable, local, useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { RecordingBus } from '../support/recording-bus.ts';

useDynamoDbLocal();

/** A document client that adds up the write units DynamoDB reports for each call. */
const metered = () => {
  const units: number[] = [];
  // A client of its own: middleware added to it reaches no other test's.
  const documents = DynamoDBDocumentClient.from(localDynamoDbClient(local().server.endpoint), {
    marshallOptions: { removeUndefinedValues: true },
  });
  documents.middlewareStack.add(
    (next) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } })
        .ConsumedCapacity;
      if (consumed?.CapacityUnits !== undefined) units.push(consumed.CapacityUnits);
      return result;
    },
    { step: 'initialize', name: 'meterWriteUnits' },
  );
  return { documents, units };
};

const longKey = (i: number) => `order-2026-11-27-0000123-${String(i).padStart(5, '0')}`;

describe('write units on DynamoDB Local', () => {
  it('claims and records a 10-recipient message in one unit each', async () => {
    // Prepare: 30-character cliKeys (the gateway's maximum) and 21-character msgKeys
    const { eventTable } = await createEventTable();
    const { documents, units } = metered();
    const store = new DynamoDbSendStore(eventTable, 35, documents);
    const cliKeys = Array.from({ length: 10 }, (_, i) => longKey(i));
    expect(cliKeys.every((key) => key.length === 30)).toBe(true);
    const record = sendRecordKey(cliKeys);
    const owner = `1#${crypto.randomUUID()}`;

    // Act
    const claim = await store.claim(record, owner, Date.now() + 60_000, {
      channel: 'messenger-notice',
      sqsMessageId: crypto.randomUUID(),
      recipients: 10,
      queuedAt: Date.now() - 1_000,
      claimedAt: Date.now(),
      content: 'c'.repeat(22),
    });
    await store.recordAccepted(
      record,
      owner,
      cliKeys.map((cliKey, i) => ({
        cliKey,
        msgKey: `M2026112700000001234${i}`,
        acceptedAt: new Date().toISOString(),
        alreadyAccepted: i === 9,
      })),
      { release: true },
    );

    // Assess: one unit each, the whole record listed and the claim given back
    expect(claim).toMatchObject({ result: 'claimed', existed: false });
    expect(units).toEqual([1, 1]);
    const again = await store.claim(record, 'next', Date.now() + 60_000);
    expect(again.result).toBe('claimed');
    expect([...again.accepted.keys()].sort()).toEqual([...cliKeys].sort());
    expect(again.accepted.get(cliKeys[9] ?? '')?.alreadyAccepted).toBe(true);
  });

  it('stores a full delivery report in one unit, and the publisher reads its deflated detail', async () => {
    // Prepare: every webhook field of spec 01, Hangul text, custom fields and a fallback reason
    const { eventTable } = await createEventTable();
    const { documents, units } = metered();
    const item = {
      msgKey: 'M20261127000000012345',
      cliKey: longKey(1),
      ch: 'LMS',
      resultCode: '10000',
      resultCodeDesc: '성공',
      fbReasonLst: [
        { ch: 'RCS', fbResultCode: '54002', fbResultDesc: 'RCS 미지원 단말', telco: 'SKT' },
      ],
      telco: 'SKT',
      rptDt: '2026-11-27 12:00:05',
      rptRegDt: '2026-11-27 12:00:06',
      productCode: 'LMS',
      phone: '01012345678',
      isBi: false,
      userCustomFields: { orderId: 'A-1234567' },
      recvDt: '2026-11-27 12:00:00',
    };
    const record = await reportRecord(
      {
        kind: 'report',
        receivedAt: new Date().toISOString(),
        via: 'webhook',
        bodySha256: createHash('sha256').update(JSON.stringify(item)).digest('hex'),
        retentionDays: 35,
        claim: async () => {
          throw new Error('no claim check for a report this small');
        },
      },
      item,
      0,
    );
    expect(Buffer.byteLength(record.detail)).toBeGreaterThan(1_024);

    // Act
    const stored = await new DynamoDbEventStore(eventTable, documents).putIfAbsent(record);

    // Assess: one write unit; the stored detail reads back exactly; the publisher puts it whole
    expect(stored).toBe('stored');
    expect(units).toEqual([1]);
    const { Item } = await local().documents.send(
      new GetCommand({ TableName: eventTable, Key: { pk: record.pk, sk: record.sk } }),
    );
    expect(Item?.detail).toBeUndefined();
    expect(storedDetail(Item ?? {})).toBe(record.detail);
    const bus = new RecordingBus();
    const image = Object.fromEntries(
      Object.entries(Item ?? {}).map(([name, value]) => [
        name,
        value instanceof Uint8Array
          ? { B: Buffer.from(value).toString('base64') }
          : typeof value === 'number'
            ? { N: String(value) }
            : { S: String(value) },
      ]),
    );
    const outcome = await publishRecords(
      [{ eventName: 'INSERT', dynamodb: { NewImage: image, SequenceNumber: '1' } }] as never,
      {
        bus,
        source: 'msgbridge',
        messageStatus: storedMessageStatus(eventTable, local().documents),
        maxAttempts: 1,
        backoffMs: () => 0,
        sleep: async () => {},
        maxBatchBytes: 256 * 1024,
      },
    );
    expect(outcome.published).toBe(1);
    expect(bus.details('Delivery Report Received')[0]).toEqual(JSON.parse(record.detail));
  });
});
