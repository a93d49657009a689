import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stateTableCheckpoints } from '../../local/stream-checkpoints.ts';
import { StreamPollerStoppedError, startStreamPoller } from '../../local/stream-poller.ts';
import type { StreamPollerOptions } from '../../local/stream-poller-options.ts';
import { createTables } from '../../local/tables.ts';
import {
  createEventTable,
  freshTables,
  keyOf,
  local,
  localStreamsClient,
  useDynamoDbLocal,
} from '../support/dynamodb-local.ts';

useDynamoDbLocal();

const itemKey = (index: number): string => `item-${String(index).padStart(3, '0')}`;

/** Writes items one after another so that the stream order is the index order. */
const putItems = async (tableName: string, count: number): Promise<string[]> => {
  const keys: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const pk = itemKey(index);
    await local().documents.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk, sk: 'report', index, body: new Uint8Array([index % 256, 0xff]) },
      }),
    );
    keys.push(pk);
  }
  return keys;
};

interface Failure {
  readonly records: DynamoDBRecord[];
  readonly error: Error;
}

/** Starts a poller that records what reaches `onFailure` and is stopped when the test ends. */
const pollStream = (
  streamArn: string,
  options: Pick<StreamPollerOptions, 'handler'> & Partial<StreamPollerOptions>,
) => {
  const failures: Failure[] = [];
  const poller = startStreamPoller({
    streamsClient: local().streams,
    streamArn,
    pollIntervalMs: 50,
    onFailure: (records, error) => {
      failures.push({ records, error });
    },
    ...options,
  });
  onTestFinished(() => poller.stop());
  return { poller, failures };
};

const isInsert = (record: DynamoDBRecord): boolean => record.eventName === 'INSERT';

describe('startStreamPoller on DynamoDB Local', () => {
  it('delivers INSERTs only, in order, each once, in batches of at most batchSize', async () => {
    // Prepare: 250 inserts, then a MODIFY and a REMOVE that the filter must drop.
    const { eventTable, streamArn } = await createEventTable();
    const keys = await putItems(eventTable, 250);
    await local().documents.send(
      new UpdateCommand({
        TableName: eventTable,
        Key: { pk: itemKey(0), sk: 'report' },
        UpdateExpression: 'SET seen = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
    await local().documents.send(
      new DeleteCommand({ TableName: eventTable, Key: { pk: itemKey(1), sk: 'report' } }),
    );
    const batches: DynamoDBRecord[][] = [];

    // Act
    const { poller, failures } = pollStream(streamArn, {
      batchSize: 100,
      filter: isInsert,
      handler: (event: DynamoDBStreamEvent) => {
        batches.push(event.Records);
      },
    });
    await poller.drained();

    // Assess
    const delivered = batches.flat();
    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(delivered.map(keyOf)).toEqual(keys);
    expect(delivered.every(isInsert)).toBe(true);
    const sequenceNumbers = delivered.map((record) =>
      BigInt(record.dynamodb?.SequenceNumber ?? -1),
    );
    expect(
      sequenceNumbers.every((value, i) => i === 0 || value > (sequenceNumbers[i - 1] ?? value)),
    ).toBe(true);
    expect(poller.stats).toMatchObject({
      invocations: 3,
      recordsRead: 252,
      recordsFiltered: 2,
      recordsSucceeded: 250,
      recordsFailed: 0,
    });
    expect(failures).toEqual([]);
  }, 60_000);

  it('hands over records in the shape Lambda passes', async () => {
    // Prepare
    const { eventTable, streamArn } = await createEventTable();
    await local().documents.send(
      new PutCommand({
        TableName: eventTable,
        Item: {
          pk: 'report#1',
          sk: 'report',
          count: 3,
          body: new Uint8Array([1, 2, 255]),
          tags: new Set(['a', 'b']),
          nested: { list: [true, null] },
        },
      }),
    );
    const records: DynamoDBRecord[] = [];

    // Act
    const { poller } = pollStream(streamArn, {
      handler: (event) => {
        records.push(...event.Records);
      },
    });
    await poller.drained();

    // Assess
    expect(records).toHaveLength(1);
    expect(records[0]).toEqual({
      eventID: expect.any(String),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: expect.any(String),
      eventSourceARN: streamArn,
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: 'report#1' }, sk: { S: 'report' } },
        NewImage: {
          pk: { S: 'report#1' },
          sk: { S: 'report' },
          count: { N: '3' },
          body: { B: Buffer.from([1, 2, 255]).toString('base64') },
          tags: { SS: expect.arrayContaining(['a', 'b']) },
          nested: { M: { list: { L: [{ BOOL: true }, { NULL: true }] } } },
        },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_IMAGE',
      },
    });
  });

  it('redelivers a partially failed batch from the lowest failed record onward', async () => {
    // Prepare
    const { eventTable, streamArn } = await createEventTable();
    const keys = await putItems(eventTable, 10);
    const invocations: string[][] = [];
    const handler = (event: DynamoDBStreamEvent): DynamoDBBatchResponse => {
      invocations.push(event.Records.map(keyOf));
      if (invocations.length > 1) return { batchItemFailures: [] };
      // Two failures; Lambda checkpoints before the lower one (the fourth record).
      const sequenceOf = (index: number) => event.Records[index]?.dynamodb?.SequenceNumber ?? '';
      return {
        batchItemFailures: [{ itemIdentifier: sequenceOf(6) }, { itemIdentifier: sequenceOf(3) }],
      };
    };

    // Act
    const { poller, failures } = pollStream(streamArn, { batchSize: 10, handler });
    await poller.drained();

    // Assess
    expect(invocations).toEqual([keys, keys.slice(3)]);
    expect(failures).toEqual([]);
    expect(poller.stats).toMatchObject({ recordsSucceeded: 10, retries: 1, bisections: 0 });
  });

  it('fails the whole batch when a partial response names no record of the batch', async () => {
    // Prepare
    const { eventTable, streamArn } = await createEventTable();
    const keys = await putItems(eventTable, 3);
    const invocations: string[][] = [];

    // Act
    const { poller, failures } = pollStream(streamArn, {
      maxRetries: 1,
      bisectOnError: false,
      handler: (event) => {
        invocations.push(event.Records.map(keyOf));
        return { batchItemFailures: [{ itemIdentifier: '' }] };
      },
    });
    await poller.drained();

    // Assess
    expect(invocations).toEqual([keys, keys]);
    expect(failures.map((failure) => failure.records.map(keyOf))).toEqual([keys]);
    expect(failures[0]?.error.name).toBe('InvalidBatchResponseError');
  });

  it('isolates a poison record by bisection: the others succeed, it reaches onFailure after the retries', async () => {
    // Prepare
    const { eventTable, streamArn } = await createEventTable();
    const keys = await putItems(eventTable, 8);
    const poison = itemKey(5);
    const succeeded: string[] = [];
    let poisonAlone = 0;
    const handler = (event: DynamoDBStreamEvent): void => {
      const batch = event.Records.map(keyOf);
      if (batch.includes(poison)) {
        if (batch.length === 1) poisonAlone += 1;
        throw new Error(`cannot publish ${poison}`);
      }
      succeeded.push(...batch);
    };

    // Act
    const { poller, failures } = pollStream(streamArn, { batchSize: 8, maxRetries: 3, handler });
    await poller.drained();

    // Assess
    expect(succeeded.toSorted()).toEqual(keys.filter((key) => key !== poison));
    expect(poisonAlone).toBe(1 + 3);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.records.map(keyOf)).toEqual([poison]);
    expect(failures[0]?.error.message).toBe(`cannot publish ${poison}`);
    expect(poller.stats).toMatchObject({ recordsSucceeded: 7, recordsFailed: 1 });
  });

  it('isolates a poison record reported in partial batch responses the same way', async () => {
    // Prepare: the handler processes every record and names the poison one, as Powertools does.
    const { eventTable, streamArn } = await createEventTable();
    const keys = await putItems(eventTable, 8);
    const poison = itemKey(5);
    const processed = new Set<string>();
    const handler = (event: DynamoDBStreamEvent): DynamoDBBatchResponse => {
      const failed = event.Records.filter((record) => keyOf(record) === poison);
      for (const record of event.Records)
        if (keyOf(record) !== poison) processed.add(keyOf(record));
      return {
        batchItemFailures: failed.map((record) => ({
          itemIdentifier: record.dynamodb?.SequenceNumber ?? '',
        })),
      };
    };

    // Act
    const { poller, failures } = pollStream(streamArn, { batchSize: 8, maxRetries: 2, handler });
    await poller.drained();

    // Assess
    expect([...processed].sort()).toEqual(keys.filter((key) => key !== poison));
    expect(failures.map((failure) => failure.records.map(keyOf))).toEqual([[poison]]);
    expect(failures[0]?.error.name).toBe('BatchItemFailuresError');
    expect(poller.stats).toMatchObject({ recordsSucceeded: 7, recordsFailed: 1 });
  });

  it('without bisection gives the whole failing batch to onFailure after the retries', async () => {
    // Prepare
    const { eventTable, streamArn } = await createEventTable();
    const keys = await putItems(eventTable, 4);
    let invocations = 0;

    // Act
    const { poller, failures } = pollStream(streamArn, {
      bisectOnError: false,
      maxRetries: 2,
      handler: () => {
        invocations += 1;
        throw new Error('bus unavailable');
      },
    });
    await poller.drained();

    // Assess
    expect(invocations).toBe(1 + 2);
    expect(failures.map((failure) => failure.records.map(keyOf))).toEqual([keys]);
  });

  it('stops at once, leaves no timer behind, and refuses drained() afterwards', async () => {
    // Prepare: a long poll interval, so a stop() that waited for the timer would take a minute.
    const { eventTable, streamArn } = await createEventTable();
    await putItems(eventTable, 1);
    const streams = localStreamsClient(local().server.endpoint);
    const timersBefore = activeTimers();
    let invocations = 0;
    const poller = startStreamPoller({
      streamsClient: streams,
      streamArn,
      pollIntervalMs: 60_000,
      handler: () => {
        invocations += 1;
      },
      onFailure: () => undefined,
    });
    await poller.drained();

    // Act
    const stopStarted = performance.now();
    await poller.stop();
    const stopMs = performance.now() - stopStarted;
    streams.destroy();

    // Assess
    expect(stopMs).toBeLessThan(5_000);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    expect(invocations).toBe(1);
    await expect(poller.drained()).rejects.toBeInstanceOf(StreamPollerStoppedError);
  });
});

describe('stream checkpoints: a restarted consumer resumes where it left off', () => {
  const checkpointsFor = async (streamArn: string) => {
    const { stateTable } = freshTables();
    await createTables(local().client, { eventTable: `${stateTable}-events`, stateTable });
    return stateTableCheckpoints(local().documents, stateTable, 'publish-events', streamArn);
  };
  type Checkpoints = Awaited<ReturnType<typeof checkpointsFor>>;

  /** Polls from the checkpoints `store` holds until drained; answers the keys read and the poller. */
  const drainKeys = async (
    streamArn: string,
    store: Checkpoints,
    options: Partial<StreamPollerOptions> = {},
  ) => {
    const keys: string[] = [];
    const { poller } = pollStream(streamArn, {
      checkpoints: await store.load(),
      handler: (event: DynamoDBStreamEvent) => {
        keys.push(...event.Records.map(keyOf));
      },
      ...options,
    });
    await poller.drained();
    return { keys, poller };
  };

  it('delivers after a restart only the records written since the last settled one', async () => {
    // Prepare: a first consumer settles five records, then stops; three more arrive.
    const { eventTable, streamArn } = await createEventTable();
    const store = await checkpointsFor(streamArn);
    const firstKeys = await putItems(eventTable, 5);
    const saving = {
      onCheckpoint: (shard: string, sequence: string) => store.save(shard, sequence),
    };
    const firstRun = await drainKeys(streamArn, store, saving);
    const first = firstRun.keys;
    await firstRun.poller.stop();
    for (let index = 5; index < 8; index += 1) {
      await local().documents.send(
        new PutCommand({ TableName: eventTable, Item: { pk: itemKey(index), sk: 'report' } }),
      );
    }
    // A record the filter drops, last: the checkpoint must move past it too.
    await local().documents.send(
      new DeleteCommand({ TableName: eventTable, Key: { pk: itemKey(7), sk: 'report' } }),
    );

    // Act: a second consumer, as after a restart, from the saved checkpoints.
    const secondRun = await drainKeys(streamArn, store, { ...saving, filter: isInsert });
    const second = secondRun.keys;
    await secondRun.poller.stop();
    const thirdRun = await drainKeys(streamArn, store);
    const third = thirdRun.keys;

    // Assess
    expect(first).toEqual(firstKeys);
    expect(second).toEqual([itemKey(5), itemKey(6), itemKey(7)]);
    expect(third).toEqual([]);
    expect(thirdRun.poller.stats.recordsRead).toBe(0);
  }, 60_000);

  it('does not move the checkpoint past a batch abandoned by a stop, so it is delivered again', async () => {
    // Prepare: the handler fails, and is stopped in the middle of its second attempt.
    const { eventTable, streamArn } = await createEventTable();
    const store = await checkpointsFor(streamArn);
    const keys = await putItems(eventTable, 3);
    let attempts = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let secondAttempt: () => void = () => undefined;
    const secondAttemptStarted = new Promise<void>((resolve) => {
      secondAttempt = resolve;
    });
    const failing = pollStream(streamArn, {
      checkpoints: await store.load(),
      onCheckpoint: (shard, sequence) => store.save(shard, sequence),
      maxRetries: 1_000,
      bisectOnError: false,
      handler: async () => {
        attempts += 1;
        if (attempts >= 2) {
          secondAttempt();
          await gate;
        }
        throw new Error('bus unavailable');
      },
    });
    await secondAttemptStarted;
    const stopping = failing.poller.stop();
    release();
    await stopping;

    // Act
    const { keys: delivered } = await drainKeys(streamArn, store);

    // Assess: nothing was given up on, and every record comes again.
    expect(await store.load()).toEqual(new Map());
    expect(failing.failures).toEqual([]);
    expect(delivered).toEqual(keys);
  }, 60_000);

  it('ignores the checkpoints of an earlier stream of the same name', async () => {
    const { streamArn } = await createEventTable();
    const store = await checkpointsFor(streamArn);
    await store.save('shardId-old', '000000000000000000042');
    const { stateTable } = freshTables();
    await createTables(local().client, { eventTable: `${stateTable}-events`, stateTable });
    const before = stateTableCheckpoints(local().documents, stateTable, 'c', `${streamArn}-old`);
    await before.save('shardId-old', '000000000000000000042');

    const after = stateTableCheckpoints(local().documents, stateTable, 'c', streamArn);

    expect(await store.load()).toEqual(new Map([['shardId-old', '000000000000000000042']]));
    expect(await after.load()).toEqual(new Map());
    await after.save('shardId-new', '000000000000000000007');
    expect(await after.load()).toEqual(new Map([['shardId-new', '000000000000000000007']]));
  });
});

const activeTimers = (): number =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
