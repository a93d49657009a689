import { connect } from 'node:net';
import {
  ConditionalCheckFailedException,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import {
  CREATED_EVENT_TABLE,
  describeTables,
  putIfAbsentTwice,
} from '../support/dynalite-documents.ts';

interface Harness {
  readonly server: LocalDynalite;
  readonly client: DynamoDBClient;
}
let harness: Harness | undefined;

const local = (): Harness => {
  if (harness === undefined) throw new Error('dynalite did not start in beforeAll');
  return harness;
};

beforeAll(async () => {
  const server = await startDynalite();
  harness = { server, client: localDynamoDbClient(server.endpoint) };
});

afterAll(async () => {
  harness?.client.destroy();
  await harness?.server.stop();
});

const names = { eventTable: 'events', stateTable: 'state' };

describe('createTables on dynalite', () => {
  it('creates both tables, tolerating the missing stream and TTL support', async () => {
    // Act
    const streamArn = await createTables(local().client, names);
    const again = await createTables(local().client, names);

    // Assess: dynalite has neither streams nor the TTL API, and createTables says so.
    expect(streamArn).toBeUndefined();
    expect(again).toBeUndefined();
    const { events, state } = await describeTables(local().client, names);
    expect(events).toMatchObject(CREATED_EVENT_TABLE);
    expect(state).toMatchObject({
      TableStatus: 'ACTIVE',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    });
    const { TimeToLiveDescription: ttl } = await local().client.send(
      new DescribeTimeToLiveCommand({ TableName: names.eventTable }),
    );
    expect(ttl?.TimeToLiveStatus).toBe('DISABLED');
  });

  it('accepts a conditional put once and refuses the duplicate', async () => {
    // Prepare
    await createTables(local().client, names);
    const documents = DynamoDBDocumentClient.from(local().client);

    // Act
    const { first, second } = await putIfAbsentTwice(documents, names.eventTable, {
      pk: 'inbound#mo-1',
      sk: 'inbound',
      text: '안녕하세요',
    });

    // Assess
    expect(first.$metadata.httpStatusCode).toBe(200);
    await expect(second).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });
});

describe('startDynalite', () => {
  it('listens on a loopback port and releases it on stop()', async () => {
    // Prepare
    const server = await startDynalite();
    const { hostname, port } = new URL(server.endpoint);
    const openBefore = await acceptsConnections(hostname, Number(port));

    // Act
    await server.stop();
    await server.stop();

    // Assess
    expect(hostname).toBe('127.0.0.1');
    expect(openBefore).toBe(true);
    expect(await acceptsConnections(hostname, Number(port))).toBe(false);
  });
});

const acceptsConnections = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
