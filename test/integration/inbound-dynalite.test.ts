import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reportBody, reportItem } from '../../fixtures/gateway-bodies.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { createWebhookHandler } from '../../functions/webhooks/handler.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import { scanItems } from '../support/scan-items.ts';

const SECRET = 'integration-secret-0123456789';
let dynalite: LocalDynalite;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;
let table = '';
let tableNumber = 0;
/** `pk`s whose next put fails once, as a throttled write would. */
const failOnce = new Set<string>();

beforeAll(async () => {
  dynalite = await startDynalite();
  client = localDynamoDbClient(dynalite.endpoint);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // At this step a DocumentClient command still carries plain values.
      const input = args.input as { Item?: { pk?: unknown } };
      const pk = typeof input.Item?.pk === 'string' ? input.Item.pk : undefined;
      if (context.commandName === 'PutItemCommand' && pk && failOnce.delete(pk)) {
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'scriptedFailures' },
  );
  documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
});

afterAll(async () => {
  await dynalite.stop();
});

beforeEach(async () => {
  table = `events-${++tableNumber}`;
  await createTables(client, { eventTable: table, stateTable: `state-${tableNumber}` });
});

const handler = () =>
  createWebhookHandler({
    kind: 'report',
    secret: async () => ({ current: SECRET }),
    receive: {
      store: new DynamoDbEventStore(table, documents),
      now: () => new Date(),
      retentionDays: 35,
      concurrency: 16,
    },
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
  });

const post = (body: unknown) =>
  handler()({
    pathParameters: { secret: SECRET },
    body: JSON.stringify(body),
  } as unknown as APIGatewayProxyEvent);

const items = () => scanItems(documents, table);

describe('the event store on a DynamoDB-protocol server', () => {
  it('writes an item once and reports the second put as a duplicate', async () => {
    const store = new DynamoDbEventStore(table, documents);
    const record = {
      pk: 'REPORT#X',
      sk: 'RESULT#10000#SMS',
      kind: 'report' as const,
      detailType: 'Delivery Report Received',
      detail: '{}',
      eventId: 'e',
      receivedAt: '2026-11-21T00:00:00.000Z',
      expiresAt: 1,
    };

    expect(await store.putIfAbsent(record)).toBe('stored');
    expect(await store.putIfAbsent({ ...record, detail: '{"changed":true}' })).toBe('duplicate');
    expect((await items())[0]?.detail).toBe('{}');
  });

  it('stores a 100-report body as exactly 100 items', async () => {
    const answer = await post(reportBody(100));

    expect(answer.statusCode).toBe(200);
    expect(await items()).toHaveLength(100);
  });

  it('stores the same body delivered 5 times at once as exactly 100 items', async () => {
    const body = reportBody(100);

    const answers = await Promise.all(Array.from({ length: 5 }, () => post(body)));

    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await items()).toHaveLength(100);
  });

  it('answers 400 when a write fails, and the redelivery completes the body without duplicates', async () => {
    const body = reportBody(100);
    failOnce.add('REPORT#M0000000042');

    const first = await post(body);
    const afterFirst = await items();
    const second = await post(body);

    expect(first.statusCode).toBe(400);
    expect(afterFirst).toHaveLength(99);
    expect(second.statusCode).toBe(200);
    expect(await items()).toHaveLength(100);
  });

  it('derives a per-message status that only moves forward', async () => {
    const store = new DynamoDbEventStore(table, documents);
    await post({ rptLst: [reportItem(1, { ch: 'MSGR', resultCode: '32114' })] });
    const uncertain = await store.messageStatus('M0000000001');
    await post({ rptLst: [reportItem(1, { ch: 'MSGR', resultCode: '10000' })] });
    const delivered = await store.messageStatus('M0000000001');
    await post({ rptLst: [reportItem(1, { ch: 'MSGR', resultCode: '32114' })] });

    expect(uncertain).toMatchObject({ state: 'uncertain', resultCode: '32114' });
    expect(delivered).toMatchObject({ state: 'delivered', resultCode: '10000', reports: 2 });
    expect(await store.messageStatus('M0000000001')).toEqual(delivered);
    expect(await store.messageStatus('never')).toBeUndefined();
  });

  it('counts reports only, not the guards a status-built report leaves beside them', async () => {
    const store = new DynamoDbEventStore(table, documents);
    await post({ rptLst: [reportItem(2, { ch: 'SMS', resultCode: '10000' })] });
    await documents.send(
      new PutCommand({
        TableName: table,
        Item: {
          pk: 'REPORT#M0000000002',
          sk: 'RESULT#10000#LMS',
          reportGuardOf: 'RESULT#10000#SMS',
        },
      }),
    );

    expect(await store.messageStatus('M0000000002')).toEqual({
      msgKey: 'M0000000002',
      state: 'delivered',
      resultCode: '10000',
      reports: 1,
    });
  });
});
