/**
 * fetch-attachments against real local servers: the gateway simulator (manual clock) serves the
 * content URLs and the file endpoint, dynalite holds the event and state tables, and fauxqs is
 * the S3. Inbound messages are stored by the real receiver; the handler gets each stored item as
 * the table's stream would deliver it (dynalite has no streams).
 *
 * fauxqs runs in a child process, not in this one: it keeps every object in memory, and the
 * large-file test measures this process's memory to show that the file is streamed.
 */

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it, vi } from 'vitest';
import type { MoInjectionInput } from '../../simulator/index.ts';
import {
  attachmentHandlers,
  DAY,
  deps,
  eventItem,
  HOUR,
  marker,
  metrics,
  receiveMoItem,
  s3,
  sim,
  streamRecordOf,
  useAttachmentStack,
} from '../support/attachment-stack.ts';
import { BUCKET } from '../support/fauxqs-s3.ts';

useAttachmentStack();

const MiB = 1024 * 1024;

const counted = vi.spyOn(metrics, 'addMetric');

const metricTotal = (name: string) =>
  counted.mock.calls
    .filter(([metric]) => metric === name)
    .reduce((sum, [, , value]) => sum + value, 0);

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
  await receiveMoItem(item);
  return item;
};

const fetchHandler = () => attachmentHandlers().fetch;

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
    const sweep = attachmentHandlers().sweep;
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
    const sweep = attachmentHandlers(outage).sweep;

    // Act
    const deliveries: unknown[] = [];
    for (let delivery = 0; delivery < 6; delivery++)
      deliveries.push(
        await attachmentHandlers(outage)
          .fetch({
            Records: [record],
          })
          .catch((error: unknown) => error),
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
});
