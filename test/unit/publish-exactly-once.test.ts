/**
 * The publisher under Lambda's stream retry rules (test/support/stream-retry-model.ts): whatever
 * PutEvents and the state table do, every stream record's event reaches the bus exactly once, or
 * is durably marked for `msgbridge events republish`, or (only when the state table fails too)
 * reaches the on-failure destination; a second copy happens only where the publisher said so.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BusEntry,
  type BusEntryResult,
  type EventBus,
  markerId,
} from '../../functions/publishing/ports.ts';
import type { PublishOutcome } from '../../functions/publishing/publish.ts';
import { MemoryPublishLedger } from '../support/memory-publish-ledger.ts';
import { publishDeps, publishUnderRetries } from '../support/publisher-under-retries.ts';
import { reportStreamRecords as streamRecords } from '../support/report-stream-records.ts';

const ALL_RECORDS = await streamRecords(40);

/** A record whose new image is no event (a poison record), keeping its keys. */
const poisoned = (record: DynamoDBRecord): DynamoDBRecord => ({
  ...record,
  dynamodb: {
    ...record.dynamodb,
    NewImage: marshall({ pk: 'x', sk: 'y' }) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
  },
});

const idOf = (record: DynamoDBRecord): string =>
  String(record.dynamodb?.NewImage?.eventId?.S ?? markerId(keyOf(record)));
const keyOf = (record: DynamoDBRecord) => ({
  pk: String(record.dynamodb?.Keys?.pk?.S),
  sk: String(record.dynamodb?.Keys?.sk?.S),
});

type CallScript = { readonly throws: true } | { readonly fail: readonly boolean[] };

/** EventBridge with scripted faults: call n follows `script[n]`; calls past the script succeed. */
class FaultyBus implements EventBus {
  readonly published = new Map<string, number>();
  private calls = 0;

  constructor(private readonly script: readonly CallScript[]) {}

  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    const step = this.script[this.calls];
    this.calls += 1;
    if (step && 'throws' in step) {
      // A refused call (throttled, 5xx): nothing was accepted.
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    }
    return entries.map((entry, index) => {
      const fail =
        step !== undefined && step.fail.length > 0 && step.fail[index % step.fail.length];
      if (fail) return { ok: false, errorCode: 'InternalFailure', errorMessage: 'try again' };
      const id = JSON.parse(entry.Detail).metadata.id as string;
      this.published.set(id, (this.published.get(id) ?? 0) + 1);
      return { ok: true };
    });
  }
}

const callScript = fc.oneof(
  { weight: 1, arbitrary: fc.constant<CallScript>({ throws: true }) },
  {
    weight: 4,
    arbitrary: fc.array(fc.boolean(), { maxLength: 10 }).map((fail): CallScript => ({ fail })),
  },
);

const scenario = fc.record({
  count: fc.integer({ min: 1, max: 40 }),
  poison: fc.array(fc.integer({ min: 0, max: 39 }), { maxLength: 4 }),
  bus: fc.array(callScript, { maxLength: 60 }),
  maxAttempts: fc.integer({ min: 1, max: 3 }),
  batchSize: fc.integer({ min: 1, max: 25 }),
  maxRetries: fc.integer({ min: 0, max: 3 }),
  bisect: fc.boolean(),
});

interface Run {
  readonly records: DynamoDBRecord[];
  readonly bus: FaultyBus;
  readonly ledger: MemoryPublishLedger;
  readonly onFailure: DynamoDBRecord[];
  readonly outcomes: PublishOutcome[];
}

const simulate = async (
  input: {
    count: number;
    poison: number[];
    bus: CallScript[];
    maxAttempts: number;
    batchSize: number;
    maxRetries: number;
    bisect: boolean;
  },
  ledger: MemoryPublishLedger,
): Promise<Run> => {
  const records = ALL_RECORDS.slice(0, input.count).map((record, index) =>
    input.poison.includes(index) ? poisoned(record) : record,
  );
  const bus = new FaultyBus(input.bus);
  const { onFailure, outcomes } = await publishUnderRetries(
    records,
    publishDeps(bus, { ledger, maxAttempts: input.maxAttempts }),
    { batchSize: input.batchSize, maxRetries: input.maxRetries, bisect: input.bisect },
  );
  return { records, bus, ledger, onFailure, outcomes };
};

describe('publishing under Lambda stream retries', () => {
  it('publishes each of 10 records once when entry 4 keeps failing, and marks entry 4 for republish', async () => {
    // Prepare: the fourth entry fails on every call, the others are accepted.
    const records = ALL_RECORDS.slice(0, 10);
    const fourth = idOf(records[3] as DynamoDBRecord);
    const ledger = new MemoryPublishLedger();
    const published = new Map<string, number>();
    const bus: EventBus = {
      putEvents: async (entries) =>
        entries.map((entry) => {
          const id = JSON.parse(entry.Detail).metadata.id as string;
          if (id === fourth) return { ok: false, errorCode: 'InternalFailure', errorMessage: 'x' };
          published.set(id, (published.get(id) ?? 0) + 1);
          return { ok: true };
        }),
    };

    // Act
    const { onFailure } = await publishUnderRetries(
      records,
      publishDeps(bus, { ledger, maxAttempts: 4 }),
      { batchSize: 100, maxRetries: 5, bisect: true },
    );

    // Assess: 9 events once each, none twice; the fourth durably marked, nothing given up on.
    expect([...published.values()]).toEqual(Array(9).fill(1));
    expect(published.has(fourth)).toBe(false);
    expect(ledger.unpublished()).toEqual([markerId(keyOf(records[3] as DynamoDBRecord))]);
    expect(onFailure).toEqual([]);
  });

  it('with a working state table: every event once or marked for republish, for any PutEvents faults', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (input) => {
        const { records, bus, ledger, onFailure, outcomes } = await simulate(
          input,
          new MemoryPublishLedger(),
        );

        expect(onFailure).toEqual([]);
        const unpublished = new Set(ledger.unpublished());
        for (const record of records) {
          const copies = bus.published.get(idOf(record)) ?? 0;
          const marked = unpublished.has(markerId(keyOf(record)));
          expect({ copies, marked }).toSatisfy(
            (r: { copies: number; marked: boolean }) =>
              (r.copies === 1 && !r.marked) || (r.copies === 0 && r.marked),
          );
        }
        expect(outcomes.flatMap((outcome) => outcome.unguarded)).toEqual([]);
        // The happy path writes nothing: no ledger write unless some entry could not be published.
        const anyUnpublishable = outcomes.some((o) => o.markedUnpublished + o.poison > 0);
        if (!anyUnpublishable) expect(ledger.writes).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('with a failing state table too: nothing lost, and a second copy only where the publisher counted it', async () => {
    const ledgerFaults = fc.record({
      calls: fc.array(fc.boolean(), { maxLength: 30 }),
      items: fc.array(fc.boolean(), { maxLength: 30 }),
    });
    await fc.assert(
      fc.asyncProperty(scenario, ledgerFaults, async (input, faults) => {
        let call = 0;
        let item = 0;
        const ledger = new MemoryPublishLedger({
          failCall: () => faults.calls[call++] ?? false,
          dropItem: () => faults.items[item++] ?? false,
        });
        const { records, bus, onFailure, outcomes } = await simulate(input, ledger);

        // A copy is announced only where the state table failed: a call, or that very marker.
        if (ledger.failedCalls === 0) {
          const keyById = new Map(records.map((record) => [idOf(record), keyOf(record)]));
          for (const id of outcomes.flatMap((outcome) => outcome.unguarded)) {
            expect(ledger.dropped.has(markerId(keyById.get(id) ?? { pk: '', sk: '' }))).toBe(true);
          }
        }

        const unguarded = new Map<string, number>();
        for (const id of outcomes.flatMap((outcome) => outcome.unguarded)) {
          unguarded.set(id, (unguarded.get(id) ?? 0) + 1);
        }
        const unpublished = new Set(ledger.unpublished());
        const givenUp = new Set(onFailure.map((record) => record.dynamodb?.SequenceNumber));
        for (const record of records) {
          const id = idOf(record);
          const copies = bus.published.get(id) ?? 0;
          const marked = unpublished.has(markerId(keyOf(record)));
          // Nothing lost: on the bus, marked for republish, or in the on-failure destination.
          expect(copies > 0 || marked || givenUp.has(record.dynamodb?.SequenceNumber)).toBe(true);
          // A record marked for republish reached the bus only in a copy that was announced
          // (republish adds one more copy of exactly those).
          if (marked) expect(copies).toBeLessThanOrEqual(unguarded.get(id) ?? 0);
          // Every copy beyond the first was announced by the invocation that let it happen.
          expect(copies - 1).toBeLessThanOrEqual(unguarded.get(id) ?? 0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
