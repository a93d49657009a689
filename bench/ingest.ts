/**
 * Scenario `ingest`: the cost and speed of the inbound path.
 *
 * - DynamoDB writes per new report (target 1.0) and events per duplicate report (target 0): 1,000
 *   reports in ten 100-report bodies, then every body delivered again, against dynalite.
 * - PutEvents calls per event (target ≤ 0.1): the stored items, published in stream batches of 100.
 * - Median handler time per 100-report body against dynalite.
 * Bundle sizes and import times of every Lambda are the `cold-start` scenario's.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, DynamoDBRecord } from 'aws-lambda';
import { reportBody } from '../fixtures/gateway-bodies.ts';
import { scanItems } from '../functions/commons/clients/dynamodb.ts';
import { DynamoDbEventStore } from '../functions/event-table/dynamodb-event-store.ts';
import { storedMessageStatus } from '../functions/publishing/adapters/stored-message-status.ts';
import type { BusEntry } from '../functions/publishing/ports.ts';
import { publishRecords } from '../functions/publishing/publish.ts';
import { createWebhookHandler } from '../functions/webhooks/handler.ts';
import { startDynalite } from '../local/dynalite.ts';
import { localDynamoDbClient } from '../local/dynamodb-local.ts';
import { createTables } from '../local/tables.ts';
import { figuresTable, median, type ScenarioResult } from './report.ts';

const countingClient = (endpoint: string) => {
  const client = localDynamoDbClient(endpoint);
  const counts = { putAttempts: 0, putsWritten: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'PutItemCommand') return next(args);
      counts.putAttempts += 1;
      const result = await next(args);
      counts.putsWritten += 1;
      return result;
    },
    { step: 'initialize', name: 'countPuts' },
  );
  return { client, counts };
};

const ingestFigures = async () => {
  const dynalite = await startDynalite();
  try {
    const { client, counts } = countingClient(dynalite.endpoint);
    await createTables(client, { eventTable: 'bench-events', stateTable: 'bench-state' });
    const documents = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    const handler = createWebhookHandler({
      kind: 'report',
      secret: async () => ({ current: 'bench-secret-0123456789' }),
      receive: {
        store: new DynamoDbEventStore('bench-events', documents),
        now: () => new Date(),
        retentionDays: 35,
        concurrency: 16,
      },
      logger: new Logger({ logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'bench', serviceName: 'bench' }),
    });
    const call = (body: string) =>
      handler({
        pathParameters: { secret: 'bench-secret-0123456789' },
        body,
      } as unknown as APIGatewayProxyEvent);

    const bodies = Array.from({ length: 10 }, (_, i) => JSON.stringify(reportBody(100, i * 100)));
    const firstTimes: number[] = [];
    for (const body of bodies) {
      const started = performance.now();
      const answer = await call(body);
      firstTimes.push(performance.now() - started);
      if (answer.statusCode !== 200)
        throw new Error(`first delivery answered ${answer.statusCode}`);
    }
    const afterFirst = { ...counts };
    const items = await scanAll(documents, 'bench-events');

    const duplicateTimes: number[] = [];
    for (const body of bodies) {
      const started = performance.now();
      await call(body);
      duplicateTimes.push(performance.now() - started);
    }
    const itemsAfterDuplicates = await scanAll(documents, 'bench-events');

    // Publish what the stream would carry: one INSERT per stored item, in batches of 100.
    const records = items.map(
      (item, index): DynamoDBRecord => ({
        eventName: 'INSERT',
        dynamodb: {
          NewImage: marshall(item) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
          SequenceNumber: String(index),
        },
      }),
    );
    let putEventsCalls = 0;
    let eventsPut = 0;
    const bus = {
      putEvents: async (entries: readonly BusEntry[]) => {
        putEventsCalls += 1;
        eventsPut += entries.length;
        return entries.map(() => ({ ok: true as const }));
      },
    };
    for (let start = 0; start < records.length; start += 100) {
      await publishRecords(records.slice(start, start + 100), {
        bus,
        source: 'msgbridge',
        messageStatus: storedMessageStatus('bench-events', documents),
        maxAttempts: 3,
        backoffMs: () => 0,
        sleep: async () => {},
        maxBatchBytes: 256 * 1024,
      });
    }

    return {
      newReports: 1_000,
      duplicateReports: 1_000,
      dynamoWritesPerNewReport: afterFirst.putsWritten / 1_000,
      itemsStored: items.length,
      eventsPerDuplicateReport: (itemsAfterDuplicates.length - items.length) / 1_000,
      putEventsCallsPerEvent: putEventsCalls / eventsPut,
      medianHandlerMsPer100NewReports: Number(median(firstTimes).toFixed(1)),
      medianHandlerMsPer100DuplicateReports: Number(median(duplicateTimes).toFixed(1)),
    };
  } finally {
    await dynalite.stop();
  }
};

const scanAll = async (documents: DynamoDBDocumentClient, table: string) => {
  const items: Record<string, unknown>[] = [];
  for await (const item of scanItems(documents, { TableName: table })) items.push(item);
  return items;
};

export const runIngest = async (): Promise<ScenarioResult> => {
  const figures = await ingestFigures();
  return {
    figures,
    tables: [
      figuresTable(
        'ingest: 1,000 reports in ten 100-report bodies, then each body again (dynalite)',
        [
          ['DynamoDB writes per new report', figures.dynamoWritesPerNewReport, '1.0'],
          ['events per duplicate report', figures.eventsPerDuplicateReport, '0'],
          ['PutEvents calls per event', figures.putEventsCallsPerEvent, '≤ 0.1'],
          ['items stored', figures.itemsStored],
          ['median handler ms per 100 new reports', figures.medianHandlerMsPer100NewReports],
          [
            'median handler ms per 100 duplicate reports',
            figures.medianHandlerMsPer100DuplicateReports,
          ],
        ],
      ),
    ],
  };
};
