/**
 * fetch-attachments against real local servers: the gateway simulator (manual clock) serves the
 * content URLs and the file endpoint, dynalite holds the event and state tables, and fauxqs is
 * the S3. Inbound messages are stored by the real receiver; the handler gets each stored item as
 * the table's stream would deliver it (dynalite has no streams).
 *
 * fauxqs runs in a child process, not in this one: it keeps every object in memory, and the
 * large-file test measures this process's memory to show that the file is streamed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import {
  DynamoDbAttachmentEvents,
  DynamoDbPendingAttachments,
} from '../../functions/attachments/adapters/dynamodb-attachment-store.ts';
import {
  contentUrlAgent,
  downloadContentUrl,
  GatewayAttachmentDownloads,
} from '../../functions/attachments/adapters/gateway-attachment-downloads.ts';
import { S3ObjectStorage } from '../../functions/attachments/adapters/s3-object-storage.ts';
import {
  createFetchAttachmentsHandler,
  createSweepHandler,
} from '../../functions/attachments/attachment-handlers.ts';
import { ContentUrlPolicy } from '../../functions/attachments/content-url-policy.ts';
import {
  AttachmentDownloadError,
  type FetchAttachmentsDeps,
} from '../../functions/attachments/fetch-attachments.ts';
import { GatewayAuthApi } from '../../functions/commons/gateway/gateway-auth.ts';
import { GatewayClient } from '../../functions/commons/gateway/gateway-client.ts';
import { SessionTokenProvider } from '../../functions/commons/gateway/session-token-provider.ts';
import {
  EVENT_TYPES,
  type EventMetadata,
  eventDetailSchema,
} from '../../functions/events/catalogue.ts';
import { DynamoDbEventStore } from '../../functions/events/dynamodb-event-store.ts';
import { receiveInbound } from '../../functions/inbound/receive-webhook.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import type { MoInjectionInput, Simulator } from '../../simulator/index.ts';
import { startSimulator } from '../../simulator/index.ts';

const BUCKET = 'msgbridge-attachments';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MiB = 1024 * 1024;
const credentials = { apiKey: 'attach-key', apiPassword: 'attach-password' };

interface Fauxqs {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** fauxqs's S3 in a child process, with the bucket created; it exits when our stdin closes. */
const startFauxqsProcess = async (): Promise<Fauxqs> => {
  const script = [
    "import { startFauxqs } from 'fauxqs';",
    'const server = await startFauxqs({ port: 0, logger: false });',
    `server.createBucket(${JSON.stringify(BUCKET)});`,
    "process.stdout.write(JSON.stringify({ port: server.port }) + '\\n');",
    "process.stdin.on('end', () => server.stop().finally(() => process.exit(0)));",
    'process.stdin.resume();',
  ].join('\n');
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`fauxqs exited with ${code}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.stdin?.end();
      }),
  };
};

let sim: Simulator;
let dynalite: LocalDynalite;
let dynamo: DynamoDBClient;
let s3Server: Fauxqs;
let s3: S3Client;
let deps: FetchAttachmentsDeps;
let gateway: GatewayClient;
const logger = new Logger({ logLevel: 'SILENT' });
const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
const counted = vi.spyOn(metrics, 'addMetric');
const metricTotal = (name: string) =>
  counted.mock.calls
    .filter(([metric]) => metric === name)
    .reduce((sum, [, , value]) => sum + value, 0);
let sequence = 0;

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
  s3 = new S3Client({
    endpoint: s3Server.endpoint,
    forcePathStyle: true,
    region: 'ap-northeast-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
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

/** Makes the simulator's end user send an MMS; stores it with the real receiver; returns its keys. */
const receiveMms = async (
  attachments: NonNullable<Extract<MoInjectionInput, { moType: string }>['attachments']>,
) => {
  const [item] = sim.injectMo([
    {
      moType: 'MMSMO',
      moCallback: '01055556666',
      moNumber: '0212345678',
      moMsg: '사진',
      attachments,
    },
  ]);
  if (!item) throw new Error('the simulator made no MO item');
  const outcome = await receiveInbound(JSON.stringify({ moCnt: 1, moLst: [item] }), {
    store: new DynamoDbEventStore('events', DynamoDBDocumentClient.from(dynamo)),
    now: () => new Date(sim.clock.now()),
    retentionDays: 35,
    concurrency: 1,
  });
  expect(outcome).toMatchObject({ result: 'stored', stored: 1 });
  return item;
};

/** The stored inbound message as the event table's stream delivers it (new image, DynamoDB JSON). */
const streamRecordOf = async (moKey: string): Promise<DynamoDBRecord> => {
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

const fetchHandler = () => createFetchAttachmentsHandler({ ...deps, logger, metrics });

/** An attachment event item of the event table, read back with its published schema. */
const eventItem = async <T extends 'inboundAttachmentStored' | 'inboundAttachmentLost'>(
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

const marker = async (moKey: string, index: number) => {
  const { Item } = await dynamo.send(
    new GetItemCommand({ TableName: 'state', Key: { pk: { S: `ATTACHMENT#${moKey}#${index}` } } }),
  );
  return Item;
};

const sha256Of = async (
  stream: AsyncIterable<Uint8Array>,
): Promise<{ sha256: string; size: number }> => {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
};

/** The error a download was refused with. */
const refusal = async (download: Promise<unknown>): Promise<AttachmentDownloadError> => {
  try {
    await download;
  } catch (error) {
    if (error instanceof AttachmentDownloadError) return error;
    throw error;
  }
  throw new Error('expected the download to be refused');
};

/** The simulator's generated attachment bytes (byte i is i % 251), produced in chunks. */
async function* generated(size: number) {
  const block = Buffer.from(Array.from({ length: 251 * 256 }, (_, i) => i % 251));
  for (let offset = 0; offset < size; offset += block.length)
    yield block.subarray(0, Math.min(block.length, size - offset));
}

describe('fetch-attachments against the simulator, dynalite and fauxqs', () => {
  it('stores an attachment from its content URL while it is valid', async () => {
    // Prepare
    const photo = Buffer.from('\u00ff\u00d8\u00ff\u00e0 a JPEG, more or less', 'latin1');
    const item = await receiveMms([
      { name: '가족사진.jpg', contentType: 'image/jpeg', data: photo.toString('base64') },
    ]);
    const usedBefore = sim.snapshot().mo.contentUrlsUsed;

    // Act
    const response = await fetchHandler()({ Records: [await streamRecordOf(item.moKey)] });
    const again = await fetchHandler()({ Records: [await streamRecordOf(item.moKey)] });

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(again).toEqual({ batchItemFailures: [] });
    expect(sim.snapshot().mo.contentUrlsUsed).toBe(usedBefore + 1);
    const detail = await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#0');
    const sha256 = createHash('sha256').update(photo).digest('hex');
    expect(detail).toMatchObject({
      metadata: { type: 'Inbound Attachment Stored', via: 'webhook' },
      data: {
        moKey: item.moKey,
        index: 0,
        name: '가족사진.jpg',
        contentType: 'image/jpeg',
        sizeBytes: photo.length,
        sha256,
        source: 'content-url',
        s3: { bucket: BUCKET },
      },
    });
    const key = detail?.data.s3.key ?? '';
    expect(key).toMatch(
      new RegExp(`^inbound/\\d{4}/\\d{2}/\\d{2}/${item.moKey}/0-attachment\\.jpg$`),
    );
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(Buffer.from((await object.Body?.transformToByteArray()) ?? [])).toEqual(photo);
    expect(object.ContentType).toBe('image/jpeg');
    expect(object.Metadata).toMatchObject({
      sha256,
      'size-bytes': String(photo.length),
      'mo-key': item.moKey,
      source: 'content-url',
      'original-name': encodeURIComponent('가족사진.jpg'),
    });
  });

  it('uses the file endpoint once the content URL has expired (25 h later)', async () => {
    // Prepare
    const text = Buffer.from('a voice memo, transcribed\n');
    const item = await receiveMms([
      { name: 'memo.txt', contentType: 'text/plain', data: text.toString('base64') },
    ]);
    await sim.advance(25 * HOUR);
    const usedBefore = sim.snapshot().mo.contentUrlsUsed;

    // Act
    const response = await fetchHandler()({ Records: [await streamRecordOf(item.moKey)] });

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sim.snapshot().mo.contentUrlsUsed).toBe(usedBefore);
    const detail = await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#0');
    expect(detail?.data).toMatchObject({
      source: 'file-endpoint',
      sizeBytes: text.length,
      sha256: createHash('sha256').update(text).digest('hex'),
      contentType: 'text/plain',
    });
    expect(await marker(item.moKey, 0)).toBeUndefined();
  });

  it('after 24 h takes the first attachment from the file endpoint and ends the others as lost', async () => {
    // Prepare: two attachments, first seen by the bridge after their content URLs expired.
    const first = Buffer.from('first attachment\n');
    const second = Buffer.from('second attachment, never offered by the file endpoint\n');
    const item = await receiveMms([
      { name: 'one.txt', contentType: 'text/plain', data: first.toString('base64') },
      { name: 'two.txt', contentType: 'text/plain', data: second.toString('base64') },
    ]);
    await sim.advance(25 * HOUR);

    // Act
    const response = await fetchHandler()({ Records: [await streamRecordOf(item.moKey)] });

    // Assess: the file endpoint's bytes are stored as attachment 1, never as attachment 2.
    expect(response).toEqual({ batchItemFailures: [] });
    const stored = await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#0');
    expect(stored?.data).toMatchObject({
      source: 'file-endpoint',
      sha256: createHash('sha256').update(first).digest('hex'),
    });
    expect(await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#1')).toBeUndefined();
    const lost = await eventItem('inboundAttachmentLost', item.moKey, 'ATTACHMENT#1#LOST');
    expect(lost?.data).toMatchObject({ moKey: item.moKey, index: 1, name: 'two.txt', attempts: 0 });
    expect(lost?.data.reason).toMatch(/serves only the first attachment/);
    expect(await marker(item.moKey, 0)).toBeUndefined();
    expect(await marker(item.moKey, 1)).toBeUndefined();
  });

  it('streams a large file into S3 without holding it in memory', async () => {
    // Prepare
    // Large enough that a few parts in flight (up to ~40 MiB of live buffers seen) stay far below it.
    const size = 128 * MiB;
    const item = await receiveMms([
      { name: 'clip.mp4', contentType: 'video/mp4', sizeBytes: size },
    ]);
    const record = await streamRecordOf(item.moKey);
    const expected = await sha256Of(generated(size));
    // Live memory, not garbage: V8 lets tens of MiB of dead buffers pile up before it collects,
    // so each sample is taken right after a full collection.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      return process.memoryUsage();
    };
    const before = live();
    const peak = { rss: before.rss, arrayBuffers: before.arrayBuffers };
    const sampler = setInterval(() => {
      const now = live();
      peak.rss = Math.max(peak.rss, now.rss);
      peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
    }, 150);

    // Act
    const response = await fetchHandler()({ Records: [record] });
    clearInterval(sampler);

    // Assess: holding the file would take at least its size; streaming holds a few 5 MiB parts.
    // The bounds are generous on purpose: this proves streaming, not speed.
    expect(response).toEqual({ batchItemFailures: [] });
    const growth = {
      rss: peak.rss - before.rss,
      arrayBuffers: peak.arrayBuffers - before.arrayBuffers,
    };
    const seen = `peak growth of live memory for ${size} bytes: ${JSON.stringify(growth)}`;
    expect(growth.arrayBuffers, seen).toBeLessThan(size / 2);
    expect(growth.rss, seen).toBeLessThan(size);
    const detail = await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#0');
    expect(detail?.data).toMatchObject({
      sizeBytes: size,
      sha256: expected.sha256,
      source: 'content-url',
    });
    const key = detail?.data.s3.key ?? '';
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentLength).toBe(size);
    expect(head.Metadata).toMatchObject({ sha256: expected.sha256, 'size-bytes': String(size) });
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(await sha256Of(object.Body as Readable)).toEqual(expected);
  });

  it('keeps retrying a refused attachment and reports it lost after 7 days', async () => {
    // Prepare: the content URL is already used and the gateway answers 503 for a while.
    const item = await receiveMms([
      { name: 'lost.png', contentType: 'image/png', data: Buffer.from('png').toString('base64') },
    ]);
    const contentUrl = item.contentInfoLst?.[0]?.contentUrl ?? '';
    await fetch(contentUrl).then((answer) => answer.arrayBuffer());
    sim.setFaults({ errorRate: 1 });
    const sweep = createSweepHandler({ ...deps, logger, metrics, marginMs: 1_000 });
    const lostBefore = metricTotal('AttachmentsLost');

    // Act
    const response = await fetchHandler()({ Records: [await streamRecordOf(item.moKey)] });
    const afterStream = await marker(item.moKey, 0);
    await sim.advance(HOUR);
    const retried = await sweep({});
    const afterRetry = await marker(item.moKey, 0);
    sim.setFaults({ errorRate: 0 });
    await sim.advance(7 * DAY);
    const last = await sweep({});

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(afterStream?.attempts).toEqual({ N: '1' });
    expect(afterStream?.lastError?.S).toMatch(/content-url: HTTP 410: .*file-endpoint: .*49999/s);
    expect(retried).toMatchObject({ due: 1, pending: 1 });
    expect(afterRetry?.attempts).toEqual({ N: '2' });
    expect(last).toMatchObject({ due: 1, lost: 1 });
    expect(await marker(item.moKey, 0)).toBeUndefined();
    const lost = await eventItem('inboundAttachmentLost', item.moKey, 'ATTACHMENT#0#LOST');
    expect(lost).toMatchObject({
      metadata: { type: 'Inbound Attachment Lost' },
      data: { moKey: item.moKey, index: 0, name: 'lost.png', attempts: 2 },
    });
    expect(lost?.data.reason).toMatch(/file-endpoint: .*49999/);
    expect(await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#0')).toBeUndefined();
    expect(metricTotal('AttachmentsLost')).toBe(lostBefore + 1);
  });

  it('follows a redirect within an allowed origin and keeps content URLs out of its errors', async () => {
    // Prepare: a CDN-like origin on loopback.
    const server = createServer((request, response) => {
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/file' }).end();
      } else if (request.url === '/file') {
        response.writeHead(200, { 'content-type': 'image/gif', 'content-length': '3' }).end('GIF');
      } else {
        response
          .writeHead(410, { 'content-type': 'application/json' })
          .end('{"code":"21601","message":"content URL already used (single use)"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const downloads = new GatewayAttachmentDownloads(
      { downloadMoFile: () => Promise.reject(new Error('not used')) },
      {
        timeoutMs: 5_000,
        contentUrls: new ContentUrlPolicy({ hosts: [], localSimulatorOrigin: origin }),
      },
    );

    try {
      // Act
      const redirected = await downloads.fromContentUrl(`${origin}/redirect`);
      const bytes = Buffer.concat(await redirected.body.toArray());
      const refused = await refusal(downloads.fromContentUrl(`${origin}/secret-token`));
      const notHttp = await refusal(downloads.fromContentUrl('file:///etc/passwd'));

      // Assess
      expect(redirected).toMatchObject({ contentType: 'image/gif', contentLength: 3 });
      expect(bytes.toString()).toBe('GIF');
      expect(refused).toBeInstanceOf(AttachmentDownloadError);
      expect(refused.message).toBe(
        'HTTP 410: {"code":"21601","message":"content URL already used (single use)"}',
      );
      expect(refused.message).not.toContain('secret-token');
      expect(notHttp).toBeInstanceOf(AttachmentDownloadError);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('stores, once, the attachment of a record the stream gave up on (on-failure)', async () => {
    // Prepare: S3 refuses every upload while the stream delivers the record 6 times.
    const photo = Buffer.from('a photo that arrived while S3 was down');
    const item = await receiveMms([
      { name: 'later.jpg', contentType: 'image/jpeg', data: photo.toString('base64') },
    ]);
    const record = await streamRecordOf(item.moKey);
    let s3Down = true;
    const storage = {
      bucket: deps.storage.bucket,
      put: (...args: Parameters<typeof deps.storage.put>) => {
        if (!s3Down) return deps.storage.put(...args);
        return Promise.reject(
          Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' }),
        );
      },
    };
    const outage = { ...deps, storage };
    const sweep = createSweepHandler({ ...outage, logger, metrics, marginMs: 1_000 });

    // Act
    const deliveries: unknown[] = [];
    for (let delivery = 0; delivery < 6; delivery++)
      deliveries.push(
        await createFetchAttachmentsHandler({ ...outage, logger, metrics })({
          Records: [record],
        }).catch((error: unknown) => error),
      );
    const afterStream = await marker(item.moKey, 0);
    s3Down = false;
    await sim.advance(20 * 60_000);
    const first = await sweep({});
    await sim.advance(HOUR);
    const second = await sweep({});

    // Assess
    for (const delivery of deliveries)
      expect(delivery).toMatchObject({ message: expect.stringMatching(/^All records failed/) });
    expect(afterStream?.attempts).toEqual({ N: '0' });
    expect(first).toMatchObject({ due: 1, stored: 1 });
    expect(second).toMatchObject({ due: 0 });
    const detail = await eventItem('inboundAttachmentStored', item.moKey, 'ATTACHMENT#0');
    expect(detail?.data).toMatchObject({
      sizeBytes: photo.length,
      sha256: createHash('sha256').update(photo).digest('hex'),
    });
    expect(await marker(item.moKey, 0)).toBeUndefined();
  });

  it('never follows a content URL redirect to an internal address; the attachment is lost with the reason', async () => {
    // Prepare: an internal service on loopback, and a "content host" that redirects to it. The
    // content host's origin is the one allowed origin (it stands in for the gateway's host).
    const internal = await loopbackServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain' }).end('instance credentials'),
    );
    const front = await loopbackServer((_request, response) =>
      response.writeHead(302, { location: `${internal.origin}/latest/meta-data/` }).end(),
    );
    // A forged webhook body: a moKey the gateway never issued, a content URL of the sender's choosing.
    const moKey = `FORGED${++sequence}`;
    await storeMo(moKey, `${front.origin}/content/one-time-token`);
    const ssrfDeps = {
      ...deps,
      downloads: new GatewayAttachmentDownloads(gateway, {
        timeoutMs: 5_000,
        contentUrls: new ContentUrlPolicy({ hosts: [], localSimulatorOrigin: front.origin }),
      }),
    };
    const sweep = createSweepHandler({ ...ssrfDeps, logger, metrics, marginMs: 1_000 });
    const warned = vi.spyOn(logger, 'warn');

    try {
      // Act: the stream's attempt, then the sweep once the 7 days are over.
      const response = await createFetchAttachmentsHandler({ ...ssrfDeps, logger, metrics })({
        Records: [await streamRecordOf(moKey)],
      });
      const afterStream = await marker(moKey, 0);
      await sim.advance(7 * DAY + HOUR);
      const last = await sweep({});

      // Assess
      expect(response).toEqual({ batchItemFailures: [] });
      expect(front.requests).toBe(1);
      expect(internal.requests).toBe(0);
      expect(warned).toHaveBeenCalledWith('content URL refused, not fetched', {
        moKey,
        index: 0,
        reason: expect.stringMatching(/^content-url: refused redirect 1: /),
      });
      expect(afterStream?.lastError?.S).toMatch(
        /^content-url: refused redirect 1: scheme http: is not https; file-endpoint: .*21601/,
      );
      expect(last).toMatchObject({ lost: 1 });
      const lost = await eventItem('inboundAttachmentLost', moKey, 'ATTACHMENT#0#LOST');
      expect(lost?.data).toMatchObject({ moKey, index: 0, attempts: 1 });
      expect(lost?.data.reason).toMatch(/^content-url: refused redirect 1: /);
      expect(lost?.data.reason).not.toContain('one-time-token');
      expect(await eventItem('inboundAttachmentStored', moKey, 'ATTACHMENT#0')).toBeUndefined();
      expect(await marker(moKey, 0)).toBeUndefined();
    } finally {
      warned.mockRestore();
      await Promise.all([internal.close(), front.close()]);
    }
  });

  it('checks the address a host name resolves to when it connects, and never connects to a private one', async () => {
    // Prepare: an allowed https host whose DNS answer is loopback (a rebinding attacker's answer).
    const target = await loopbackServer((_request, response) => response.end('secret'));
    const port = new URL(target.origin).port;
    const resolve = vi.fn(async (_hostname: string) => [{ address: '127.0.0.1', family: 4 }]);
    const agent = contentUrlAgent(resolve);
    const downloads = new GatewayAttachmentDownloads(gateway, {
      timeoutMs: 5_000,
      contentUrls: new ContentUrlPolicy({ hosts: [`files.gateway.test:${port}`] }),
      fetchUrl: (url, timeoutMs) => downloadContentUrl(url, timeoutMs, agent),
    });

    try {
      // Act
      const refused = await refusal(
        downloads.fromContentUrl(`https://files.gateway.test:${port}/content/token`),
      );

      // Assess: the name was resolved by the checking look-up, once, and no connection was made.
      expect(refused.message).toBe(
        'refused: host files.gateway.test resolves to 127.0.0.1, a loopback address',
      );
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(resolve.mock.calls[0]?.[0]).toBe('files.gateway.test');
      expect(target.connections).toBe(0);
    } finally {
      await agent.close();
      await target.close();
    }
  });
});

/** An HTTP server on 127.0.0.1 that counts its connections and requests. */
const loopbackServer = async (
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
const storeMo = async (moKey: string, contentUrl: string) => {
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
  const forged = { ...item, moKey, contentInfoLst: [{ ...content, contentUrl }] };
  const outcome = await receiveInbound(JSON.stringify({ moCnt: 1, moLst: [forged] }), {
    store: new DynamoDbEventStore('events', DynamoDBDocumentClient.from(dynamo)),
    now: () => new Date(sim.clock.now()),
    retentionDays: 35,
    concurrency: 1,
  });
  expect(outcome).toMatchObject({ result: 'stored', stored: 1 });
};
