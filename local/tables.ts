/**
 * Creates msgbridge's two tables on a local server from the same definitions the CDK stack uses,
 * so the local run and the integration tests exercise the tables that get deployed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  ResourceInUseException,
  type TableDescription,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  KeyElement,
  TableDefinition as TemplateTable,
} from '../aws-semantics/cloudformation-template.ts';
import { EVENT_TABLE, STATE_TABLE, type TableDefinition } from '../functions/commons/tables.ts';

export interface LocalTableNames {
  readonly eventTable: string;
  readonly stateTable: string;
}

/** A table exists with a shape other than its definition; recreating it is the caller's call. */
export class TableMismatchError extends Error {
  override readonly name = 'TableMismatchError';
  constructor(
    readonly tableName: string,
    readonly problems: readonly string[],
  ) {
    super(`Table ${tableName} exists but does not match its definition: ${problems.join('; ')}`);
  }
}

const ACTIVE_TIMEOUT_MS = 30_000;
const ACTIVE_POLL_MS = 50;

/**
 * Creates the event and state tables (on-demand billing; the event table streams new images;
 * TTL on `expiresAt`) and waits until both are ACTIVE. An existing table with the right keys is
 * kept as it is, so this can run on every start of the local run, whose tables persist across
 * restarts; one with other keys or another stream view throws {@link TableMismatchError}. An index
 * the definition has gained since the table was created is added, so a data directory made by an
 * earlier version keeps working.
 *
 * Servers without the TTL API (dynalite) are tolerated: TTL is skipped there and nothing expires.
 * Any other TTL error is thrown.
 *
 * @returns the event table's stream ARN, or `undefined` when the server has no streams (dynalite)
 */
export const createTables = async (
  client: DynamoDBClient,
  names: LocalTableNames,
): Promise<string | undefined> => {
  const [eventTable] = await Promise.all([
    createTable(client, names.eventTable, EVENT_TABLE),
    createTable(client, names.stateTable, STATE_TABLE),
  ]);
  return eventTable.LatestStreamArn;
};

/**
 * A table as the local run creates it, under its name: the shape of a template's table (without
 * its logical id and key), or of a definition.
 */
export type LocalTableSpec = Omit<TemplateTable, 'logicalId' | 'kmsKeyId'> & {
  readonly tableName: string;
};

/** The spec of one of msgbridge's table definitions (functions/commons/tables.ts). */
export const tableSpecOf = (tableName: string, definition: TableDefinition): LocalTableSpec => {
  const keySchema: KeyElement[] = [{ AttributeName: definition.partitionKey, KeyType: 'HASH' }];
  const attributes: Array<TemplateTable['attributes'][number]> = [
    { AttributeName: definition.partitionKey, AttributeType: 'S' },
  ];
  if (definition.sortKey !== undefined) {
    keySchema.push({ AttributeName: definition.sortKey, KeyType: 'RANGE' });
    attributes.push({ AttributeName: definition.sortKey, AttributeType: 'S' });
  }
  for (const index of definition.indexes ?? []) {
    for (const name of [index.partitionKey, index.sortKey]) {
      if (!attributes.some((attribute) => attribute.AttributeName === name)) {
        attributes.push({ AttributeName: name, AttributeType: 'S' });
      }
    }
  }
  return {
    tableName,
    keySchema,
    attributes,
    indexes: (definition.indexes ?? []).map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
    })),
    // The publisher only needs the new image; keys-only would force a read per event.
    streamViewType: definition.stream ? 'NEW_IMAGE' : undefined,
    timeToLiveAttribute: definition.timeToLiveAttribute,
  };
};

const createTable = (
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
): Promise<TableDescription> => ensureTable(client, tableSpecOf(tableName, definition));

/**
 * Creates a table (on-demand billing, every index projecting all attributes) and waits until it is
 * ACTIVE; an existing one with the same keys is kept, an index it lacks is added, TTL is enabled.
 * One with other keys or another stream view throws {@link TableMismatchError}.
 */
export const ensureTable = async (
  client: DynamoDBClient,
  spec: LocalTableSpec,
): Promise<TableDescription> => {
  const { tableName, keySchema } = spec;
  const attributes = [...spec.attributes];
  const indexes = spec.indexes.map((index) => ({
    IndexName: index.IndexName,
    KeySchema: [...index.KeySchema],
    Projection: { ProjectionType: 'ALL' as const },
  }));
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        KeySchema: [...keySchema],
        AttributeDefinitions: attributes,
        BillingMode: 'PAY_PER_REQUEST',
        ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes } : {}),
        StreamSpecification: spec.streamViewType
          ? { StreamEnabled: true, StreamViewType: spec.streamViewType }
          : undefined,
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  let table = await waitUntilActive(client, tableName);
  assertShapeMatches(tableName, table, spec);
  for (const index of indexes) {
    if (table.GlobalSecondaryIndexes?.some((found) => found.IndexName === index.IndexName))
      continue;
    // One index per UpdateTable call: DynamoDB refuses to create several at once.
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributes,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    table = await waitUntilActive(client, tableName);
  }
  if (spec.timeToLiveAttribute !== undefined)
    await enableTimeToLive(client, tableName, spec.timeToLiveAttribute);
  return table;
};

const waitUntilActive = async (
  client: DynamoDBClient,
  tableName: string,
): Promise<TableDescription> => {
  const deadline = Date.now() + ACTIVE_TIMEOUT_MS;
  for (;;) {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === undefined || index.IndexStatus === 'ACTIVE',
    );
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return table;
    if (Date.now() > deadline) {
      throw new Error(
        `Table ${tableName} is still ${table?.TableStatus ?? 'unknown'} after ${ACTIVE_TIMEOUT_MS} ms`,
      );
    }
    await sleep(ACTIVE_POLL_MS);
  }
};

const assertShapeMatches = (
  tableName: string,
  table: TableDescription,
  spec: LocalTableSpec,
): void => {
  const describe = (keys: readonly KeySchemaElement[] | undefined): string =>
    (keys ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(',');
  const problems: string[] = [];
  if (describe(table.KeySchema) !== describe(spec.keySchema)) {
    problems.push(
      `key schema is ${describe(table.KeySchema)}, expected ${describe(spec.keySchema)}`,
    );
  }
  // Only a server with streams reports a StreamSpecification (dynalite drops it), so an absent
  // one proves nothing; a present one must be what the stream's readers expect.
  const stream = table.StreamSpecification;
  if (stream !== undefined) {
    const actual = stream.StreamEnabled ? (stream.StreamViewType ?? 'unknown') : 'off';
    const expected = spec.streamViewType ?? 'off';
    if (actual !== expected) problems.push(`stream is ${actual}, expected ${expected}`);
  }
  for (const index of spec.indexes) {
    const found = table.GlobalSecondaryIndexes?.find((each) => each.IndexName === index.IndexName);
    const expected = describe(index.KeySchema);
    if (found !== undefined && describe(found.KeySchema) !== expected)
      problems.push(
        `index ${index.IndexName} is ${describe(found.KeySchema)}, expected ${expected}`,
      );
  }
  if (problems.length > 0) throw new TableMismatchError(tableName, problems);
};

const enableTimeToLive = async (
  client: DynamoDBClient,
  tableName: string,
  attributeName: string,
): Promise<void> => {
  const { TimeToLiveDescription: current } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  // UpdateTimeToLive refuses to enable TTL twice, so an existing table needs this check.
  if (
    (current?.TimeToLiveStatus === 'ENABLED' || current?.TimeToLiveStatus === 'ENABLING') &&
    current.AttributeName === attributeName
  ) {
    return;
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: attributeName },
      }),
    );
  } catch (error) {
    if (isUnsupportedOperation(error)) return;
    throw error;
  }
};

/** dynalite answers operations it does not implement (UpdateTimeToLive) with this error. */
const isUnsupportedOperation = (error: unknown): boolean =>
  error instanceof Error && error.name === 'UnknownOperationException';
