import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type BusEntry,
  type BusEntryResult,
  type EventBus,
  entrySize,
  type PublishDeps,
  publishRecords,
} from '../../functions/events/publish.ts';
import { receiveReports } from '../../functions/inbound/receive-webhook.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { reportBody } from '../support/gateway-bodies.ts';

/** Stream records made the way the table makes them: real stored items, in DynamoDB JSON. */
const streamRecords = async (count: number): Promise<DynamoDBRecord[]> => {
  const store = new FakeEventStore();
  await receiveReports(JSON.stringify(reportBody(count)), {
    store,
    now: () => new Date('2026-11-21T00:00:00Z'),
    retentionDays: 35,
    concurrency: 1,
  });
  return [...store.items.values()].map((item, index) => ({
    eventName: 'INSERT',
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }),
      NewImage: marshall(item),
      SequenceNumber: String(1000 + index),
    },
  })) as DynamoDBRecord[];
};

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

const deps = (bus: EventBus, overrides: Partial<PublishDeps> = {}): PublishDeps => ({
  bus,
  source: 'msgbridge',
  maxAttempts: 3,
  backoffMs: () => 0,
  sleep: async () => {},
  maxBatchBytes: 256 * 1024,
  ...overrides,
});

describe('publishRecords', () => {
  it('puts every record as one event, at most 10 entries per call', async () => {
    // Prepare
    const records = await streamRecords(25);
    const bus = new ScriptedBus();

    // Act
    const outcome = await publishRecords(records, deps(bus));

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

    await publishRecords(records, deps(bus, { maxBatchBytes: oneEntry * 3 }));

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

    const outcome = await publishRecords(records, deps(bus));

    expect(outcome.response.batchItemFailures).toEqual([]);
    expect(bus.calls.map((call) => call.length)).toEqual([10, 2, 1]);
    expect(bus.delivered).toHaveLength(10);
  });

  it('retries a whole call that threw', async () => {
    const records = await streamRecords(3);
    const bus = new ScriptedBus();
    bus.throwNext = 1;

    const outcome = await publishRecords(records, deps(bus));

    expect(outcome.published).toBe(3);
    expect(bus.calls).toHaveLength(2);
  });

  it('reports the first record that still fails and every later one, and sends none of those', async () => {
    const records = await streamRecords(25);
    const bus = new ScriptedBus();
    bus.fail('M0000000013', 99);
    const failures: string[] = [];

    const outcome = await publishRecords(
      records,
      deps(bus, { onPublishFailure: (f) => failures.push(...f.map((x) => x.errorCode)) }),
    );

    const failedFrom = records.findIndex((r) => JSON.stringify(r).includes('M0000000013'));
    expect(outcome.response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      records.slice(failedFrom).map((r) => r.dynamodb?.SequenceNumber),
    );
    expect(failures).toEqual(['InternalFailure']);
    // Nothing from the third batch was attempted.
    expect(bus.calls.flat().some((entry) => entry.Detail.includes('M0000000024'))).toBe(false);
  });

  it('stops at a poison record and reports it and everything after it', async () => {
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
    const poison: string[] = [];

    const outcome = await publishRecords(
      poisoned,
      deps(bus, { onPoison: (_, reason) => poison.push(reason) }),
    );

    expect(outcome.published).toBe(2);
    expect(outcome.poison).toBe(1);
    expect(outcome.response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      '1002',
      '1003',
      '1004',
    ]);
    expect(poison[0]).toContain('not an event item');
  });

  it('refuses an entry larger than the limit as poison instead of failing the call', async () => {
    const records = await streamRecords(1);
    const bus = new ScriptedBus();

    const outcome = await publishRecords(records, deps(bus, { maxBatchBytes: 100 }));

    expect(outcome.poison).toBe(1);
    expect(bus.calls).toHaveLength(0);
  });
});
