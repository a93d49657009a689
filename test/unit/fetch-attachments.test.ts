import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import {
  createFetchAttachmentsHandler,
  createSweepHandler,
} from '../../functions/attachments/attachment-handlers.ts';
import {
  AttachmentDownloadError,
  type AttachmentDownloads,
  type AttachmentEventStore,
  type Download,
  type FetchAttachmentsDeps,
  fetchAttachments,
  InvalidInboundItemError,
  NOT_ATTEMPTED,
  type ObjectStorage,
  type PendingAttachment,
  type PendingAttachmentStore,
  type PutOptions,
  RETRY_MAX_MS,
  retryDelayMs,
  SourceStreamError,
  sweepAttachments,
} from '../../functions/attachments/fetch-attachments.ts';
import {
  DownloadLengthMismatchError,
  HashingCounter,
  type Measurement,
  measureStream,
} from '../../functions/attachments/measured-stream.ts';
import { isAttachmentRecord } from '../../functions/attachments/stream-filter.ts';
import type { EventRecord } from '../../functions/events/event-record.ts';
import { receiveInbound } from '../../functions/inbound/receive-webhook.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { moItem } from '../support/gateway-bodies.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RECEIVED_AT = '2026-11-21T00:30:00.000Z';
const PHOTO = Buffer.from('a small photo, byte for byte');
const SCAN = randomBytes(200_000);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// --- Fakes ------------------------------------------------------------------------------------

type Script =
  | { readonly bytes: Buffer; readonly contentType: string; readonly announce?: number }
  | { readonly refuse: string }
  /** Sends the headers and `after` bytes, then the connection breaks. */
  | { readonly breakAfter: number; readonly bytes: Buffer; readonly contentType: string };

/** The gateway's two download paths, scripted per content URL and per `moKey` (the file endpoint). */
class FakeDownloads implements AttachmentDownloads {
  readonly contentUrlCalls: string[] = [];
  readonly fileCalls: string[] = [];
  readonly contentUrls = new Map<string, Script>();
  readonly files = new Map<string, Script>();

  async fromContentUrl(url: string): Promise<Download> {
    this.contentUrlCalls.push(url);
    return play('content-url', this.contentUrls.get(url) ?? { refuse: 'HTTP 404: unknown' });
  }

  async fromFileEndpoint(moKey: string): Promise<Download> {
    this.fileCalls.push(moKey);
    return play(
      'file-endpoint',
      this.files.get(moKey) ?? { refuse: 'GET /mo/v1/file/{moKey}: 21601 no MO' },
    );
  }
}

const play = (source: 'content-url' | 'file-endpoint', script: Script): Download => {
  if ('refuse' in script) throw new AttachmentDownloadError(source, script.refuse);
  if ('breakAfter' in script) {
    const body = new Readable({ read() {} });
    body.push(script.bytes.subarray(0, script.breakAfter));
    setImmediate(() => body.destroy(new Error('other side closed')));
    return { contentType: script.contentType, contentLength: script.bytes.length, body };
  }
  return {
    contentType: script.contentType,
    contentLength: script.announce ?? script.bytes.length,
    body: Readable.from(chunks(script.bytes, 7_000)),
  };
};

function* chunks(bytes: Buffer, size: number) {
  for (let offset = 0; offset < bytes.length; offset += size)
    yield bytes.subarray(offset, offset + size);
}

/** An object store that measures like the S3 adapter (same hashing stream) and keeps the bytes. */
class FakeStorage implements ObjectStorage {
  readonly bucket = 'attachments-bucket';
  readonly objects = new Map<
    string,
    { bytes: Buffer; contentType: string; metadata: Record<string, string> }
  >();
  failNext = 0;

  async put(
    key: string,
    body: Readable,
    contentType: string,
    options: PutOptions = {},
  ): Promise<Measurement> {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw Object.assign(new Error('We encountered an internal error'), { name: 'InternalError' });
    }
    const measured = measureStream(body, options.expectedBytes);
    const received: Buffer[] = [];
    try {
      for await (const chunk of measured.stream as AsyncIterable<Buffer>) received.push(chunk);
    } catch (error) {
      const failure = measured.sourceFailure();
      if (failure) throw new SourceStreamError(failure.message, { cause: failure });
      throw error;
    }
    const measurement = measured.stream.measurement();
    this.objects.set(key, {
      bytes: Buffer.concat(received),
      contentType,
      metadata: {
        ...options.metadata,
        sha256: measurement.sha256,
        'size-bytes': String(measurement.sizeBytes),
      },
    });
    return measurement;
  }
}

class FakePending implements PendingAttachmentStore {
  readonly markers = new Map<string, PendingAttachment>();
  async get(moKey: string, index: number) {
    return this.markers.get(`${moKey}#${index}`);
  }
  async register(marker: PendingAttachment) {
    const key = `${marker.moKey}#${marker.index}`;
    if (!this.markers.has(key)) this.markers.set(key, marker);
  }
  async save(marker: PendingAttachment) {
    this.markers.set(`${marker.moKey}#${marker.index}`, marker);
  }
  async remove(moKey: string, index: number) {
    this.markers.delete(`${moKey}#${index}`);
  }
  async due(now: Date) {
    return [...this.markers.values()]
      .filter((marker) => Date.parse(marker.nextAttemptAt) <= now.getTime())
      .sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt));
  }
}

class FakeAttachmentEvents extends FakeEventStore implements AttachmentEventStore {
  async exists(pk: string, sk: string) {
    return this.items.has(`${pk}|${sk}`);
  }
}

interface World {
  readonly downloads: FakeDownloads;
  readonly storage: FakeStorage;
  readonly pending: FakePending;
  readonly events: FakeAttachmentEvents;
  readonly clock: { now: number };
  readonly deps: FetchAttachmentsDeps;
}

const world = (): World => {
  const downloads = new FakeDownloads();
  const storage = new FakeStorage();
  const pending = new FakePending();
  const events = new FakeAttachmentEvents();
  const clock = { now: Date.parse(RECEIVED_AT) };
  const deps: FetchAttachmentsDeps = {
    downloads,
    storage,
    pending,
    events,
    now: () => new Date(clock.now),
    retentionDays: 35,
    keyPrefix: 'inbound/',
  };
  return { downloads, storage, pending, events, clock, deps };
};

const attachment = (name: string, url: string, size: number) => ({
  contentName: name,
  contentSize: String(size),
  contentExt: name.split('.').at(-1) ?? 'bin',
  contentUrl: url,
});

/** An inbound message stored the way the receiver stores it (the event-table item). */
const storedMo = async (
  moKey: string,
  contentInfoLst: ReturnType<typeof attachment>[],
): Promise<EventRecord> => {
  const store = new FakeEventStore();
  const item = moItem(1, {
    moKey,
    moType: 'MMSMO',
    contentCnt: String(contentInfoLst.length),
    contentInfoLst,
  });
  await receiveInbound(JSON.stringify({ moCnt: 1, moLst: [item] }), {
    store,
    now: () => new Date(RECEIVED_AT),
    retentionDays: 35,
    concurrency: 1,
  });
  const [record] = store.ofKind('mo');
  if (!record) throw new Error('the receiver stored no inbound message');
  return record;
};

const storedDetails = (events: FakeEventStore, type: string) =>
  events.details('attachment').filter((detail) => detail.metadata.type === type);

// --- Tests ------------------------------------------------------------------------------------

describe('fetchAttachments', () => {
  it('streams a young message’s attachment from its content URL into storage and stores the event', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0001', [attachment('photo.jpg', 'https://files/u1', 28)]);
    w.downloads.contentUrls.set('https://files/u1', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.clock.now += 2 * HOUR;

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    const key = 'inbound/2026/11/21/MOKEY0001/0-photo.jpg';
    expect(outcomes).toMatchObject([{ result: 'stored', source: 'content-url', key }]);
    expect(w.downloads.fileCalls).toEqual([]);
    expect(w.storage.objects.get(key)).toEqual({
      bytes: PHOTO,
      contentType: 'image/jpeg',
      metadata: {
        'mo-key': 'MOKEY0001',
        index: '0',
        source: 'content-url',
        'original-name': 'photo.jpg',
        sha256: sha256(PHOTO),
        'size-bytes': String(PHOTO.length),
      },
    });
    const [stored] = storedDetails(w.events, 'Inbound Attachment Stored');
    expect(stored?.data).toEqual({
      moKey: 'MOKEY0001',
      index: 0,
      name: 'photo.jpg',
      contentType: 'image/jpeg',
      sizeBytes: PHOTO.length,
      sha256: sha256(PHOTO),
      s3: { bucket: 'attachments-bucket', key },
      source: 'content-url',
    });
    expect(stored?.metadata).toMatchObject({
      idempotencyKey: 'attachment:MOKEY0001:0',
      receivedAt: RECEIVED_AT,
      occurredAt: '2026-11-21T02:30:00.000Z',
      via: 'webhook',
    });
    expect(w.events.ofKind('attachment')[0]).toMatchObject({
      pk: 'MO#MOKEY0001',
      sk: 'ATTACHMENT#0',
    });
    expect(w.pending.markers.size).toBe(0);
  });

  it('goes straight to the file endpoint once the message is older than 24 h', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0002', [attachment('scan.png', 'https://files/u2', 1)]);
    w.downloads.contentUrls.set('https://files/u2', { bytes: SCAN, contentType: 'image/png' });
    w.downloads.files.set('MOKEY0002', { bytes: SCAN, contentType: 'image/png' });
    w.clock.now += 25 * HOUR;

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([
      { result: 'stored', source: 'file-endpoint', sizeBytes: SCAN.length, sha256: sha256(SCAN) },
    ]);
    expect(w.downloads.contentUrlCalls).toEqual([]);
    expect(w.downloads.fileCalls).toEqual(['MOKEY0002']);
    expect(storedDetails(w.events, 'Inbound Attachment Stored')[0]?.data.source).toBe(
      'file-endpoint',
    );
  });

  it('falls back to the file endpoint when the content URL is refused', async () => {
    // Prepare: the URL was already used (single use) → 410.
    const w = world();
    const mo = await storedMo('MOKEY0003', [attachment('a.jpg', 'https://files/u3', 28)]);
    w.downloads.contentUrls.set('https://files/u3', { refuse: 'HTTP 410: already used' });
    w.downloads.files.set('MOKEY0003', { bytes: PHOTO, contentType: 'image/jpeg' });

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([
      {
        result: 'stored',
        source: 'file-endpoint',
        failures: ['content-url: HTTP 410: already used'],
      },
    ]);
    expect(w.downloads.contentUrlCalls).toEqual(['https://files/u3']);
    expect(w.pending.markers.size).toBe(0);
  });

  it('falls back to the file endpoint when the content URL breaks off mid-stream', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0004', [attachment('scan.png', 'https://files/u4', 1)]);
    w.downloads.contentUrls.set('https://files/u4', {
      breakAfter: 50_000,
      bytes: SCAN,
      contentType: 'image/png',
    });
    w.downloads.files.set('MOKEY0004', { bytes: SCAN, contentType: 'image/png' });

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess: the stored object is the whole file, not the broken first half.
    expect(outcomes).toMatchObject([{ result: 'stored', source: 'file-endpoint' }]);
    const [object] = w.storage.objects.values();
    expect(object?.bytes.equals(SCAN)).toBe(true);
    const [outcome] = outcomes;
    expect(outcome?.result === 'stored' && outcome.failures[0]).toMatch(
      /^content-url: download broke off: other side closed/,
    );
  });

  it('keeps a pending marker with backoff when both downloads fail, without throwing', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0005', [
      attachment('photo.jpg', 'https://files/u5', 28),
      attachment('b.jpg', 'https://files/u6', 28),
    ]);
    w.downloads.contentUrls.set('https://files/u5', { refuse: 'HTTP 503: busy' });
    w.downloads.contentUrls.set('https://files/u6', { bytes: PHOTO, contentType: 'image/jpeg' });

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess: the second attachment is stored regardless of the first.
    expect(outcomes.map((outcome) => outcome.result)).toEqual(['pending', 'stored']);
    expect(w.pending.markers.get('MOKEY0005#0')).toEqual({
      moKey: 'MOKEY0005',
      index: 0,
      name: 'photo.jpg',
      extension: 'jpg',
      contentUrl: 'https://files/u5',
      receivedAt: RECEIVED_AT,
      via: 'webhook',
      attempts: 1,
      lastError: 'content-url: HTTP 503: busy; file-endpoint: GET /mo/v1/file/{moKey}: 21601 no MO',
      firstFailedAt: RECEIVED_AT,
      nextAttemptAt: '2026-11-21T00:35:00.000Z',
    });
    expect(storedDetails(w.events, 'Inbound Attachment Stored')).toHaveLength(1);
  });

  it('asks the file endpoint (which names only the moKey) for the first attachment only', async () => {
    // Prepare: both content URLs refused; the file endpoint serves the message's file.
    const w = world();
    const mo = await storedMo('MOKEY0007', [
      attachment('photo.jpg', 'https://files/u10', 28),
      attachment('b.jpg', 'https://files/u11', 28),
    ]);
    w.downloads.contentUrls.set('https://files/u10', { refuse: 'HTTP 503: busy' });
    w.downloads.contentUrls.set('https://files/u11', { refuse: 'HTTP 503: busy' });
    w.downloads.files.set('MOKEY0007', { bytes: PHOTO, contentType: 'image/jpeg' });

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess: the second waits for another try of its content URL, within its 24 h.
    expect(outcomes).toMatchObject([
      { result: 'stored', source: 'file-endpoint' },
      { result: 'pending', reason: 'content-url: HTTP 503: busy' },
    ]);
    expect(w.downloads.fileCalls).toEqual(['MOKEY0007']);
    expect(w.pending.markers.get('MOKEY0007#1')).toMatchObject({
      attempts: 1,
      nextAttemptAt: '2026-11-21T00:35:00.000Z',
    });
  });

  it('throws for a storage failure of ours, leaving the marker written before the attempt', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0006', [attachment('a.jpg', 'https://files/u7', 28)]);
    w.downloads.contentUrls.set('https://files/u7', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.storage.failNext = 1;

    // Act / Assess: the stream retries the record; should it give up, the sweep has the marker.
    await expect(fetchAttachments({ ...mo }, w.deps)).rejects.toThrow(
      'We encountered an internal error',
    );
    expect([...w.pending.markers.values()]).toEqual([
      {
        moKey: 'MOKEY0006',
        index: 0,
        name: 'a.jpg',
        extension: 'jpg',
        contentUrl: 'https://files/u7',
        receivedAt: RECEIVED_AT,
        via: 'webhook',
        attempts: 0,
        lastError: NOT_ATTEMPTED,
        nextAttemptAt: '2026-11-21T00:45:00.000Z',
      },
    ]);
    expect(w.events.ofKind('attachment')).toEqual([]);
  });

  it('keeps the attempts of a marker when the stream delivers the record again', async () => {
    // Prepare: a first delivery whose downloads were refused.
    const w = world();
    const mo = await storedMo('MOKEY0009', [attachment('a.jpg', 'https://files/u9', 28)]);
    w.downloads.contentUrls.set('https://files/u9', { refuse: 'HTTP 503: busy' });
    await fetchAttachments({ ...mo }, w.deps);
    w.clock.now += 60_000;

    // Act
    await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(await w.pending.get('MOKEY0009', 0)).toMatchObject({
      attempts: 2,
      firstFailedAt: RECEIVED_AT,
    });
  });

  it('skips an attachment that is already stored, without downloading it again', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0007', [attachment('a.jpg', 'https://files/u8', 28)]);
    w.downloads.contentUrls.set('https://files/u8', { bytes: PHOTO, contentType: 'image/jpeg' });
    await fetchAttachments({ ...mo }, w.deps);

    // Act: the stream delivers the same record again.
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([{ result: 'skipped' }]);
    expect(w.downloads.contentUrlCalls).toHaveLength(1);
    expect(w.downloads.fileCalls).toEqual([]);
    expect(w.events.ofKind('attachment')).toHaveLength(1);
  });

  it('refuses an item that is not a stored inbound message', async () => {
    const w = world();
    await expect(
      fetchAttachments({ pk: 'MO#X', detail: '{"data":{}}' }, w.deps),
    ).rejects.toBeInstanceOf(InvalidInboundItemError);
  });

  it('makes keys safe for S3 whatever the attachment is called', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MO/KEY 8', [
      attachment('사진.jpg', 'https://files/k1', 28),
      attachment('my photo (1).PNG', 'https://files/k2', 28),
      attachment('../../etc/passwd', 'https://files/k3', 28),
    ]);
    for (const url of ['https://files/k1', 'https://files/k2', 'https://files/k3'])
      w.downloads.contentUrls.set(url, { bytes: PHOTO, contentType: 'image/jpeg' });

    // Act
    await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect([...w.storage.objects.keys()]).toEqual([
      'inbound/2026/11/21/MO_KEY_8/0-attachment.jpg',
      'inbound/2026/11/21/MO_KEY_8/1-my_photo_1.PNG',
      'inbound/2026/11/21/MO_KEY_8/2-etc_passwd',
    ]);
    expect(
      w.storage.objects.get('inbound/2026/11/21/MO_KEY_8/0-attachment.jpg')?.metadata,
    ).toMatchObject({ 'original-name': encodeURIComponent('사진.jpg'), 'mo-key': 'MO%2FKEY%208' });
  });
});

describe('sweepAttachments', () => {
  const sweepDeps = (w: World) => ({ ...w.deps, shouldContinue: () => true });

  /** One attachment that failed once on the stream path. */
  const failedOnce = async (w: World, moKey: string) => {
    const mo = await storedMo(moKey, [attachment('photo.jpg', `https://files/${moKey}`, 28)]);
    w.downloads.contentUrls.set(`https://files/${moKey}`, { refuse: 'HTTP 503: busy' });
    const [outcome] = await fetchAttachments({ ...mo }, w.deps);
    expect(outcome?.result).toBe('pending');
  };

  it('retries a due marker, stores the attachment and deletes the marker', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0101');
    w.downloads.files.set('MOKEY0101', { bytes: PHOTO, contentType: 'image/jpeg' });

    // Act: not due yet, then due.
    w.clock.now += 4 * 60_000;
    const early = await sweepAttachments(sweepDeps(w));
    w.clock.now += 60_000;
    const due = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(early).toMatchObject({ due: 0, outcomes: [] });
    expect(w.downloads.fileCalls).toEqual(['MOKEY0101', 'MOKEY0101']);
    expect(due.outcomes).toMatchObject([{ result: 'stored', source: 'file-endpoint' }]);
    expect(w.pending.markers.size).toBe(0);
    expect(storedDetails(w.events, 'Inbound Attachment Stored')).toHaveLength(1);
  });

  it('backs off exponentially while the gateway keeps refusing', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0102');
    const nextAttempts: string[] = [];

    // Act: three more failed sweeps, each when the marker is due.
    for (let sweep = 0; sweep < 3; sweep++) {
      const marker = await w.pending.get('MOKEY0102', 0);
      w.clock.now = Date.parse(marker?.nextAttemptAt ?? '');
      await sweepAttachments(sweepDeps(w));
      nextAttempts.push((await w.pending.get('MOKEY0102', 0))?.nextAttemptAt ?? '');
    }

    // Assess: 5 min after the first failure, then 10, 20 and 40 minutes.
    expect(nextAttempts).toEqual([
      '2026-11-21T00:45:00.000Z',
      '2026-11-21T01:05:00.000Z',
      '2026-11-21T01:45:00.000Z',
    ]);
    expect(await w.pending.get('MOKEY0102', 0)).toMatchObject({
      attempts: 4,
      firstFailedAt: RECEIVED_AT,
    });
    expect(retryDelayMs(1)).toBe(5 * 60_000);
    expect(retryDelayMs(40)).toBe(RETRY_MAX_MS);
  });

  it('never schedules a retry after the 7-day window', async () => {
    // Prepare: a marker at its 30th attempt, 6 days 22 hours after the message arrived.
    const w = world();
    await failedOnce(w, 'MOKEY0103');
    const marker = await w.pending.get('MOKEY0103', 0);
    if (!marker) throw new Error('no marker');
    await w.pending.save({ ...marker, attempts: 30 });
    w.clock.now = Date.parse(RECEIVED_AT) + 7 * DAY - 2 * HOUR;
    await w.pending.save({
      ...marker,
      attempts: 30,
      nextAttemptAt: new Date(w.clock.now).toISOString(),
    });

    // Act
    await sweepAttachments(sweepDeps(w));

    // Assess
    expect((await w.pending.get('MOKEY0103', 0))?.nextAttemptAt).toBe('2026-11-28T00:30:00.000Z');
  });

  it('reports an attachment lost after 7 days, with the last reason, and deletes the marker', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0104');
    w.clock.now = Date.parse(RECEIVED_AT) + 7 * DAY + 60_000;
    const callsBefore = w.downloads.fileCalls.length;

    // Act
    const result = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(result.outcomes).toMatchObject([{ result: 'lost', attempts: 1 }]);
    expect(w.downloads.fileCalls).toHaveLength(callsBefore);
    expect(w.pending.markers.size).toBe(0);
    const [lost] = storedDetails(w.events, 'Inbound Attachment Lost');
    expect(lost?.data).toEqual({
      moKey: 'MOKEY0104',
      index: 0,
      name: 'photo.jpg',
      reason: 'content-url: HTTP 503: busy; file-endpoint: GET /mo/v1/file/{moKey}: 21601 no MO',
      attempts: 1,
      receivedAt: RECEIVED_AT,
    });
    expect(w.events.ofKind('attachment')[0]).toMatchObject({
      pk: 'MO#MOKEY0104',
      sk: 'ATTACHMENT#0#LOST',
    });
  });

  it('ends a later attachment as lost once its content URL expired, without asking the file endpoint', async () => {
    // Prepare: the second attachment's content URL failed; the first one is stored.
    const w = world();
    const mo = await storedMo('MOKEY0108', [
      attachment('photo.jpg', 'https://files/u12', 28),
      attachment('b.jpg', 'https://files/u13', 28),
    ]);
    w.downloads.contentUrls.set('https://files/u12', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.downloads.contentUrls.set('https://files/u13', { refuse: 'HTTP 503: busy' });
    await fetchAttachments({ ...mo }, w.deps);

    // Act: a sweep while the URL is young retries it; one after 24 h ends it.
    w.clock.now = Date.parse(RECEIVED_AT) + 23 * HOUR;
    const young = await sweepAttachments(sweepDeps(w));
    w.clock.now = Date.parse(RECEIVED_AT) + 24 * HOUR;
    const expired = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(young.outcomes).toMatchObject([{ result: 'pending', attempts: 2 }]);
    expect(young.outcomes[0]?.result === 'pending' && young.outcomes[0].nextAttemptAt).toBe(
      '2026-11-21T23:40:00.000Z',
    );
    expect(expired.outcomes).toMatchObject([{ result: 'lost', attempts: 2 }]);
    expect(w.downloads.fileCalls).toEqual([]);
    expect(w.downloads.contentUrlCalls).toEqual([
      'https://files/u12',
      'https://files/u13',
      'https://files/u13',
    ]);
    expect(w.pending.markers.size).toBe(0);
    const [lost] = storedDetails(w.events, 'Inbound Attachment Lost');
    expect(lost?.data).toMatchObject({ moKey: 'MOKEY0108', index: 1, name: 'b.jpg', attempts: 2 });
    expect(lost?.data.reason).toBe(
      'the content URL expired 24 h after receipt and GET /mo/v1/file/{moKey} serves only the ' +
        'first attachment; last error: content-url: HTTP 503: busy',
    );
  });

  it('ends a later attachment as lost at once when the message is first seen after 24 h', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0107', [
      attachment('photo.jpg', 'https://files/u14', 28),
      attachment('b.jpg', 'https://files/u15', 28),
    ]);
    w.downloads.files.set('MOKEY0107', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.clock.now = Date.parse(RECEIVED_AT) + 25 * HOUR;

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([
      { result: 'stored', source: 'file-endpoint' },
      { result: 'lost', attempts: 0 },
    ]);
    expect(w.downloads.contentUrlCalls).toEqual([]);
    expect(w.downloads.fileCalls).toEqual(['MOKEY0107']);
    expect(w.pending.markers.size).toBe(0);
  });

  it('deletes a marker whose attachment a stream retry has stored meanwhile', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0105');
    const stale = await w.pending.get('MOKEY0105', 0);
    const mo = await storedMo('MOKEY0105', [attachment('photo.jpg', 'https://files/again', 28)]);
    w.downloads.contentUrls.set('https://files/again', { bytes: PHOTO, contentType: 'image/jpeg' });
    await fetchAttachments({ ...mo }, w.deps);
    const afterSuccess = w.pending.markers.size;
    // A sweep that had the marker in hand writes its failure back after the stream's success.
    if (stale) await w.pending.save(stale);
    w.clock.now += HOUR;
    const callsBefore = w.downloads.fileCalls.length;

    // Act
    const result = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(afterSuccess).toBe(0);
    expect(result.outcomes).toMatchObject([{ result: 'skipped' }]);
    expect(w.downloads.fileCalls).toHaveLength(callsBefore);
    expect(w.pending.markers.size).toBe(0);
  });

  it('keeps going past a marker that fails on our side, and leaves that marker due', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0106');
    await failedOnce(w, 'MOKEY0107');
    w.downloads.files.set('MOKEY0106', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.downloads.files.set('MOKEY0107', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.storage.failNext = 1;
    w.clock.now += HOUR;

    // Act
    const result = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(result.errors.map((failure) => failure.marker.moKey)).toEqual(['MOKEY0106']);
    expect(result.outcomes).toMatchObject([{ result: 'stored', ref: { moKey: 'MOKEY0107' } }]);
    expect([...w.pending.markers.keys()]).toEqual(['MOKEY0106#0']);
  });

  it('stops taking markers when told to, leaving the rest due', async () => {
    const w = world();
    await failedOnce(w, 'MOKEY0108');
    await failedOnce(w, 'MOKEY0109');
    w.clock.now += HOUR;
    let budget = 1;

    const result = await sweepAttachments({ ...w.deps, shouldContinue: () => budget-- > 0 });

    expect(result).toMatchObject({ due: 2, deferred: 1 });
    expect(w.pending.markers.size).toBe(2);
  });
});

describe('HashingCounter and measureStream', () => {
  it('passes every byte through and measures size and SHA-256', async () => {
    // Prepare
    const bytes = randomBytes(1_000_003);
    const counter = new HashingCounter(bytes.length);
    const out: Buffer[] = [];

    // Act
    await pipeline(Readable.from(chunks(bytes, 65_536)), counter, async (source) => {
      for await (const chunk of source as AsyncIterable<Buffer>) out.push(chunk);
    });

    // Assess
    expect(Buffer.concat(out).equals(bytes)).toBe(true);
    expect(counter.measurement()).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
  });

  it('measures an empty body', async () => {
    const counter = new HashingCounter(0);
    await pipeline(Readable.from([]), counter, async (source) => {
      for await (const _ of source) throw new Error('no bytes expected');
    });
    expect(counter.measurement()).toEqual({ sizeBytes: 0, sha256: sha256(Buffer.alloc(0)) });
  });

  it('fails when the body is shorter or longer than announced', async () => {
    const drain = async (announce: number) => {
      const counter = new HashingCounter(announce);
      await pipeline(Readable.from([PHOTO]), counter, async (source) => {
        for await (const _ of source);
      });
    };
    await expect(drain(PHOTO.length + 1)).rejects.toBeInstanceOf(DownloadLengthMismatchError);
    await expect(drain(PHOTO.length - 1)).rejects.toThrow(
      `expected ${PHOTO.length - 1} bytes, received ${PHOTO.length}`,
    );
  });

  it('has no measurement before the end', () => {
    expect(() => new HashingCounter().measurement()).toThrow('has not ended');
  });

  it('tells a source failure from a sink that stopped reading', async () => {
    // Prepare
    const broken = new Readable({ read() {} });
    broken.push(Buffer.from('partial'));
    const measuredBroken = measureStream(broken);
    const healthy = Readable.from(chunks(SCAN, 1_000));
    const measuredHealthy = measureStream(healthy);

    // Act
    setImmediate(() => broken.destroy(new Error('socket hang up')));
    const readBroken = (async () => {
      for await (const _ of measuredBroken.stream);
    })();
    for await (const _ of measuredHealthy.stream) break; // the sink gives up after one chunk
    healthy.destroy();

    // Assess
    await expect(readBroken).rejects.toThrow('socket hang up');
    expect(measuredBroken.sourceFailure()?.message).toBe('socket hang up');
    expect(measuredHealthy.sourceFailure()).toBeUndefined();
  });
});

describe('the stream filter', () => {
  const record = (eventName: string, image: Record<string, unknown>): DynamoDBRecord =>
    ({ eventName, dynamodb: { NewImage: marshall(image) } }) as DynamoDBRecord;

  it('takes inserts of inbound messages with attachments only', () => {
    expect(isAttachmentRecord(record('INSERT', { kind: 'mo', attachmentCount: 2 }))).toBe(true);
    expect(isAttachmentRecord(record('MODIFY', { kind: 'mo', attachmentCount: 2 }))).toBe(false);
    expect(isAttachmentRecord(record('INSERT', { kind: 'report', attachmentCount: 2 }))).toBe(
      false,
    );
    expect(isAttachmentRecord(record('INSERT', { kind: 'mo', attachmentCount: 0 }))).toBe(false);
    expect(isAttachmentRecord(record('INSERT', { kind: 'mo' }))).toBe(false);
  });
});

describe('the handlers', () => {
  const observability = () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
    const counted = vi.spyOn(metrics, 'addMetric');
    const total = (name: string) =>
      counted.mock.calls
        .filter(([metric]) => metric === name)
        .reduce((sum, [, , value]) => sum + value, 0);
    return { logger, metrics, total };
  };

  const streamRecord = (item: EventRecord, sequenceNumber: string): DynamoDBRecord =>
    ({
      eventName: 'INSERT',
      dynamodb: {
        NewImage: marshall({ ...item, attachmentCount: 1 }),
        SequenceNumber: sequenceNumber,
      },
    }) as DynamoDBRecord;

  it('fails only the record whose storage failed, and counts what happened', async () => {
    // Prepare: record 1 stores, record 2 hits an S3 failure, record 3 cannot be downloaded.
    const w = world();
    const o = observability();
    const ok = await storedMo('MOKEY0201', [attachment('a.jpg', 'https://files/h1', 28)]);
    const s3 = await storedMo('MOKEY0202', [attachment('b.jpg', 'https://files/h2', 28)]);
    const refused = await storedMo('MOKEY0203', [attachment('c.jpg', 'https://files/h3', 28)]);
    w.downloads.contentUrls.set('https://files/h1', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.downloads.contentUrls.set('https://files/h2', { bytes: PHOTO, contentType: 'image/jpeg' });
    const handler = createFetchAttachmentsHandler({ ...w.deps, ...o });
    const put = w.storage.put.bind(w.storage);
    vi.spyOn(w.storage, 'put').mockImplementation(async (key, body, type, options) => {
      if (key.includes('MOKEY0202'))
        throw Object.assign(new Error('SlowDown'), { name: 'SlowDown' });
      return put(key, body, type, options);
    });

    // Act
    const response = await handler({
      Records: [streamRecord(ok, '1'), streamRecord(s3, '2'), streamRecord(refused, '3')],
    });

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(o.total('AttachmentsStored')).toBe(1);
    expect(o.total('AttachmentBytesStored')).toBe(PHOTO.length);
    expect(o.total('AttachmentDownloadFailures')).toBe(1);
    // The failed record's marker was written before its attempt: the sweep has it too.
    expect([...w.pending.markers.keys()]).toEqual(['MOKEY0202#0', 'MOKEY0203#0']);
    expect(w.pending.markers.get('MOKEY0202#0')).toMatchObject({ attempts: 0 });
  });

  it('leaves records alone that are not inserted inbound messages', async () => {
    // Prepare
    const w = world();
    const o = observability();
    const mo = await storedMo('MOKEY0204', [attachment('a.jpg', 'https://files/h4', 28)]);
    w.downloads.contentUrls.set('https://files/h4', { bytes: PHOTO, contentType: 'image/jpeg' });
    const handler = createFetchAttachmentsHandler({ ...w.deps, ...o });
    const modified = { ...streamRecord(mo, '1'), eventName: 'MODIFY' } as DynamoDBRecord;
    const report = streamRecord({ ...mo, kind: 'report', detail: '{}' }, '2');

    // Act
    const response = await handler({ Records: [modified, report] });

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(w.downloads.contentUrlCalls).toEqual([]);
  });

  it('sweeps, counts a lost attachment, and fails the run when a marker failed on our side', async () => {
    // Prepare
    const w = world();
    const o = observability();
    const lost = await storedMo('MOKEY0301', [attachment('a.jpg', 'https://files/s1', 28)]);
    const ours = await storedMo('MOKEY0302', [attachment('b.jpg', 'https://files/s2', 28)]);
    await fetchAttachments({ ...lost }, w.deps);
    await fetchAttachments({ ...ours }, w.deps);
    // The second marker is for a message that arrived later, so it is not yet past its window.
    const marker = await w.pending.get('MOKEY0302', 0);
    if (!marker) throw new Error('no marker');
    await w.pending.save({ ...marker, receivedAt: '2026-11-25T00:00:00.000Z' });
    w.downloads.files.set('MOKEY0302', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.storage.failNext = 1;
    w.clock.now = Date.parse(RECEIVED_AT) + 7 * DAY + HOUR;
    const handler = createSweepHandler({ ...w.deps, ...o, marginMs: 1_000 });

    // Act / Assess
    await expect(handler({})).rejects.toThrow('1 pending attachment(s) failed on our side');
    expect(o.total('AttachmentsLost')).toBe(1);
    expect(storedDetails(w.events, 'Inbound Attachment Lost')).toHaveLength(1);
    expect([...w.pending.markers.keys()]).toEqual(['MOKEY0302#0']);
  });

  it('stores or declares lost, once each, the attachments of a batch that went to on-failure', async () => {
    // Prepare: three attachments in two messages; S3 fails on every delivery of the batch.
    const w = world();
    const o = observability();
    const first = await storedMo('MOKEY0401', [
      attachment('a.jpg', 'https://files/f1', 28),
      attachment('b.jpg', 'https://files/f2', 28),
    ]);
    const second = await storedMo('MOKEY0402', [attachment('c.jpg', 'https://files/f3', 28)]);
    for (const url of ['https://files/f1', 'https://files/f2', 'https://files/f3'])
      w.downloads.contentUrls.set(url, { bytes: PHOTO, contentType: 'image/jpeg' });
    const s3Down = vi
      .spyOn(w.storage, 'put')
      .mockRejectedValue(
        Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' }),
      );
    const puts = vi.spyOn(w.events, 'putIfAbsent');
    const handler = createFetchAttachmentsHandler({ ...w.deps, ...o });
    const batch = { Records: [streamRecord(first, '1'), streamRecord(second, '2')] };
    const sweep = createSweepHandler({ ...w.deps, ...o, marginMs: 0 });

    // Act: the first delivery and 5 retries fail; the records go to the on-failure destination.
    // Every record failing fails the invocation as a whole (Powertools' FullBatchFailureError).
    const deliveries: unknown[] = [];
    for (let delivery = 0; delivery < 6; delivery++) {
      deliveries.push(await handler(batch).catch((error: unknown) => error));
      w.clock.now += 30_000;
    }
    // S3 recovers; the content URLs were used up. The file endpoint serves each message's first
    // attachment (a.jpg, c.jpg); for b.jpg it offers nothing once its content URL has expired.
    s3Down.mockRestore();
    for (const url of ['https://files/f1', 'https://files/f2', 'https://files/f3'])
      w.downloads.contentUrls.set(url, { refuse: 'HTTP 410: content URL already used' });
    w.downloads.files.set('MOKEY0401', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.downloads.files.set('MOKEY0402', { bytes: SCAN, contentType: 'image/png' });
    // The sweep runs every 15 minutes for 8 days.
    for (let run = 0; run < 8 * 24 * 4; run++) {
      w.clock.now += 15 * 60_000;
      await sweep({});
    }

    // Assess
    for (const delivery of deliveries)
      expect(delivery).toMatchObject({ message: expect.stringMatching(/^All records failed/) });
    const keyOf = (detail: { data: Record<string, unknown> }) =>
      `${String(detail.data.moKey)}#${String(detail.data.index)}`;
    const stored = storedDetails(w.events, 'Inbound Attachment Stored');
    expect(stored.map(keyOf).sort()).toEqual(['MOKEY0401#0', 'MOKEY0402#0']);
    expect(stored.map((detail) => detail.data.source)).toEqual(['file-endpoint', 'file-endpoint']);
    const lost = storedDetails(w.events, 'Inbound Attachment Lost');
    expect(lost.map(keyOf)).toEqual(['MOKEY0401#1']);
    expect(lost[0]?.data.reason).toBe(
      'the content URL expired 24 h after receipt and GET /mo/v1/file/{moKey} serves only the ' +
        'first attachment; last error: content-url: HTTP 410: content URL already used',
    );
    // One put per attachment: nothing was stored twice, nothing both stored and lost.
    expect(puts).toHaveBeenCalledTimes(3);
    expect(w.pending.markers.size).toBe(0);
    expect(o.total('AttachmentsStored')).toBe(2);
    expect(o.total('AttachmentsLost')).toBe(1);
  });
});
