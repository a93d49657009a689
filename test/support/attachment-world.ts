/** The attachment fetcher's fakes (downloads, object storage, pending store, event store) and the world that wires them. */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { moItem } from '../../fixtures/gateway-bodies.ts';
import {
  AttachmentDownloadError,
  type AttachmentDownloads,
  type AttachmentEventStore,
  type Download,
  type FetchAttachmentsDeps,
  type ObjectStorage,
  type PendingAttachment,
  type PendingAttachmentStore,
  type PutOptions,
  SourceStreamError,
} from '../../functions/attachments/fetch-use-case.ts';
import { type Measurement, measureStream } from '../../functions/attachments/measured-stream.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import { receiveInbound } from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from './fake-event-store.ts';

export const HOUR = 3_600_000;

export const DAY = 24 * HOUR;

export const RECEIVED_AT = '2026-11-21T00:30:00.000Z';

export const PHOTO = Buffer.from('a small photo, byte for byte');

export const SCAN = randomBytes(200_000);

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A download path answering PHOTO as a JPEG, or SCAN as a PNG. */
export const JPEG = { bytes: PHOTO, contentType: 'image/jpeg' } as const;
export const PNG = { bytes: SCAN, contentType: 'image/png' } as const;

/** A download path the gateway refuses for now. */
export const BUSY = { refuse: 'HTTP 503: busy' } as const;

export type Script =
  | { readonly bytes: Buffer; readonly contentType: string; readonly announce?: number }
  | { readonly refuse: string }
  /** Sends the headers and `after` bytes, then the connection breaks. */
  | { readonly breakAfter: number; readonly bytes: Buffer; readonly contentType: string };

/** The gateway's two download paths, scripted per content URL and per `moKey` (the file endpoint). */
export class FakeDownloads implements AttachmentDownloads {
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

export const play = (source: 'content-url' | 'file-endpoint', script: Script): Download => {
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

export function* chunks(bytes: Buffer, size: number) {
  for (let offset = 0; offset < bytes.length; offset += size)
    yield bytes.subarray(offset, offset + size);
}

/** An object store that measures like the S3 adapter (same hashing stream) and keeps the bytes. */
export class FakeStorage implements ObjectStorage {
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

export class FakePending implements PendingAttachmentStore {
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

export class FakeAttachmentEvents extends FakeEventStore implements AttachmentEventStore {
  async exists(pk: string, sk: string) {
    return this.items.has(`${pk}|${sk}`);
  }
}

export interface World {
  readonly downloads: FakeDownloads;
  readonly storage: FakeStorage;
  readonly pending: FakePending;
  readonly events: FakeAttachmentEvents;
  readonly clock: { now: number };
  readonly deps: FetchAttachmentsDeps;
}

export const world = (): World => {
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

export const attachment = (name: string, url: string, size: number) => ({
  contentName: name,
  contentSize: String(size),
  contentExt: name.split('.').at(-1) ?? 'bin',
  contentUrl: url,
});

/** An inbound message stored the way the receiver stores it (the event-table item). */
export const storedMo = async (
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

export interface ServedAttachment {
  readonly name: string;
  readonly url: string;
  /** Announced size in bytes (28 unless said). */
  readonly size?: number;
  /** What its content URL answers (unset: HTTP 404). */
  readonly serves?: Script;
}

/** An inbound message stored as the receiver stores it, its content URLs answering as scripted. */
export const storedMoServing = async (
  w: World,
  moKey: string,
  attachments: readonly ServedAttachment[],
): Promise<EventRecord> => {
  for (const { url, serves } of attachments) if (serves) w.downloads.contentUrls.set(url, serves);
  return storedMo(
    moKey,
    attachments.map(({ name, url, size }) => attachment(name, url, size ?? 28)),
  );
};

export const storedDetails = (events: FakeEventStore, type: string) =>
  events.details('attachment').filter((detail) => detail.metadata.type === type);
