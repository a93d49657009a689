/**
 * Scenario `ingest`: the cost and speed of the inbound path.
 *
 * - DynamoDB writes per new report (target 1.0) and events per duplicate report (target 0): 1,000
 *   reports in ten 100-report bodies, then every body delivered again, against dynalite.
 * - PutEvents calls per event (target ≤ 0.1): the stored items, published in stream batches of 100.
 * - Median handler time per 100-report body against dynalite.
 * - Per Lambda: minified bundle size and import time as ratios to an empty handler's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, DynamoDBRecord } from 'aws-lambda';
import { build } from 'esbuild';
import { DynamoDbEventStore } from '../functions/commons/adapters/dynamodb-event-store.ts';
import { type BusEntry, publishRecords } from '../functions/events/publish.ts';
import { createWebhookHandler } from '../functions/inbound/webhook-handler.ts';
import { startDynalite } from '../local/dynalite.ts';
import { localDynamoDbClient } from '../local/dynamodb-local.ts';
import { createTables } from '../local/tables.ts';
import { reportBody } from '../test/support/gateway-bodies.ts';

const root = join(import.meta.dirname, '..');
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

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
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/** The same esbuild settings as `lib/msgbridge-function.ts`. */
const bundle = async (entry: string, outfile: string) => {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    minify: true,
    logLevel: 'silent',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return statSync(outfile).size;
};

/** Median wall time of a fresh `node` importing the bundle, minus nothing: ratios cancel node's start. */
const importMs = (file: string, environment: Record<string, string>) => {
  const times: number[] = [];
  for (let run = 0; run < 7; run++) {
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const t=performance.now();await import(${JSON.stringify(file)});console.log(performance.now()-t)`,
      ],
      { env: { ...process.env, ...environment }, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`importing ${file} failed: ${result.stderr}`);
    times.push(Number(result.stdout.trim()));
  }
  return median(times);
};

const bundleFigures = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-'));
  try {
    const emptyEntry = join(dir, 'empty.ts');
    writeFileSync(emptyEntry, 'export const handler = async () => ({ statusCode: 200 });\n');
    const environment = {
      EVENT_TABLE_NAME: 'bench',
      EVENT_BUS_NAME: 'bench',
      WEBHOOK_SECRET: 'bench-secret-0123456789',
      AWS_REGION: 'ap-northeast-2',
    };
    const emptyBytes = await bundle(emptyEntry, join(dir, 'empty.mjs'));
    const emptyImport = importMs(join(dir, 'empty.mjs'), environment);
    const figures: Record<
      string,
      { bytes: number; bytesRatio: number; importMs: number; importRatio: number }
    > = {};
    for (const name of ['receive-reports', 'receive-inbound', 'publish-events']) {
      const outfile = join(dir, `${name}.mjs`);
      const bytes = await bundle(join(root, 'functions', `${name}.ts`), outfile);
      const ms = importMs(outfile, environment);
      figures[name] = {
        bytes,
        bytesRatio: Number((bytes / emptyBytes).toFixed(1)),
        importMs: Number(ms.toFixed(1)),
        importRatio: Number((ms / emptyImport).toFixed(1)),
      };
    }
    return {
      emptyHandler: { bytes: emptyBytes, importMs: Number(emptyImport.toFixed(2)) },
      lambdas: figures,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const runIngest = async () => ({
  ...(await ingestFigures()),
  bundles: await bundleFigures(),
});
