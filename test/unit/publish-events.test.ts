import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type BusEntry,
  type BusEntryResult,
  type EventBus,
  markerId,
} from '../../functions/publishing/ports.ts';
import { entrySize, publishRecords } from '../../functions/publishing/publish.ts';
import { MemoryPublishLedger } from '../support/memory-publish-ledger.ts';
import { publishDeps } from '../support/publisher-under-retries.ts';
import { reportStreamRecords as streamRecords } from '../support/report-stream-records.ts';

/** A bus that records calls; `fail(eventIds, times)` makes entries fail that many times. */
class ScriptedBus implements EventBus {
  readonly calls: BusEntry[][] = [];
  readonly delivered: BusEntry[] = [];
  private readonly failures = new Map<string, number>();
  throwNext = 0;

  fail(detailSubstring: string, times: number) {
    this.failures.set(detailSubstring, times);
  }

  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    this.calls.push([...entries]);
    if (this.throwNext > 0) {
      this.throwNext -= 1;
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    }
    return entries.map((entry) => {
      for (const [needle, left] of this.failures) {
        if (entry.Detail.includes(needle) && left > 0) {
          this.failures.set(needle, left - 1);
          return { ok: false, errorCode: 'InternalFailure', errorMessage: 'try again' };
        }
      }
      this.delivered.push(entry);
      return { ok: true };
    });
  }
}

describe('publishRecords', () => {
  it('puts every record as one event, at most 10 entries per call', async () => {
    // Prepare
    const records = await streamRecords(25);
    const bus = new ScriptedBus();

    // Act
    const outcome = await publishRecords(records, publishDeps(bus));

    // Assess
    expect(outcome).toMatchObject({ published: 25, response: { batchItemFailures: [] } });
    expect(bus.calls.map((call) => call.length)).toEqual([10, 10, 5]);
    const first = bus.delivered[0];
    expect(first).toMatchObject({ Source: 'msgbridge', DetailType: 'Delivery Report Received' });
    expect(JSON.parse(String(first?.Detail)).metadata.idempotencyKey).toMatch(/^report:/);
    expect(first?.Time.toISOString()).toBe('2026-11-21T00:30:15.000Z');
  });

  it('keeps each call within the byte limit', async () => {
    const records = await streamRecords(10);
    const bus = new ScriptedBus();
    const oneEntry = 2_500;

    await publishRecords(records, publishDeps(bus, { maxBatchBytes: oneEntry * 3 }));

    for (const call of bus.calls) {
      expect(call.reduce((sum, entry) => sum + entrySize(entry), 0)).toBeLessThanOrEqual(
        oneEntry * 3,
      );
    }
    expect(bus.delivered).toHaveLength(10);
  });

  it('sends only the failed entries again', async () => {
    const records = await streamRecords(10);
    const bus = new ScriptedBus();
    bus.fail('M0000000003', 1);
    bus.fail('M0000000007', 2);

    const outcome = await publishRecords(records, publishDeps(bus));

    expect(outcome.response.batchItemFailures).toEqual([]);
    expect(bus.calls.map((call) => call.length)).toEqual([10, 2, 1]);
    expect(bus.delivered).toHaveLength(10);
  });

  it('retries a whole call that threw', async () => {
    const records = await streamRecords(3);
    const bus = new ScriptedBus();
    bus.throwNext = 1;

    const outcome = await publishRecords(records, publishDeps(bus));

    expect(outcome.published).toBe(3);
    expect(bus.calls).toHaveLength(2);
  });

  // Formerly this reported the failing record and every later one as failed and stopped there:
  // Lambda then delivered the later records again, and the ones the bus had accepted in the same
  // call went out twice. Now the failing record is marked for republish and nothing is retried.
  it('marks an entry that still fails for republish, sends every later one, and reports no failure', async () => {
    // Prepare
    const records = await streamRecords(25);
    const bus = new ScriptedBus();
    bus.fail('M0000000013', 99);
    const ledger = new MemoryPublishLedger();
    const failures: string[] = [];

    // Act
    const outcome = await publishRecords(
      records,
      publishDeps(bus, {
        ledger,
        onPublishFailure: (f) => failures.push(...f.map((x) => x.errorCode)),
      }),
    );

    // Assess
    const failed = records.find((r) => JSON.stringify(r).includes('M0000000013'));
    expect(outcome).toMatchObject({
      response: { batchItemFailures: [] },
      published: 24,
      markedUnpublished: 1,
      retried: 0,
      unguarded: [],
    });
    expect(failures).toEqual(['InternalFailure']);
    expect(bus.delivered).toHaveLength(24);
    expect(bus.calls.flat().some((entry) => entry.Detail.includes('M0000000024'))).toBe(true);
    const marker = ledger.markers.get(
      markerId({
        pk: String(failed?.dynamodb?.Keys?.pk?.S),
        sk: String(failed?.dynamodb?.Keys?.sk?.S),
      }),
    );
    // Nothing comes back, so no redelivery flag: later invocations read no markers.
    expect(ledger.redelivery).toBe(false);
    expect(marker).toMatchObject({
      state: 'unpublished',
      reason: expect.stringContaining('InternalFailure'),
    });
  });

  it('when the mark cannot be written either, reports from that record on and marks the later published ones', async () => {
    const records = await streamRecords(10);
    const bus = new ScriptedBus();
    bus.fail('M0000000003', 99);
    const third = records.findIndex((r) => JSON.stringify(r).includes('M0000000003'));
    const thirdKey = String(records[third]?.dynamodb?.Keys?.pk?.S);
    // The batch write leaves the unpublished marker out, as an unprocessed item.
    const ledger = new MemoryPublishLedger();
    const write = ledger.write.bind(ledger);
    ledger.write = async (markers) => write(markers.filter((marker) => marker.key.pk !== thirdKey));

    const outcome = await publishRecords(records, publishDeps(bus, { ledger }));

    expect(outcome.response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      records.slice(third).map((r) => r.dynamodb?.SequenceNumber),
    );
    expect(outcome.unguarded).toEqual([]);
    expect(ledger.redelivery).toBe(true);
    expect([...ledger.markers.values()].map((m) => m.state)).toEqual(
      Array(records.length - third - 1).fill('published'),
    );

    // The redelivery skips what the markers show settled: the failing record alone is sent.
    const again = new ScriptedBus();
    const retry = await publishRecords(records.slice(third), publishDeps(again, { ledger }));
    expect(retry).toMatchObject({ published: 1, skipped: records.length - third - 1 });
    expect(again.delivered.map((e) => e.Detail.includes('M0000000003'))).toEqual([true]);
  });

  it('announces as unguarded the later published entries when the state table is down', async () => {
    const records = await streamRecords(5);
    const bus = new ScriptedBus();
    bus.fail('M0000000001', 99);
    const ledger = new MemoryPublishLedger({
      failCall: (operation) => operation !== 'redeliveryExpected',
    });
    const ledgerFailures: string[] = [];

    const outcome = await publishRecords(
      records,
      publishDeps(bus, { ledger, onLedgerFailure: (operation) => ledgerFailures.push(operation) }),
    );

    const second = records.findIndex((r) => JSON.stringify(r).includes('M0000000001'));
    expect(outcome.retried).toBe(records.length - second);
    expect(outcome.unguarded).toHaveLength(records.length - second - 1);
    expect(ledgerFailures).toEqual(['write', 'flag']);
  });

  it('publishes nothing and retries the batch when the markers of a redelivery cannot be read', async () => {
    const records = await streamRecords(3);
    const bus = new ScriptedBus();
    const ledger = new MemoryPublishLedger({ failCall: (operation) => operation === 'find' });
    ledger.redelivery = true;

    const outcome = await publishRecords(records, publishDeps(bus, { ledger }));

    expect(outcome.retried).toBe(3);
    expect(bus.calls).toHaveLength(0);
  });

  it('on the happy path reads one flag and writes nothing to the state table', async () => {
    const records = await streamRecords(25);
    const ledger = new MemoryPublishLedger();

    const outcome = await publishRecords(records, publishDeps(new ScriptedBus(), { ledger }));

    expect(outcome.published).toBe(25);
    expect({ reads: ledger.reads, writes: ledger.writes }).toEqual({ reads: 1, writes: 0 });
  });

  // Formerly a poison record stopped publishing and was reported with every later record.
  it('marks a poison record for republish and publishes the others', async () => {
    const records = await streamRecords(5);
    const poisoned = [...records];
    poisoned[2] = {
      ...records[2],
      dynamodb: {
        ...records[2]?.dynamodb,
        NewImage: marshall({ pk: 'x', sk: 'y' }) as NonNullable<
          DynamoDBRecord['dynamodb']
        >['NewImage'],
      },
    };
    const bus = new ScriptedBus();
    const ledger = new MemoryPublishLedger();
    const poison: string[] = [];

    const outcome = await publishRecords(
      poisoned,
      publishDeps(bus, { ledger, onPoison: (_, reason) => poison.push(reason) }),
    );

    expect(outcome).toMatchObject({
      published: 4,
      poison: 1,
      markedUnpublished: 1,
      response: { batchItemFailures: [] },
    });
    expect(poison[0]).toContain('not an event item');
    expect(ledger.unpublished()).toEqual([
      markerId({
        pk: String(records[2]?.dynamodb?.Keys?.pk?.S),
        sk: String(records[2]?.dynamodb?.Keys?.sk?.S),
      }),
    ]);
  });

  it('refuses an entry larger than the limit as poison instead of failing the call', async () => {
    const records = await streamRecords(1);
    const bus = new ScriptedBus();
    const ledger = new MemoryPublishLedger();

    const outcome = await publishRecords(records, publishDeps(bus, { maxBatchBytes: 100, ledger }));

    expect(outcome.poison).toBe(1);
    expect(ledger.unpublished()).toHaveLength(1);
    expect(bus.calls).toHaveLength(0);
  });
});
