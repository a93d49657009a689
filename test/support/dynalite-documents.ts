/** One dynalite per test file with a document client on it, and the clean-ups each test queues. */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';

export let dynalite: LocalDynalite;
export let documents: DynamoDBDocumentClient;
/** Run in reverse after each test: what a test started (simulators, servers) is closed. */
export const cleanups: (() => Promise<void>)[] = [];

/** Starts dynalite before the file's tests, runs the clean-ups after each test, stops dynalite at the end. */
export const useDynalite = (): void => {
  beforeAll(async () => {
    dynalite = await startDynalite();
    documents = DynamoDBDocumentClient.from(localDynamoDbClient(dynalite.endpoint), {
      marshallOptions: { removeUndefinedValues: true },
    });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  afterAll(async () => {
    await dynalite?.stop();
  });
};

/**
 * Puts `item` into `table` twice, each time on condition that its `pk` is not there yet (on
 * dynalite or DynamoDB Local alike). Answers the first put's output and the second put itself, a
 * promise for the test to expect the refusal of.
 */
export const putIfAbsentTwice = async (
  client: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
) => {
  const put = () =>
    client.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  const first = await put();
  const second = put();
  return { first, second };
};

/** The descriptions of the event and state tables of `names` (on dynalite or DynamoDB Local). */
export const describeTables = async (
  client: DynamoDBClient,
  names: { readonly eventTable: string; readonly stateTable: string },
) => {
  const describe = async (tableName: string) =>
    (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  return { events: await describe(names.eventTable), state: await describe(names.stateTable) };
};

/** What DescribeTable shows of the event table `createTables` makes: active, keyed pk + sk, on demand. */
export const CREATED_EVENT_TABLE = {
  TableStatus: 'ACTIVE',
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
};
