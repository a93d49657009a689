import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EVENT_TABLE } from '../../functions/commons/tables.ts';
import {
  JavaNotFoundError,
  localDynamoDbClient,
  startDynamoDbLocal,
} from '../../local/dynamodb-local.ts';
import { createTables, TableMismatchError } from '../../local/tables.ts';
import {
  CREATED_EVENT_TABLE,
  describeTables,
  putIfAbsentTwice,
} from '../support/dynalite-documents.ts';
import {
  createEventTable,
  freshTables,
  local,
  useDynamoDbLocal,
} from '../support/dynamodb-local.ts';

useDynamoDbLocal();

/**
 * Creates `tableName` by hand, keyed by the string attributes `keys` (the hash key, then the range
 * key if any), billed on demand, with `more` of CreateTable's settings.
 */
const createKeyedTable = (
  tableName: string,
  keys: readonly [string] | readonly [string, string],
  more: Partial<CreateTableCommandInput> = {},
) =>
  local().client.send(
    new CreateTableCommand({
      TableName: tableName,
      KeySchema: keys.map((key, index) => ({
        AttributeName: key,
        KeyType: index === 0 ? 'HASH' : 'RANGE',
      })),
      AttributeDefinitions: keys.map((key) => ({ AttributeName: key, AttributeType: 'S' })),
      BillingMode: 'PAY_PER_REQUEST',
      ...more,
    }),
  );

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
    const { events, state } = await describeTables(local().client, names);
    expect(streamArn).toMatch(new RegExp(`:table/${names.eventTable}/stream/`));
    expect(again).toBe(streamArn);
    expect(events).toMatchObject({
      ...CREATED_EVENT_TABLE,
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
    await createKeyedTable(names.stateTable, ['pk']);
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
    await createKeyedTable(names.eventTable, ['id']);

    // Act
    const creating = createTables(local().client, names);

    // Assess
    await expect(creating).rejects.toBeInstanceOf(TableMismatchError);
    await expect(creating).rejects.toThrow(/key schema is id:HASH, expected pk:HASH,sk:RANGE/);
  });

  it('adds an index the definition gained to a table an earlier version created, keeping its items', async () => {
    // Prepare: the event table as a data directory from before the index existed.
    const names = freshTables();
    await createKeyedTable(names.eventTable, ['pk', 'sk'], {
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    });
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

    // Act
    const { first, second } = await putIfAbsentTwice(local().documents, eventTable, {
      pk: 'report#msg-1',
      sk: 'report',
      status: 'delivered',
    });

    // Assess
    expect(first.$metadata.httpStatusCode).toBe(200);
    await expect(second).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });
});

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
