/**
 * Every "Delivery Report Received" carries `messageStatus`, the message's status when the event was
 * published (issue 35, item 7): the highest over the message's reports stored by then, read by
 * `publish-events` (message-status-at-publication.ts). Reports are published in the order they
 * were stored (one shard per partition key), so a report published after a delivery never presents
 * the message as undelivered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import type { MessageStatusName } from '../../functions/catalogue/message-status.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import { publishRecords } from '../../functions/publishing/publish.ts';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { publishDeps } from '../support/publisher-under-retries.ts';
import { RecordingBus } from '../support/recording-bus.ts';
import { insertRecordsOf } from '../support/report-stream-records.ts';

const NOW = new Date('2026-11-21T00:31:00.000Z');
const REPORT = 'Delivery Report Received';

/** Ranks as docs/events.md states them: uncertain (32114) < failed < delivered (10000). */
const RANK: Record<string, number> = { uncertain: 1, failed: 2, delivered: 3 };
const ownStatus = (code: unknown): MessageStatusName =>
  code === '10000' ? 'delivered' : code === '32114' ? 'uncertain' : 'failed';

/**
 * The event table as the publisher reads it: per message, the highest status of the reports
 * stored in `store` when asked (what a strongly consistent Query returns). Counts the reads.
 */
const tableStatus = (store: FakeEventStore) => {
  const reads: string[] = [];
  const read = async (msgKey: string): Promise<MessageStatusName | undefined> => {
    reads.push(msgKey);
    const codes = store
      .details('report')
      .filter((detail) => detail.data.msgKey === msgKey)
      .map((detail) => ownStatus(detail.data.resultCode));
    return codes.sort((a, b) => (RANK[b] ?? 0) - (RANK[a] ?? 0))[0];
  };
  return { read, reads };
};

/** Stores one report of message `index` as the receiver does; answers its stream record. */
const store = async (table: FakeEventStore, index: number, resultCode: string, ch = 'MSGR') => {
  const before = new Set(table.items.keys());
  await receiveReports(
    JSON.stringify({ rptCnt: 1, rptLst: [reportItem(index, { resultCode, ch })] }),
    { store: table, now: () => NOW, retentionDays: 35, concurrency: 1 },
  );
  const added = [...table.items.entries()].filter(([key]) => !before.has(key));
  return added.map(([, record]) => record as EventRecord);
};

/**
 * An event table, its status as the publisher reads it, and a bus; `publishStored` publishes
 * stored items as the stream delivers them, each message's status read from the table.
 */
const world = () => {
  const table = new FakeEventStore();
  const status = tableStatus(table);
  const bus = new RecordingBus();
  const publishStored = (items: EventRecord[]) =>
    publishRecords(insertRecordsOf(items), publishDeps(bus, { messageStatus: status.read }));
  return { table, status, bus, publishStored };
};

/** The published reports: code, what it says of itself, and the message's status. */
const published = (bus: RecordingBus) =>
  bus.details(REPORT).map((detail) => ({
    resultCode: detail.data.resultCode,
    delivered: detail.data.delivered,
    messageStatus: detail.data.messageStatus,
  }));

describe('messageStatus of a delivery report, set at publication', () => {
  it.each([
    [
      'keeps a delivered message delivered when "success uncertain" (32114) is published after 10000',
      1,
      ['10000', '32114'],
      // the report stays what the gateway said; the message stays delivered
      [
        { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
        { resultCode: '32114', delivered: false, messageStatus: 'delivered' },
      ],
    ],
    [
      'moves an uncertain message to delivered when 10000 follows 32114',
      2,
      ['32114', '10000'],
      [
        { resultCode: '32114', delivered: false, messageStatus: 'uncertain' },
        { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
      ],
    ],
  ])('%s', async (_name, message, codes, expected) => {
    // Prepare
    const { table, bus, publishStored } = world();

    // Act: each report published after it was stored, as the stream delivers them
    for (const code of codes) await publishStored(await store(table, message, code));

    // Assess
    expect(published(bus)).toEqual(expected);
  });

  it('reads a message once for the reports of one batch, which all say its status then', async () => {
    // Prepare: both reports stored before the batch is published; another message beside them
    const { table, status, bus, publishStored } = world();
    const stored = [
      ...(await store(table, 3, '32114')),
      ...(await store(table, 4, '32004')),
      ...(await store(table, 3, '10000')),
    ];

    // Act
    await publishStored(stored);

    // Assess: one read per message; the uncertain report, published once the delivery was stored,
    // says delivered; the stored items still say what each report said
    expect(status.reads.sort()).toEqual(['M0000000003', 'M0000000004']);
    expect(published(bus)).toEqual([
      { resultCode: '32114', delivered: false, messageStatus: 'delivered' },
      { resultCode: '32004', delivered: false, messageStatus: 'failed' },
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
    ]);
    expect(table.details('report').map((detail) => detail.data.messageStatus)).toEqual([
      'uncertain',
      'failed',
      'delivered',
    ]);
  });

  it('ranks a final failure above uncertain, and a delivery above both', async () => {
    // Prepare
    const { table, bus, publishStored } = world();

    // Act
    for (const [code, ch] of [
      ['32114', 'MSGR'],
      ['32004', 'MSGR'],
      ['32114', 'RCS'],
      ['10000', 'SMS'],
      ['32004', 'LMS'],
    ] as const) {
      await publishStored(await store(table, 5, code, ch));
    }

    // Assess
    expect(published(bus).map((r) => r.messageStatus)).toEqual([
      'uncertain',
      'failed',
      'failed',
      'delivered',
      'delivered',
    ]);
  });

  it('publishes nothing without its status: a failed read fails that record and every later one, and the retry publishes them', async () => {
    // Prepare: the status of message 7 cannot be read at first
    const { table, status, bus } = world();
    const records = insertRecordsOf([
      ...(await store(table, 6, '10000')),
      ...(await store(table, 7, '32114')),
      ...(await store(table, 7, '10000')),
      ...(await store(table, 8, '32004')),
    ]);
    let failing = true;
    const flaky = async (msgKey: string) => {
      if (failing && msgKey === 'M0000000007') {
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      return status.read(msgKey);
    };

    // Act
    const first = await publishRecords(records, publishDeps(bus, { messageStatus: flaky }));
    const failedFrom = first.response.batchItemFailures.map((failure) => failure.itemIdentifier);
    failing = false;
    const again = await publishRecords(
      records.filter((record) => failedFrom.includes(String(record.dynamodb?.SequenceNumber))),
      publishDeps(bus, { messageStatus: flaky }),
    );

    // Assess: only the record before the failed read went out; the retry, from that record on,
    // publishes the rest with their status
    expect(first).toMatchObject({ published: 1, retried: 3, markedUnpublished: 0 });
    expect(failedFrom).toEqual(['1001', '1002', '1003']);
    expect(again).toMatchObject({ published: 3, response: { batchItemFailures: [] } });
    expect(published(bus)).toEqual([
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
      { resultCode: '32114', delivered: false, messageStatus: 'delivered' },
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
      { resultCode: '32004', delivered: false, messageStatus: 'failed' },
    ]);
  });

  it('never publishes a report of a message as less than an earlier event of it said, however the reports arrive and batch', async () => {
    const codes = fc.constantFrom('10000', '32114', '32004', '32001');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), codes, fc.boolean()), {
          minLength: 1,
          maxLength: 30,
        }),
        async (arrivals) => {
          // Prepare: reports of 4 messages arrive in any order; the stream's records wait until
          // the publisher takes them, in storing order, when an arrival says so (and at the end)
          const { table, bus, publishStored } = world();
          let pending: EventRecord[] = [];
          const publish = async () => {
            await publishStored(pending);
            pending = [];
          };

          // Act
          for (const [n, [message, code, publishNow]] of arrivals.entries()) {
            pending.push(...(await store(table, 200 + message, code, `CH${n}`)));
            if (publishNow) await publish();
          }
          await publish();

          // Assess: per message, in publishing order, statuses never go back, each at least its
          // report's own, and every event after one saying delivered says delivered
          for (let message = 0; message < 4; message += 1) {
            const msgKey = `M${String(200 + message).padStart(10, '0')}`;
            const events = bus.details(REPORT).filter((detail) => detail.data.msgKey === msgKey);
            const ranks = events.map((detail) => RANK[String(detail.data.messageStatus)] ?? 0);
            expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
            for (const [at, detail] of events.entries()) {
              expect(ranks[at]).toBeGreaterThanOrEqual(
                RANK[ownStatus(detail.data.resultCode)] ?? 9,
              );
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
