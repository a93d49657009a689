import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import type * as z from 'zod/mini';
import {
  DynamoDbAttachmentEvents,
  DynamoDbPendingAttachments,
} from '../../functions/attachments/adapters/dynamodb-attachment-store.ts';
import { GatewayAttachmentDownloads } from '../../functions/attachments/adapters/gateway-attachment-downloads.ts';
import { S3ObjectStorage } from '../../functions/attachments/adapters/s3-object-storage.ts';
import { ContentUrlPolicy } from '../../functions/attachments/content-url-policy.ts';
import type { FetchAttachmentsDeps } from '../../functions/attachments/fetch-use-case.ts';
import {
  createFetchAttachmentsHandler,
  createSweepHandler,
} from '../../functions/attachments/handler.ts';
import {
  EVENT_TYPES,
  type EventMetadata,
  eventDetailSchema,
} from '../../functions/catalogue/index.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { receiveInbound } from '../../functions/received-items/receive-items.ts';
import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import type { Simulator } from '../../simulator/index.ts';
import { startSimulator } from '../../simulator/index.ts';
import { BUCKET, type Fauxqs, fauxqsS3Client, startFauxqsProcess } from './fauxqs-s3.ts';

export const HOUR = 3_600_000;

export const DAY = 24 * HOUR;

export const credentials = { apiKey: 'attach-key', apiPassword: 'attach-password' };

export let sim: Simulator;

export let dynalite: LocalDynalite;

export let dynamo: DynamoDBClient;

export let s3Server: Fauxqs;

export let s3: S3Client;

export let deps: FetchAttachmentsDeps;

export let gateway: GatewayClient;

export const logger = new Logger({ logLevel: 'SILENT' });

export const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });

export let sequence = 0;

/** The stored inbound message as the event table's stream delivers it (new image, DynamoDB JSON). */
export const streamRecordOf = async (moKey: string): Promise<DynamoDBRecord> => {
  const { Item } = await dynamo.send(
    new GetItemCommand({ TableName: 'events', Key: { pk: { S: `MO#${moKey}` }, sk: { S: 'MO' } } }),
  );
  if (!Item) throw new Error(`no stored inbound message ${moKey}`);
  sequence += 1;
  return {
    eventName: 'INSERT',
    dynamodb: { NewImage: Item, SequenceNumber: String(sequence) },
  } as DynamoDBRecord;
};

/** An attachment event item of the event table, read back with its published schema. */
export const eventItem = async <T extends 'inboundAttachmentStored' | 'inboundAttachmentLost'>(
  type: T,
  moKey: string,
  sk: string,
) => {
  const { Item } = await dynamo.send(
    new GetItemCommand({ TableName: 'events', Key: { pk: { S: `MO#${moKey}` }, sk: { S: sk } } }),
  );
  if (Item === undefined) return undefined;
  const detail: unknown = JSON.parse(Item.detail?.S ?? '{}');
  return eventDetailSchema(EVENT_TYPES[type].data).parse(detail) as {
    readonly metadata: EventMetadata;
    readonly data: z.output<(typeof EVENT_TYPES)[T]['data']>;
  };
};

export const marker = async (moKey: string, index: number) => {
  const { Item } = await dynamo.send(
    new GetItemCommand({ TableName: 'state', Key: { pk: { S: `ATTACHMENT#${moKey}#${index}` } } }),
  );
  return Item;
};

/** An HTTP server on 127.0.0.1 that counts its connections and requests. */
export const loopbackServer = async (
  handle: (request: IncomingMessage, response: ServerResponse) => void,
) => {
  const counts = { connections: 0, requests: 0 };
  const server = createServer((request, response) => {
    counts.requests += 1;
    handle(request, response);
  });
  server.on('connection', () => {
    counts.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return counts.connections;
    },
    get requests() {
      return counts.requests;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

/** Stores an inbound message with one attachment at `contentUrl`, as a webhook body would carry it. */
export const storeMo = async (moKey: string, contentUrl: string) => {
  const [item] = sim.injectMo([
    {
      moType: 'MMSMO',
      moCallback: '01055556666',
      moNumber: '0212345678',
      moMsg: 'photo',
      attachments: [{ name: 'x.png', contentType: 'image/png', data: 'cG5n' }],
    },
  ]);
  const content = item?.contentInfoLst?.[0];
  if (!item || !content) throw new Error('the simulator made no MO item');
  await receiveMoItem({ ...item, moKey, contentInfoLst: [{ ...content, contentUrl }] });
};

/** Stores one MO item with the real receiver, as a webhook body of one item, on the simulated clock. */
export const receiveMoItem = async (item: unknown): Promise<void> => {
  const outcome = await receiveInbound(JSON.stringify({ moCnt: 1, moLst: [item] }), {
    store: new DynamoDbEventStore('events', DynamoDBDocumentClient.from(dynamo)),
    now: () => new Date(sim.clock.now()),
    retentionDays: 35,
    concurrency: 1,
  });
  expect(outcome).toMatchObject({ result: 'stored', stored: 1 });
};

/** The fetch-attachments and sweep handlers on `handlerDeps` (the stack's own by default). */
export const attachmentHandlers = (handlerDeps: FetchAttachmentsDeps = deps) => ({
  fetch: createFetchAttachmentsHandler({ ...handlerDeps, logger, metrics }),
  sweep: createSweepHandler({ ...handlerDeps, logger, metrics, marginMs: 1_000 }),
});

/** Starts the simulator, dynalite and fauxqs before the file's tests and stops them after. */
export const useAttachmentStack = (): void => {
  beforeAll(async () => {
    [sim, dynalite, s3Server] = await Promise.all([
      startSimulator({ ...credentials, clock: 'manual' }),
      startDynalite(),
      startFauxqsProcess(),
    ]);
    dynamo = localDynamoDbClient(dynalite.endpoint);
    await createTables(dynamo, { eventTable: 'events', stateTable: 'state' });
    const documents = DynamoDBDocumentClient.from(dynamo, {
      marshallOptions: { removeUndefinedValues: true },
    });
    s3 = fauxqsS3Client(s3Server.endpoint);
    const now = () => sim.clock.now();
    gateway = new GatewayClient({
      hosts: sim.hosts,
      tokens: new SessionTokenProvider({
        auth: new GatewayAuthApi({ hosts: sim.hosts }),
        credentials: () => credentials,
        now,
      }),
    });
    deps = {
      downloads: new GatewayAttachmentDownloads(gateway, {
        timeoutMs: 10_000,
        contentUrls: ContentUrlPolicy.forGateway([sim.url], [], { localSimulatorOrigin: sim.url }),
      }),
      storage: new S3ObjectStorage(BUCKET, { client: s3 }),
      pending: new DynamoDbPendingAttachments('state', documents),
      events: new DynamoDbAttachmentEvents('events', documents),
      now: () => new Date(now()),
      retentionDays: 35,
      keyPrefix: 'inbound/',
    };
  }, 60_000);

  afterAll(async () => {
    s3?.destroy();
    dynamo?.destroy();
    await Promise.all([sim?.close(), dynalite?.stop(), s3Server?.stop()]);
  });
};
