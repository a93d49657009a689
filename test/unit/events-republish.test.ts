/**
 * `msgbridge events republish`'s use case with fakes, its on-failure queue adapter against mocked
 * SQS and DynamoDB Streams clients, and the whole recovery: publisher under Lambda's retry rules,
 * then republish — every record's event on the bus, a second copy only where announced.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { reportBody } from '../../fixtures/gateway-bodies.ts';
import {
  type BusEntry,
  type BusEntryResult,
  type EventBus,
  type ItemKey,
  markerId,
} from '../../functions/publishing/ports.ts';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import {
  type FailedBatch,
  type PublishFailures,
  planRepublish,
  type RepublishPorts,
  runRepublish,
} from '../../ops/republish.ts';
import { queuePublishFailures } from '../../ops/republish-sources.ts';
import { OPTIONAL_OUTPUTS, REQUIRED_OUTPUTS, resolveTarget } from '../../ops/target.ts';
import { captureIo, runCli } from '../support/cli-gateway.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { MemoryPublishLedger } from '../support/memory-publish-ledger.ts';
import { publishDeps, publishUnderRetries } from '../support/publisher-under-retries.ts';
import { insertRecordsOf } from '../support/report-stream-records.ts';
import { stackOutputs } from '../support/stack-outputs.ts';

const store = new FakeEventStore();
await receiveReports(JSON.stringify(reportBody(30)), {
  store,
  now: () => new Date('2026-11-21T00:00:00Z'),
  retentionDays: 35,
  concurrency: 1,
});
const ITEMS = [...store.items.values()];
const keyOfItem = (index: number): ItemKey => {
  const item = ITEMS[index];
  if (!item) throw new Error(`no item ${index}`);
  return { pk: item.pk, sk: item.sk };
};
const RECORDS = insertRecordsOf(ITEMS);

/** The event table as the CLI reads it: items by key, attributes as plain values. */
const tableOf = (records: readonly DynamoDBRecord[]) => {
  const items = new Map<string, Record<string, unknown>>();
  for (const record of records) {
    const item = unmarshall(record.dynamodb?.NewImage as never) as Record<string, unknown>;
    items.set(markerId(unmarshall(record.dynamodb?.Keys as never) as ItemKey), item);
  }
  return { get: async (key: ItemKey) => items.get(markerId(key)) };
};

/** A bus that counts events by `metadata.id`; `refuse` names ids it keeps refusing. */
class CountingBus implements EventBus {
  readonly published = new Map<string, number>();
  constructor(private readonly refuse: (id: string) => boolean = () => false) {}
  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    return entries.map((entry) => {
      const id = JSON.parse(entry.Detail).metadata.id as string;
      if (this.refuse(id)) return { ok: false, errorCode: 'InternalFailure', errorMessage: 'no' };
      this.published.set(id, (this.published.get(id) ?? 0) + 1);
      return { ok: true };
    });
  }
}

/** Failed batches in memory; `settled` records what was removed. */
class FakeFailures implements PublishFailures {
  readonly settled: string[] = [];
  constructor(readonly batches: FailedBatch[]) {}
  async list() {
    return this.batches.filter((batch) => !this.settled.includes(batch.id));
  }
  async settle(batch: FailedBatch) {
    this.settled.push(batch.id);
  }
}

const eventIdOf = (index: number): string =>
  JSON.parse(String(ITEMS[index]?.detail)).metadata.id as string;

const portsOf = (over: Partial<RepublishPorts> & Pick<RepublishPorts, 'bus'>): RepublishPorts => ({
  failures: new FakeFailures([]),
  markers: new MemoryPublishLedger(),
  items: tableOf(RECORDS),
  source: 'msgbridge',
  // A table holding no report but the one republished: each report says its own status.
  messageStatus: async () => undefined,
  sleep: async () => {},
  ...over,
});

describe('events republish', () => {
  it('publishes marked items and failed batches once, skips what is on the bus, then removes the batches', async () => {
    // Prepare: item 0 marked unpublished; a failed batch names items 1-3, of which 2 is already
    // published (marked) and 3 is also marked unpublished.
    const markers = new MemoryPublishLedger();
    await markers.write([
      { key: keyOfItem(0), state: 'unpublished', reason: 'PutEvents failed 4 times' },
      { key: keyOfItem(2), state: 'published' },
      { key: keyOfItem(3), state: 'unpublished', reason: 'x' },
    ]);
    const failures = new FakeFailures([
      { id: 'm1', description: 'shard a, 1-3', keys: [keyOfItem(1), keyOfItem(2), keyOfItem(3)] },
    ]);
    const bus = new CountingBus();
    const ports = portsOf({ bus, failures, markers: markers });
    const progress: number[] = [];

    // Act
    const plan = await planRepublish(ports);
    const result = await runRepublish(plan, ports, (done) => progress.push(done));

    // Assess
    expect(plan.items.map((item) => item.key)).toEqual([keyOfItem(0), keyOfItem(3), keyOfItem(1)]);
    expect(result).toMatchObject({
      published: 3,
      alreadyPublished: 1,
      settled: 1,
      failed: [],
      unmarked: 0,
    });
    expect([...bus.published.keys()].sort()).toEqual(
      [eventIdOf(0), eventIdOf(1), eventIdOf(3)].sort(),
    );
    expect(failures.settled).toEqual(['m1']);
    expect(markers.unpublished()).toEqual([]);
    expect(progress.at(-1)).toBe(3);

    // A second run finds nothing to do.
    const again = await planRepublish(ports);
    expect(again.items).toEqual([]);
  });

  it('keeps a batch, and the mark, while an item is refused or gone', async () => {
    const markers = new MemoryPublishLedger();
    await markers.write([{ key: keyOfItem(5), state: 'unpublished', reason: 'x' }]);
    const failures = new FakeFailures([
      { id: 'refused', description: 'r', keys: [keyOfItem(6)] },
      { id: 'expired', description: 'e', keys: [{ pk: 'gone', sk: 'gone' }] },
      { id: 'trimmed', description: 'shard s, 9-9', unavailable: 'the stream no longer holds it' },
    ]);
    const refused = eventIdOf(6);
    const ports = portsOf({ bus: new CountingBus((id) => id === refused), failures, markers });

    const result = await runRepublish(await planRepublish(ports), ports);

    expect(result.published).toBe(1);
    expect(result.failed.map((f) => [f.key.pk, f.reason.split(' ')[0]])).toEqual([
      ['gone', 'the'],
      [keyOfItem(6).pk, 'InternalFailure'],
    ]);
    expect(result.unavailable.map((batch) => batch.id)).toEqual(['trimmed']);
    expect(failures.settled).toEqual([]);
  });

  it('recovers everything the publisher left, under any PutEvents and state-table faults', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          count: fc.integer({ min: 1, max: 30 }),
          refusedCalls: fc.array(fc.boolean(), { maxLength: 40 }),
          ledgerCalls: fc.array(fc.boolean(), { maxLength: 20 }),
          batchSize: fc.integer({ min: 1, max: 20 }),
          maxRetries: fc.integer({ min: 0, max: 2 }),
        }),
        async (input) => {
          // Publishing, with faults: call n of the bus refuses everything if refusedCalls[n].
          const records = RECORDS.slice(0, input.count);
          let busCall = 0;
          let ledgerCall = 0;
          const published = new Map<string, number>();
          const bus: EventBus = {
            putEvents: async (entries) => {
              const refuse = input.refusedCalls[busCall++] ?? false;
              return entries.map((entry): BusEntryResult => {
                if (refuse) return { ok: false, errorCode: 'InternalFailure', errorMessage: 'x' };
                const id = JSON.parse(entry.Detail).metadata.id as string;
                published.set(id, (published.get(id) ?? 0) + 1);
                return { ok: true };
              });
            },
          };
          const ledger = new MemoryPublishLedger({
            failCall: () => input.ledgerCalls[ledgerCall++] ?? false,
          });
          const { onFailure, outcomes } = await publishUnderRetries(
            records,
            publishDeps(bus, { ledger, maxAttempts: 2 }),
            { batchSize: input.batchSize, maxRetries: input.maxRetries, bisect: true },
          );

          // Then republish, with the bus and the state table working again.
          const recovery: RepublishPorts = {
            failures: new FakeFailures(
              onFailure.map((record, index) => ({
                id: `f${index}`,
                description: String(record.dynamodb?.SequenceNumber),
                keys: [unmarshall(record.dynamodb?.Keys as never) as ItemKey],
              })),
            ),
            markers: ledger.healed(),
            items: tableOf(records),
            bus,
            source: 'msgbridge',
            messageStatus: async () => undefined,
            sleep: async () => {},
          };
          busCall = Number.POSITIVE_INFINITY;
          const result = await runRepublish(await planRepublish(recovery), recovery);

          expect(result.failed).toEqual([]);
          const unguarded = new Map<string, number>();
          for (const id of outcomes.flatMap((outcome) => outcome.unguarded)) {
            unguarded.set(id, (unguarded.get(id) ?? 0) + 1);
          }
          for (const record of records) {
            const id = String(unmarshall(record.dynamodb?.NewImage as never).eventId);
            const copies = published.get(id) ?? 0;
            expect(copies).toBeGreaterThanOrEqual(1);
            expect(copies - 1).toBeLessThanOrEqual(unguarded.get(id) ?? 0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('queuePublishFailures', () => {
  const sqsMock = mockClient(SQSClient);
  const streamsMock = mockClient(DynamoDBStreamsClient);
  afterEach(() => {
    sqsMock.reset();
    streamsMock.reset();
  });
  const pointer = (shardId: string, start: string, end: string) =>
    JSON.stringify({
      version: '1.0',
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: start,
        endSequenceNumber: end,
        batchSize: 2,
        streamArn: 'arn:aws:dynamodb:ap-northeast-2:1:table/events/stream/x',
      },
    });

  it('reads each pointed range from the stream, reports a trimmed one, and deletes only settled messages', async () => {
    // Prepare: two pointers; the first range is readable (an event item, a send record, and a
    // record past the end), the second was trimmed.
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          { MessageId: 'a', ReceiptHandle: 'rh-a', Body: pointer('s1', '100', '101') },
          { MessageId: 'b', ReceiptHandle: 'rh-b', Body: pointer('s2', '200', '201') },
        ],
      })
      .resolves({ Messages: [] });
    streamsMock
      .on(GetShardIteratorCommand, { ShardId: 's1' })
      .resolves({ ShardIterator: 'it-1' })
      .on(GetShardIteratorCommand, { ShardId: 's2' })
      .rejects(new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} }));
    const event = RECORDS[0]?.dynamodb;
    streamsMock.on(GetRecordsCommand).resolves({
      Records: [
        {
          eventName: 'INSERT',
          dynamodb: {
            SequenceNumber: '100',
            Keys: event?.Keys as never,
            NewImage: event?.NewImage as never,
          },
        },
        {
          eventName: 'INSERT',
          dynamodb: {
            SequenceNumber: '101',
            Keys: { pk: { S: 'SEND#1' }, sk: { S: 'OUTCOME' } },
            NewImage: { pk: { S: 'SEND#1' }, sk: { S: 'OUTCOME' } },
          },
        },
      ],
      NextShardIterator: 'it-2',
    });
    const failures = queuePublishFailures({
      sqs: new SQSClient({ region: 'ap-northeast-2' }),
      queueUrl: 'on-failure',
      streams: new DynamoDBStreamsClient({ region: 'ap-northeast-2' }),
    });

    // Act
    const batches = await failures.list();
    const readable = batches.find((batch) => batch.id === 'a');
    if (readable) await failures.settle(readable);
    await failures.release();

    // Assess
    expect(batches).toEqual([
      { id: 'a', description: 'shard s1, 100–101', keys: [keyOfItem(0)] },
      {
        id: 'b',
        description: 'shard s2, 200–201',
        unavailable: expect.stringContaining('no longer holds shard s2'),
      },
    ]);
    expect(sqsMock.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: 'on-failure', ReceiptHandle: 'rh-a' },
    ]);
    expect(
      sqsMock
        .commandCalls(ChangeMessageVisibilityBatchCommand)
        .flatMap((c) => c.args[0].input.Entries?.map((entry) => entry.ReceiptHandle)),
    ).toEqual(['rh-b']);
  });
});

describe('events republish on a stack', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  afterEach(() => cloudFormation.reset());
  const stack = (names: readonly string[]) => ({
    Stacks: [
      {
        StackName: 'prod',
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE' as const,
        Outputs: stackOutputs(names),
      },
    ],
  });
  const aws = { cloudFormation: new CloudFormationClient({ region: 'ap-northeast-2' }) };

  it('finds the on-failure queue and the event source among the outputs', async () => {
    cloudFormation
      .on(DescribeStacksCommand)
      .resolves(stack([...REQUIRED_OUTPUTS, ...OPTIONAL_OUTPUTS]));

    const target = await resolveTarget({ stack: 'prod' }, { readFile: async () => '', aws });

    expect(target.events).toMatchObject({
      kind: 'stack',
      onFailureQueueUrl: 'value-of-PublisherOnFailureQueueUrl',
      eventSource: 'value-of-EventSource',
    });
  });

  it('tells to deploy again on a stack without those outputs, and touches nothing', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves(stack(REQUIRED_OUTPUTS));

    const run = await runCli(
      ['events', 'republish', '--stack', 'prod', '--yes'],
      { aws },
      captureIo(),
    );

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'lacks the outputs PublisherOnFailureQueueUrl and EventSource; deploy a msgbridge version that has them',
    );
  });
});
