import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  InternalServerError,
} from '@aws-sdk/client-dynamodb-streams';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { EVENT_TABLE } from '../../functions/commons/tables.ts';
import {
  JavaNotFoundError,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  type LocalDynamoDb,
  localDynamoDbClient,
  startDynamoDbLocal,
} from '../../local/dynamodb-local.ts';
import { stateTableCheckpoints } from '../../local/stream-checkpoints.ts';
import {
  type StreamPollerOptions,
  StreamPollerStoppedError,
  startStreamPoller,
} from '../../local/stream-poller.ts';
import { createTables, TableMismatchError } from '../../local/tables.ts';

// One JVM for the whole file: it takes seconds to start on a two-core machine.
interface Harness {
  readonly server: LocalDynamoDb;
  readonly client: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
  readonly streams: DynamoDBStreamsClient;
}
let harness: Harness | undefined;

const local = (): Harness => {
  if (harness === undefined) throw new Error('DynamoDB Local did not start in beforeAll');
  return harness;
};

beforeAll(async () => {
  const server = await startDynamoDbLocal();
  const client = localDynamoDbClient(server.endpoint);
  harness = {
    server,
    client,
    documents: DynamoDBDocumentClient.from(client),
    streams: new DynamoDBStreamsClient({
      endpoint: server.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    }),
  };
}, 60_000);

afterAll(async () => {
  harness?.streams.destroy();
  harness?.client.destroy();
  await harness?.server.stop();
}, 30_000);

// Each test gets its own tables, hence its own stream: no test sees another's records.
let tableCounter = 0;
const freshTables = (): { eventTable: string; stateTable: string } => {
  tableCounter += 1;
  return { eventTable: `events-${tableCounter}`, stateTable: `state-${tableCounter}` };
};

const createEventTable = async (): Promise<{ eventTable: string; streamArn: string }> => {
  const names = freshTables();
  const streamArn = await createTables(local().client, names);
  if (streamArn === undefined) throw new Error('DynamoDB Local returned no stream ARN');
  return { eventTable: names.eventTable, streamArn };
};

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

const keyOf = (record: DynamoDBRecord): string => record.dynamodb?.Keys?.pk?.S ?? '(no key)';

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

describe('startDynamoDbLocal', () => {
  it('says that Java 17 is needed and how to install it when java is not on PATH', async () => {
    // Prepare
    const path = process.env.PATH;
    const emptyDir = await mkdtemp(join(tmpdir(), 'no-java-'));
    process.env.PATH = emptyDir;
    onTestFinished(async () => {
      process.env.PATH = path;
      await rm(emptyDir, { recursive: true, force: true });
    });

    // Act
    const starting = startDynamoDbLocal();

    // Assess
    await expect(starting).rejects.toBeInstanceOf(JavaNotFoundError);
    await expect(starting).rejects.toThrow(/Java 17.*apt-get install openjdk-17-jre-headless/s);
  });

  it('keeps data in dataDir across restarts and leaves no Java process behind', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'ddb-local-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startDynamoDbLocal({ dataDir });
    const firstClient = localDynamoDbClient(first.endpoint);
    await createTables(firstClient, { eventTable: 'events', stateTable: 'state' });
    await DynamoDBDocumentClient.from(firstClient).send(
      new PutCommand({ TableName: 'state', Item: { pk: 'token', value: 'kept' } }),
    );
    firstClient.destroy();

    // Act
    await first.stop();
    const firstPortOpen = await acceptsConnections(first.endpoint);
    const firstJavaRunning = javaProcessListens(first.endpoint);
    const second = await startDynamoDbLocal({ dataDir, inMemory: false });
    onTestFinished(() => second.stop());
    const secondClient = localDynamoDbClient(second.endpoint);
    onTestFinished(() => secondClient.destroy());
    const { Item: item } = await DynamoDBDocumentClient.from(secondClient).send(
      new GetCommand({ TableName: 'state', Key: { pk: 'token' } }),
    );

    // Assess
    expect(firstPortOpen).toBe(false);
    expect(firstJavaRunning).toBe(false);
    expect(item).toEqual({ pk: 'token', value: 'kept' });
  }, 90_000);

  it('finds the tables and the same stream again after a restart on the same dataDir', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'ddb-local-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const names = { eventTable: 'events', stateTable: 'state' };
    const first = await startDynamoDbLocal({ dataDir });
    const firstClient = localDynamoDbClient(first.endpoint);
    const firstArn = await createTables(firstClient, names);
    firstClient.destroy();
    await first.stop();

    // Act
    const second = await startDynamoDbLocal({ dataDir });
    onTestFinished(() => second.stop());
    const secondClient = localDynamoDbClient(second.endpoint);
    onTestFinished(() => secondClient.destroy());
    const secondArn = await createTables(secondClient, names);

    // Assess: no error for the existing tables, and the stream the last run's records are on.
    expect(firstArn).toMatch(/\/stream\//);
    expect(secondArn).toBe(firstArn);
  }, 90_000);

  it('refuses dataDir together with inMemory: true', async () => {
    await expect(startDynamoDbLocal({ inMemory: true, dataDir: tmpdir() })).rejects.toThrow(
      /dataDir.*inMemory/,
    );
  });
});

describe('createTables on DynamoDB Local', () => {
  it('creates both tables from the shared definitions, with the stream and TTL on', async () => {
    // Prepare
    const names = freshTables();

    // Act
    const streamArn = await createTables(local().client, names);
    const again = await createTables(local().client, names);

    // Assess
    const { Table: events } = await local().client.send(
      new DescribeTableCommand({ TableName: names.eventTable }),
    );
    const { Table: state } = await local().client.send(
      new DescribeTableCommand({ TableName: names.stateTable }),
    );
    expect(streamArn).toMatch(new RegExp(`:table/${names.eventTable}/stream/`));
    expect(again).toBe(streamArn);
    expect(events).toMatchObject({
      TableStatus: 'ACTIVE',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    });
    expect(state).toMatchObject({
      TableStatus: 'ACTIVE',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
    });
    expect(state?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    for (const tableName of [names.eventTable, names.stateTable]) {
      const { TimeToLiveDescription: ttl } = await local().client.send(
        new DescribeTimeToLiveCommand({ TableName: tableName }),
      );
      expect(ttl).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
    }
  });

  it('reports a TTL error other than "not supported" instead of swallowing it', async () => {
    // Prepare: a state table whose TTL is already on another attribute.
    const names = freshTables();
    await local().client.send(
      new CreateTableCommand({
        TableName: names.stateTable,
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await local().client.send(
      new UpdateTimeToLiveCommand({
        TableName: names.stateTable,
        TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' },
      }),
    );

    // Act
    const creating = createTables(local().client, names);

    // Assess
    await expect(creating).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('refuses an existing table whose keys differ from the definition', async () => {
    // Prepare
    const names = freshTables();
    await local().client.send(
      new CreateTableCommand({
        TableName: names.eventTable,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );

    // Act
    const creating = createTables(local().client, names);

    // Assess
    await expect(creating).rejects.toBeInstanceOf(TableMismatchError);
    await expect(creating).rejects.toThrow(/key schema is id:HASH, expected pk:HASH,sk:RANGE/);
  });

  it('adds an index the definition gained to a table an earlier version created, keeping its items', async () => {
    // Prepare: the event table as a data directory from before the index existed.
    const names = freshTables();
    await local().client.send(
      new CreateTableCommand({
        TableName: names.eventTable,
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    await local().documents.send(
      new PutCommand({ TableName: names.eventTable, Item: { pk: 'kept', sk: 'report' } }),
    );

    // Act
    const streamArn = await createTables(local().client, names);

    // Assess
    const { Table: table } = await local().client.send(
      new DescribeTableCommand({ TableName: names.eventTable }),
    );
    expect(streamArn).toBe(table?.LatestStreamArn);
    expect(
      (table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index.IndexStatus]),
    ).toEqual(EVENT_TABLE.indexes?.map((index) => [index.name, 'ACTIVE']));
    const { Item: item } = await local().documents.send(
      new GetCommand({ TableName: names.eventTable, Key: { pk: 'kept', sk: 'report' } }),
    );
    expect(item).toEqual({ pk: 'kept', sk: 'report' });
  });

  it('accepts a conditional put once and refuses the duplicate', async () => {
    // Prepare
    const { eventTable } = await createEventTable();
    const put = () =>
      local().documents.send(
        new PutCommand({
          TableName: eventTable,
          Item: { pk: 'report#msg-1', sk: 'report', status: 'delivered' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );

    // Act
    const first = await put();
    const second = put();

    // Assess
    expect(first.$metadata.httpStatusCode).toBe(200);
    await expect(second).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });
});

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
    const streams = new DynamoDBStreamsClient({
      endpoint: local().server.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
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

  it('delivers after a restart only the records written since the last settled one', async () => {
    // Prepare: a first consumer settles five records, then stops; three more arrive.
    const { eventTable, streamArn } = await createEventTable();
    const store = await checkpointsFor(streamArn);
    const firstKeys = await putItems(eventTable, 5);
    const first: string[] = [];
    const firstRun = pollStream(streamArn, {
      checkpoints: await store.load(),
      onCheckpoint: (shard, sequence) => store.save(shard, sequence),
      handler: (event: DynamoDBStreamEvent) => {
        first.push(...event.Records.map(keyOf));
      },
    });
    await firstRun.poller.drained();
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
    const second: string[] = [];
    const secondRun = pollStream(streamArn, {
      checkpoints: await store.load(),
      onCheckpoint: (shard, sequence) => store.save(shard, sequence),
      filter: isInsert,
      handler: (event: DynamoDBStreamEvent) => {
        second.push(...event.Records.map(keyOf));
      },
    });
    await secondRun.poller.drained();
    await secondRun.poller.stop();
    const third: string[] = [];
    const thirdRun = pollStream(streamArn, {
      checkpoints: await store.load(),
      handler: (event: DynamoDBStreamEvent) => {
        third.push(...event.Records.map(keyOf));
      },
    });
    await thirdRun.poller.drained();

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
    const delivered: string[] = [];
    const next = pollStream(streamArn, {
      checkpoints: await store.load(),
      handler: (event: DynamoDBStreamEvent) => {
        delivered.push(...event.Records.map(keyOf));
      },
    });
    await next.poller.drained();

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

// DynamoDB Local keeps one shard per stream for hours, so shard lineage, lapsed iterators and
// API errors are played from a script here; the poller cannot tell the difference.
describe('startStreamPoller on a scripted stream', () => {
  it('reads a parent shard to its end before its child, and rides out API errors', async () => {
    // Prepare: the child is listed first, the first DescribeStream fails, and the child's first
    // iterator has lapsed.
    const streamArn = 'arn:aws:dynamodb:ap-northeast-2:000000000000:table/events/stream/label';
    const client = new DynamoDBStreamsClient({
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    onTestFinished(() => client.destroy());
    const calls: string[] = [];
    const record = (sequence: string): _Record => ({
      eventID: `event-${sequence}`,
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventVersion: '1.1',
      awsRegion: LOCAL_REGION,
      dynamodb: {
        Keys: { pk: { S: `item-${sequence}` } },
        NewImage: { pk: { S: `item-${sequence}` } },
        SequenceNumber: sequence,
        StreamViewType: 'NEW_IMAGE',
      },
    });
    const pages: Record<string, { records: _Record[]; next?: string }> = {
      'parent@TRIM_HORIZON': { records: [record('100'), record('101')], next: 'parent@2' },
      'parent@2': { records: [], next: undefined },
      'child@TRIM_HORIZON#2': { records: [record('200')], next: 'child@2' },
      'child@2': { records: [], next: 'child@2' },
    };
    let childIterators = 0;
    const mock = mockClient(client);
    mock
      .on(DescribeStreamCommand)
      .rejectsOnce(new InternalServerError({ message: 'try again', $metadata: {} }))
      .resolves({
        StreamDescription: {
          Shards: [{ ShardId: 'child', ParentShardId: 'parent' }, { ShardId: 'parent' }],
        },
      });
    mock.on(GetShardIteratorCommand).callsFake((input) => {
      calls.push(`iterator ${input.ShardId} ${input.ShardIteratorType}`);
      if (input.ShardId !== 'child') return { ShardIterator: `parent@${input.ShardIteratorType}` };
      childIterators += 1;
      return { ShardIterator: `child@${input.ShardIteratorType}#${childIterators}` };
    });
    mock.on(GetRecordsCommand).callsFake((input) => {
      const iterator = String(input.ShardIterator);
      calls.push(`records ${iterator}`);
      if (iterator === 'child@TRIM_HORIZON#1') {
        throw new ExpiredIteratorException({ message: 'expired', $metadata: {} });
      }
      const page = pages[iterator];
      if (page === undefined) throw new Error(`unexpected iterator ${iterator}`);
      return { Records: page.records, NextShardIterator: page.next };
    });
    const delivered: string[] = [];

    // Act
    const poller = startStreamPoller({
      streamsClient: client,
      streamArn,
      pollIntervalMs: 10,
      handler: (event) => {
        delivered.push(...event.Records.map(keyOf));
      },
      onFailure: () => undefined,
    });
    onTestFinished(() => poller.stop());
    await poller.drained();

    // Assess
    expect(delivered).toEqual(['item-100', 'item-101', 'item-200']);
    expect(calls.slice(0, 5)).toEqual([
      'iterator parent TRIM_HORIZON',
      'records parent@TRIM_HORIZON',
      'records parent@2',
      'iterator child TRIM_HORIZON',
      'records child@TRIM_HORIZON#1',
    ]);
    expect(calls).toContain('records child@TRIM_HORIZON#2');
    expect(poller.stats.lastStreamError?.message).toMatch(/try again/);
    expect(poller.stats.fatalError).toBeUndefined();
  });

  it('stops and rejects drained() when onFailure itself fails, instead of skipping the record', async () => {
    // Prepare
    const client = new DynamoDBStreamsClient({
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    onTestFinished(() => client.destroy());
    const mock = mockClient(client);
    mock
      .on(DescribeStreamCommand)
      .resolves({ StreamDescription: { Shards: [{ ShardId: 'only' }] } });
    mock.on(GetShardIteratorCommand).resolves({ ShardIterator: 'only@start' });
    mock
      .on(GetRecordsCommand, { ShardIterator: 'only@start' })
      .resolves({
        Records: [
          { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', Keys: { pk: { S: 'a' } } } },
        ],
        NextShardIterator: 'only@end',
      })
      .on(GetRecordsCommand, { ShardIterator: 'only@end' })
      .resolves({ Records: [], NextShardIterator: 'only@end' });

    // Act
    const poller = startStreamPoller({
      streamsClient: client,
      streamArn: 'arn:aws:dynamodb:ap-northeast-2:000000000000:table/events/stream/label',
      maxRetries: 0,
      handler: () => {
        throw new Error('handler failed');
      },
      onFailure: () => {
        throw new Error('destination unavailable');
      },
    });
    onTestFinished(() => poller.stop());
    const draining = poller.drained();

    // Assess
    await expect(draining).rejects.toThrow('destination unavailable');
    expect(poller.stats).toMatchObject({ invocations: 1, recordsFailed: 1 });
    expect(poller.stats.fatalError?.message).toBe('destination unavailable');
  });
});

const activeTimers = (): number =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

const acceptsConnections = (endpoint: string): Promise<boolean> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(endpoint);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Whether any process on this machine still runs DynamoDB Local on the endpoint's port. */
const javaProcessListens = (endpoint: string): boolean => {
  const { port } = new URL(endpoint);
  const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return processes
    .split('\n')
    .some((line) => line.includes('DynamoDBLocal.jar') && line.includes(`-port ${port}`));
};
