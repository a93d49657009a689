import type { Readable } from 'node:stream';
import { MoItemSchema } from '../../gateway/schemas/mo.ts';
import * as z from '../../gateway/schemas/zod.ts';
import {
  inboundAttachmentLost,
  inboundAttachmentStored,
  ViaSchema,
} from '../catalogue/catalogue.ts';
import { buildEventDetail } from '../catalogue/envelope.ts';
import { backoffDelay } from '../commons/helpers/backoff.ts';
import { eventKeys, idempotencyKeys } from '../commons/table-keys.ts';
import { type EventRecord, toEventRecord } from '../event-table/event-record.ts';
import type { EventStore } from '../event-table/ports.ts';
import { storedDetail } from '../event-table/stored-detail.ts';
import type { Measurement } from './measured-stream.ts';

/**
 * `fetch-attachments`: every attachment of an inbound message ends in S3 with one "Inbound
 * Attachment Stored" event — or, once the gateway no longer has it, one "Inbound Attachment
 * Lost" event. The stream handler makes the first attempt; a scheduled sweep retries what failed.
 *
 * The stream handler writes a pending marker for every attachment of the message BEFORE its first
 * download, and only success or a terminal event removes it. So whatever becomes of the stream
 * record — our own failure on every retry until it goes to the on-failure destination, a timeout,
 * a killed invocation — the sweep finds the attachment and takes it to one terminal event.
 *
 * The gateway's rules (field notes): `contentUrl` is single-use and valid 24 h; `GET
 * /mo/v1/file/{moKey}` works for 7 days. The file endpoint names only the moKey (spec 01 §4.14
 * has no parameter to pick an attachment), so it is read as serving the message's first
 * attachment: attachments 2…n have only their content URL, and once it has expired one that is
 * still missing ends as "Inbound Attachment Lost" (see docs/gateway-client.md). Both windows are
 * counted from the message's
 * `metadata.receivedAt` (when msgbridge stored it): the gateway counts from its own receipt, which
 * is a little earlier, but a content URL that has already expired only costs one refused call
 * before the file endpoint, and a deadline a little late only costs a few refused retries.
 */

export const CONTENT_URL_VALIDITY_MS = 24 * 3_600_000;
export const FILE_RETENTION_MS = 7 * 86_400_000;
/**
 * A marker written before the first download is due this long after it was written: time for the
 * stream handler (5-minute timeout) and its quick retries to finish, so that the sweep takes over
 * only what they could not.
 */
export const FIRST_ATTEMPT_GRACE_MS = 15 * 60_000;
/** `lastError` of a marker whose first download has not finished. */
export const NOT_ATTEMPTED =
  'not downloaded yet: the first attempt did not finish (our side failed or the function stopped)';
/** First retry 5 minutes after a failure, then doubling up to every 6 hours. */
export const RETRY_BASE_MS = 5 * 60_000;
export const RETRY_MAX_MS = 6 * 3_600_000;

export type AttachmentSource = 'content-url' | 'file-endpoint';

// --- Ports ------------------------------------------------------------------------------------

/** An attachment download in progress: the headers are in, the bytes are still to be read. */
export interface Download {
  readonly contentType: string;
  readonly contentLength?: number;
  readonly body: Readable;
}

/**
 * The gateway did not hand over the file: a refusal (404, 410, an error code), a timeout, a
 * broken connection. Retrying later may work; it is never our own failure. `refused` is set when
 * msgbridge itself would not fetch the content URL (see `ContentUrlPolicy`): no request was made
 * to where it pointed.
 */
export class AttachmentDownloadError extends Error {
  override readonly name = 'AttachmentDownloadError';
  readonly refused: boolean;
  constructor(
    readonly source: AttachmentSource,
    message: string,
    options?: { cause?: unknown; refused?: boolean },
  ) {
    super(message, options);
    this.refused = options?.refused ?? false;
  }
}

/** The object store could not read its body to the end: the download broke off mid-stream. */
export class SourceStreamError extends Error {
  override readonly name = 'SourceStreamError';
}

/** The two ways to get an attachment from the gateway. */
export interface AttachmentDownloads {
  /** Rejects with {@link AttachmentDownloadError} when the gateway does not deliver. */
  fromContentUrl(url: string): Promise<Download>;
  /**
   * `GET /mo/v1/file/{moKey}`: the message's first attachment; rejects with
   * {@link AttachmentDownloadError} likewise.
   */
  fromFileEndpoint(moKey: string): Promise<Download>;
}

export interface PutOptions {
  /** User metadata (ASCII values). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** The `Content-Length` the download announced; another length fails the put. */
  readonly expectedBytes?: number;
}

/** Where attachments are kept (S3). */
export interface ObjectStorage {
  readonly bucket: string;
  /**
   * Streams `body` to `key` and measures it on the way; the object's metadata carries the size
   * and SHA-256 too. Rejects with {@link SourceStreamError} when reading `body` failed (nothing
   * is stored then), with any other error when the store failed.
   */
  put(key: string, body: Readable, contentType: string, options?: PutOptions): Promise<Measurement>;
}

/** The event table, for attachment events: conditional puts, and a look-up by key. */
export interface AttachmentEventStore extends EventStore {
  exists(pk: string, sk: string): Promise<boolean>;
}

/** One attachment of one inbound message: what it takes to fetch it and to report on it. */
export const AttachmentRefSchema = z.object({
  moKey: z.string().check(z.minLength(1)),
  index: z.int().check(z.minimum(0)),
  name: z.nullable(z.string()),
  extension: z.nullable(z.string()),
  /** Single-use and valid 24 h; `null` when the gateway gave none. */
  contentUrl: z.nullable(z.string()),
  /** When msgbridge received the message (`metadata.receivedAt`); both windows count from it. */
  receivedAt: z.iso.datetime({ offset: true }),
  via: ViaSchema,
});
export type AttachmentRef = z.infer<typeof AttachmentRefSchema>;

/**
 * The state-table marker of an attachment that has no terminal event yet: written before the first
 * download (`attempts` 0), updated after each failed one; the sweep retries it when it is due.
 */
export const PendingAttachmentSchema = z.extend(AttachmentRefSchema, {
  attempts: z.int().check(z.minimum(0)),
  lastError: z.string(),
  /** Absent until a download has failed. */
  firstFailedAt: z.optional(z.iso.datetime({ offset: true })),
  nextAttemptAt: z.iso.datetime({ offset: true }),
});
export type PendingAttachment = z.infer<typeof PendingAttachmentSchema>;

/** Pending markers (`pk = ATTACHMENT#<moKey>#<index>` in the state table). */
export interface PendingAttachmentStore {
  get(moKey: string, index: number): Promise<PendingAttachment | undefined>;
  /** Creates the marker unless one exists (a stream retry keeps the count of earlier attempts). */
  register(marker: PendingAttachment): Promise<void>;
  /** Creates or replaces the marker. */
  save(marker: PendingAttachment): Promise<void>;
  /** Deletes the marker; no error when there is none. */
  remove(moKey: string, index: number): Promise<void>;
  /** Every marker whose `nextAttemptAt` is not after `now`, oldest first. */
  due(now: Date): Promise<PendingAttachment[]>;
}

export interface FetchAttachmentsDeps {
  readonly downloads: AttachmentDownloads;
  readonly storage: ObjectStorage;
  readonly pending: PendingAttachmentStore;
  readonly events: AttachmentEventStore;
  readonly now: () => Date;
  /** Days an event item stays in the event table. */
  readonly retentionDays: number;
  /** Key prefix in the bucket, ending in `/` (e.g. `inbound/`). */
  readonly keyPrefix: string;
}

export interface SweepDeps extends FetchAttachmentsDeps {
  /** Asked before each marker; `false` ends the sweep early (the invocation is running out). */
  readonly shouldContinue: () => boolean;
}

/** The copy of an attachment in the bucket, and how it was fetched. */
export interface StoredDownload {
  readonly source: AttachmentSource;
  readonly key: string;
  readonly contentType: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  /** Sources that failed before the one that worked. */
  readonly failures: readonly string[];
  /** The content URL was refused (not fetched); the file came from the file endpoint. */
  readonly contentUrlRefused: boolean;
}

/** What happened to one attachment. */
export type AttachmentOutcome =
  | ({ readonly result: 'stored'; readonly ref: AttachmentRef } & StoredDownload)
  | { readonly result: 'skipped'; readonly ref: AttachmentRef }
  | {
      readonly result: 'pending';
      readonly ref: AttachmentRef;
      readonly attempts: number;
      readonly reason: string;
      readonly nextAttemptAt: string;
      readonly contentUrlRefused: boolean;
    }
  | {
      readonly result: 'lost';
      readonly ref: AttachmentRef;
      readonly attempts: number;
      readonly reason: string;
    };

/** A stored inbound message that cannot be read: a bug or a hand-edited item, never retried away. */
export class InvalidInboundItemError extends Error {
  override readonly name = 'InvalidInboundItemError';
}

// --- The stored inbound message ---------------------------------------------------------------

const StoredInboundDetailSchema = z.object({
  metadata: z.object({ receivedAt: z.iso.datetime({ offset: true }), via: ViaSchema }),
  data: z.object({ moKey: z.string().check(z.minLength(1)), raw: MoItemSchema }),
});

/** The attachments of an inbound-message item of the event table (`kind = 'mo'`). */
export const attachmentsOf = (item: Readonly<Record<string, unknown>>): AttachmentRef[] => {
  const text = storedDetail(item);
  const detail = text === undefined ? undefined : parseJson(text);
  const parsed = StoredInboundDetailSchema.safeParse(detail);
  if (!parsed.success) {
    throw new InvalidInboundItemError(
      `item ${String(item.pk)} is not a stored inbound message: ${z.prettifyError(parsed.error)}`,
    );
  }
  const { metadata, data } = parsed.data;
  return data.raw.contentInfoLst.map((content, index) => ({
    moKey: data.moKey,
    index,
    name: content.contentName ?? null,
    extension: content.contentExt ?? null,
    contentUrl: content.contentUrl ?? null,
    receivedAt: metadata.receivedAt,
    via: metadata.via,
  }));
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

// --- Use cases --------------------------------------------------------------------------------

/**
 * Fetches every attachment of one stored inbound message (the stream handler's use case).
 *
 * Input: the event-table item. Output: one outcome per attachment.
 * Primary course: register a pending marker for every attachment (due after
 * {@link FIRST_ATTEMPT_GRACE_MS}); then, one by one, skip what is already stored, download
 * (content URL while younger than 24 h, else or when that fails the file endpoint), stream into
 * S3, store the "stored" event and remove the marker.
 * Alternatives: every download fails → the marker gets the failure and a backoff (not an error:
 * the sweep retries). Throws only for our own failures (S3, DynamoDB), so that the stream retries;
 * the markers stay, so the sweep retries too, even once the stream has given up on the record.
 */
export const fetchAttachments = async (
  item: Readonly<Record<string, unknown>>,
  deps: FetchAttachmentsDeps,
): Promise<AttachmentOutcome[]> => {
  const refs = attachmentsOf(item);
  // All markers first: a failure on attachment 0 must not leave attachment 1 without one.
  const due = new Date(deps.now().getTime() + FIRST_ATTEMPT_GRACE_MS).toISOString();
  await Promise.all(
    refs.map((ref) =>
      deps.pending.register({ ...ref, attempts: 0, lastError: NOT_ATTEMPTED, nextAttemptAt: due }),
    ),
  );
  const outcomes: AttachmentOutcome[] = [];
  // One at a time: each upload holds a few part buffers, and a message has at most a handful.
  for (const ref of refs) outcomes.push(await fetchAttachment(ref, deps));
  return outcomes;
};

/** One marker the sweep could not finish because of our own failure; it stays due. */
export interface SweepError {
  readonly marker: PendingAttachment;
  readonly error: unknown;
}

export interface SweepResult {
  readonly due: number;
  readonly outcomes: readonly AttachmentOutcome[];
  readonly errors: readonly SweepError[];
  /** Due markers left for the next run because time ran out. */
  readonly deferred: number;
}

/**
 * Retries the pending attachments that are due (the scheduled sweep's use case).
 *
 * Primary course: for each due marker, oldest first, fetch again; success stores the event and
 * deletes the marker. Alternatives: still failing → the marker gets the next backoff; the 7-day
 * window has passed → "Inbound Attachment Lost" with the last reason, and the marker goes. A
 * marker that fails on our side stays as it is (due) and is reported in `errors`; the others go on.
 */
export const sweepAttachments = async (deps: SweepDeps): Promise<SweepResult> => {
  const markers = await deps.pending.due(deps.now());
  const outcomes: AttachmentOutcome[] = [];
  const errors: SweepError[] = [];
  let handled = 0;
  for (const marker of markers) {
    if (!deps.shouldContinue()) break;
    handled += 1;
    try {
      outcomes.push(await fetchAttachment(refOf(marker), deps, marker));
    } catch (error) {
      errors.push({ marker, error });
    }
  }
  return { due: markers.length, outcomes, errors, deferred: markers.length - handled };
};

const refOf = (marker: PendingAttachment): AttachmentRef => ({
  moKey: marker.moKey,
  index: marker.index,
  name: marker.name,
  extension: marker.extension,
  contentUrl: marker.contentUrl,
  receivedAt: marker.receivedAt,
  via: marker.via,
});

/** Fetches one attachment; `marker` is given when the sweep retries it. */
export const fetchAttachment = async (
  ref: AttachmentRef,
  deps: FetchAttachmentsDeps,
  marker?: PendingAttachment,
): Promise<AttachmentOutcome> => {
  const stored = storedEventKeys(ref);
  if (await deps.events.exists(stored.pk, stored.sk)) {
    // A marker can outlive a success (a stream retry won the race, or registered it again); it
    // has no more work to do.
    await deps.pending.remove(ref.moKey, ref.index);
    return { result: 'skipped', ref };
  }
  const deadline = lastChanceAt(ref);
  if (deps.now().getTime() >= deadline && (marker || !servedByFileEndpoint(ref))) {
    // Past its window: the sweep ends it; a later attachment has no source left to try at all.
    const previous = marker ?? (await deps.pending.get(ref.moKey, ref.index));
    return lose(ref, { attempts: previous?.attempts ?? 0, lastError: previous?.lastError }, deps);
  }

  const attempt = await downloadAndStore(ref, deps);
  if (attempt.ok) {
    const { ok: _, ...result } = attempt;
    await deps.events.putIfAbsent(storedRecord(ref, result, deps));
    await deps.pending.remove(ref.moKey, ref.index);
    return { result: 'stored', ref, ...result };
  }

  const previous = marker ?? (await deps.pending.get(ref.moKey, ref.index));
  const attempts = (previous?.attempts ?? 0) + 1;
  const reason = attempt.failures.join('; ');
  const now = deps.now().getTime();
  if (now >= deadline) return lose(ref, { attempts, lastError: reason }, deps);
  const nextAttemptAt = new Date(Math.min(now + retryDelayMs(attempts), deadline)).toISOString();
  await deps.pending.save({
    ...ref,
    attempts,
    lastError: reason,
    firstFailedAt: previous?.firstFailedAt ?? new Date(now).toISOString(),
    nextAttemptAt,
  });
  return {
    result: 'pending',
    ref,
    attempts,
    reason,
    nextAttemptAt,
    contentUrlRefused: attempt.contentUrlRefused,
  };
};

/** The file endpoint names only the moKey: it serves the first attachment, never a later one. */
const servedByFileEndpoint = (ref: Pick<AttachmentRef, 'index'>): boolean => ref.index === 0;

/** Until when an attachment can still be fetched: 7 days by the file endpoint, else 24 h. */
const lastChanceAt = (ref: Pick<AttachmentRef, 'index' | 'receivedAt'>): number =>
  Date.parse(ref.receivedAt) +
  (servedByFileEndpoint(ref) ? FILE_RETENTION_MS : CONTENT_URL_VALIDITY_MS);

const ONLY_FIRST_FROM_FILE_ENDPOINT =
  'the content URL expired 24 h after receipt and GET /mo/v1/file/{moKey} serves only the ' +
  'first attachment';

const lostReason = (ref: Pick<AttachmentRef, 'index'>, lastError: string | undefined): string => {
  if (servedByFileEndpoint(ref)) return lastError ?? '';
  return lastError
    ? `${ONLY_FIRST_FROM_FILE_ENDPOINT}; last error: ${lastError}`
    : ONLY_FIRST_FROM_FILE_ENDPOINT;
};

/** Delay before retry number `attempts + 1`: 5 min, 10 min, 20 min, … at most 6 h. */
export const retryDelayMs = (attempts: number): number =>
  backoffDelay({ firstMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS }, attempts);

type DownloadAttempt =
  | ({ readonly ok: true } & StoredDownload)
  | ({ readonly ok: false } & Pick<StoredDownload, 'failures' | 'contentUrlRefused'>);

const downloadAndStore = async (
  ref: AttachmentRef,
  deps: FetchAttachmentsDeps,
): Promise<DownloadAttempt> => {
  const young = deps.now().getTime() < Date.parse(ref.receivedAt) + CONTENT_URL_VALIDITY_MS;
  const contentUrl = young ? ref.contentUrl : null;
  const sources: AttachmentSource[] = [
    ...(contentUrl ? (['content-url'] as const) : []),
    ...(servedByFileEndpoint(ref) ? (['file-endpoint'] as const) : []),
  ];
  const key = objectKey(deps.keyPrefix, ref);
  const failures: string[] = [];
  let contentUrlRefused = false;
  for (const source of sources) {
    let download: Download;
    try {
      download =
        source === 'content-url' && contentUrl
          ? await deps.downloads.fromContentUrl(contentUrl)
          : await deps.downloads.fromFileEndpoint(ref.moKey);
    } catch (error) {
      if (!(error instanceof AttachmentDownloadError)) throw error;
      contentUrlRefused ||= error.refused;
      failures.push(`${source}: ${error.message}`);
      continue;
    }
    try {
      const measured = await deps.storage.put(key, download.body, download.contentType, {
        metadata: objectMetadata(ref, source),
        ...(download.contentLength === undefined ? {} : { expectedBytes: download.contentLength }),
      });
      return {
        ok: true,
        source,
        key,
        contentType: download.contentType,
        ...measured,
        failures,
        contentUrlRefused,
      };
    } catch (error) {
      // Anything but a broken download is ours (S3): thrown, so that the stream retries.
      if (!(error instanceof SourceStreamError)) throw error;
      failures.push(`${source}: download broke off: ${error.message}`);
    } finally {
      // Frees the connection when the put stopped early; a no-op once the body was read. An
      // HTTP body destroyed unread emits an abort error: expected here, so it is listened to.
      download.body.on('error', () => {});
      download.body.destroy();
    }
  }
  return { ok: false, failures, contentUrlRefused };
};

/** Records the attachment as lost after `attempts` downloads, the last failing with `lastError`. */
const lose = async (
  ref: AttachmentRef,
  { attempts, lastError }: { readonly attempts: number; readonly lastError: string | undefined },
  deps: FetchAttachmentsDeps,
): Promise<AttachmentOutcome> => {
  const reason = lostReason(ref, lastError);
  const detail = buildEventDetail(inboundAttachmentLost, {
    ...attachmentEventBase(ref, deps, idempotencyKeys.attachmentLost(ref.moKey, ref.index)),
    data: { ...attachmentFields(ref), reason, attempts, receivedAt: ref.receivedAt },
  });
  await deps.events.putIfAbsent(
    toEventRecord(
      {
        pk: eventKeys.mo(ref.moKey),
        sk: eventKeys.attachment(ref.index, true),
        kind: 'attachment',
      },
      detail,
      deps.retentionDays,
    ),
  );
  await deps.pending.remove(ref.moKey, ref.index);
  return { result: 'lost', ref, attempts, reason };
};

/** What every event about an attachment says of when and how its message arrived. */
const attachmentEventBase = (
  ref: AttachmentRef,
  deps: FetchAttachmentsDeps,
  idempotencyKey: string,
) => ({
  idempotencyKey,
  occurredAt: deps.now().toISOString(),
  receivedAt: ref.receivedAt,
  via: ref.via,
});

/** The attachment itself, as every event about it names it. */
const attachmentFields = ({ moKey, index, name }: AttachmentRef) => ({ moKey, index, name });

/** The event-table keys of an attachment's "stored" event: next to its message (`MO#<moKey>`). */
export const storedEventKeys = (ref: Pick<AttachmentRef, 'moKey' | 'index'>) => ({
  pk: eventKeys.mo(ref.moKey),
  sk: eventKeys.attachment(ref.index),
});

const storedRecord = (
  ref: AttachmentRef,
  stored: Omit<Extract<DownloadAttempt, { ok: true }>, 'ok' | 'failures' | 'contentUrlRefused'>,
  deps: FetchAttachmentsDeps,
): EventRecord => {
  const detail = buildEventDetail(inboundAttachmentStored, {
    ...attachmentEventBase(ref, deps, idempotencyKeys.attachment(ref.moKey, ref.index)),
    data: {
      ...attachmentFields(ref),
      contentType: stored.contentType,
      sizeBytes: stored.sizeBytes,
      sha256: stored.sha256,
      s3: { bucket: deps.storage.bucket, key: stored.key },
      source: stored.source,
    },
  });
  return toEventRecord({ ...storedEventKeys(ref), kind: 'attachment' }, detail, deps.retentionDays);
};

// --- Object keys ------------------------------------------------------------------------------

const MAX_NAME_LENGTH = 100;

/**
 * `<prefix><yyyy>/<mm>/<dd>/<moKey>/<index>-<safe name>`, dated by when the message arrived (UTC),
 * so the stream handler and the sweep always choose the same key for the same attachment.
 */
export const objectKey = (prefix: string, ref: AttachmentRef): string => {
  const [yyyy, mm, dd] = new Date(ref.receivedAt).toISOString().slice(0, 10).split('-');
  return `${prefix}${yyyy}/${mm}/${dd}/${safeSegment(ref.moKey) || 'mo'}/${ref.index}-${safeName(ref)}`;
};

/** Letters, digits, `.`, `_` and `-` only: other characters (Hangul, spaces, `/`) become `_`. */
const safeSegment = (text: string): string =>
  text
    .normalize('NFC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, MAX_NAME_LENGTH);

const safeName = (ref: AttachmentRef): string => {
  const name = ref.name ?? '';
  const split = /^(.*[^.])\.([A-Za-z0-9]{1,10})$/.exec(name);
  const base = safeSegment(split?.[1] ?? name);
  const given = (split?.[2] ?? ref.extension ?? '').trim();
  const extension = /^[A-Za-z0-9]{1,10}$/.test(given) ? given : '';
  // Nothing readable left of the name (all Hangul, say): a neutral name with the extension.
  const stem = /[A-Za-z0-9]/.test(base) ? base : 'attachment';
  return extension ? `${stem}.${extension}` : stem;
};

/** Object metadata must be ASCII: the original name is kept percent-encoded. */
const objectMetadata = (ref: AttachmentRef, source: AttachmentSource): Record<string, string> => ({
  'mo-key': encodeURIComponent(ref.moKey),
  index: String(ref.index),
  source,
  ...(ref.name ? { 'original-name': encodeURIComponent(ref.name).slice(0, 512) } : {}),
});
