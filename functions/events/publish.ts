import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  AttributeValue as LambdaAttributeValue,
} from 'aws-lambda';
import { z } from 'zod';

/** One event for `PutEvents`. */
export interface BusEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly Time: Date;
}

/** Per-entry result of a `PutEvents` call, in the order of the entries. */
export type BusEntryResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly errorCode: string; readonly errorMessage: string };

/** The event bus port: one `PutEvents` call of at most 10 entries. */
export interface EventBus {
  putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]>;
}

export interface PublishDeps {
  readonly bus: EventBus;
  readonly source: string;
  /** Attempts per entry within one invocation (the first call included). */
  readonly maxAttempts: number;
  /** Wait before attempt `n` (n ≥ 2). */
  readonly backoffMs: (attempt: number) => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** `PutEvents` request size limit. */
  readonly maxBatchBytes: number;
  readonly onPoison?: (record: DynamoDBRecord, reason: string) => void;
  readonly onPublishFailure?: (
    failures: readonly { eventId: string; errorCode: string; errorMessage: string }[],
  ) => void;
}

export const MAX_ENTRIES_PER_CALL = 10;
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;

const StoredEventSchema = z.looseObject({
  detailType: z.string().min(1),
  detail: z.string().min(2),
  eventId: z.string(),
});

const DetailTimeSchema = z.looseObject({ metadata: z.looseObject({ occurredAt: z.string() }) });

/**
 * The size EventBridge counts for one entry: 14 bytes for the time plus the UTF-8 bytes of the
 * source, detail-type and detail.
 */
export const entrySize = (entry: BusEntry): number =>
  14 +
  Buffer.byteLength(entry.Source) +
  Buffer.byteLength(entry.DetailType) +
  Buffer.byteLength(entry.Detail);

export interface PublishOutcome {
  readonly response: DynamoDBBatchResponse;
  readonly published: number;
  readonly poison: number;
}

/**
 * Publishes the event-table stream records of one invocation (INSERTs of items carrying an event).
 *
 * Primary course: each record's new image becomes one entry; entries go out in order, at most 10
 * and at most `maxBatchBytes` per call; only the failed entries are sent again, with backoff.
 * On a record that cannot become an entry (poison) or an entry still failing after the retries,
 * publishing stops: that record and every later one are reported as batch item failures, so
 * Lambda retries from there (bisecting, then the on-failure destination) and nothing published
 * before it is sent twice by this function.
 */
export const publishRecords = async (
  records: readonly DynamoDBRecord[],
  deps: PublishDeps,
): Promise<PublishOutcome> => {
  const entries: Array<{ record: DynamoDBRecord; entry: BusEntry; eventId: string }> = [];
  let stopAt = records.length;
  for (const [index, record] of records.entries()) {
    const built = toEntry(record, deps.source, deps.maxBatchBytes);
    if ('reason' in built) {
      deps.onPoison?.(record, built.reason);
      stopAt = index;
      break;
    }
    entries.push({ record, ...built });
  }

  let published = 0;
  for (const batch of batches(entries, deps.maxBatchBytes)) {
    const failedAt = await putWithRetries(batch, deps);
    if (failedAt !== undefined) {
      published += failedAt.publishedBefore;
      stopAt = records.indexOf(failedAt.record);
      break;
    }
    published += batch.length;
  }

  const failures = records
    .slice(stopAt)
    .map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }));
  return {
    response: { batchItemFailures: failures },
    published,
    poison: stopAt < records.length && entries.length === stopAt ? 1 : 0,
  };
};

const toEntry = (
  record: DynamoDBRecord,
  source: string,
  maxBytes: number,
): { entry: BusEntry; eventId: string } | { reason: string } => {
  const image = record.dynamodb?.NewImage;
  if (!image) return { reason: 'stream record has no new image' };
  const parsed = StoredEventSchema.safeParse(
    unmarshall(image as Record<string, LambdaAttributeValue> as never),
  );
  if (!parsed.success) return { reason: `not an event item: ${z.prettifyError(parsed.error)}` };
  let detail: unknown;
  try {
    detail = JSON.parse(parsed.data.detail);
  } catch {
    return { reason: 'detail is not JSON' };
  }
  const time = DetailTimeSchema.safeParse(detail);
  const entry: BusEntry = {
    Source: source,
    DetailType: parsed.data.detailType,
    Detail: parsed.data.detail,
    Time: time.success ? new Date(time.data.metadata.occurredAt) : new Date(),
  };
  if (entrySize(entry) > maxBytes)
    return { reason: `event of ${entrySize(entry)} bytes exceeds the ${maxBytes}-byte limit` };
  return { entry, eventId: parsed.data.eventId };
};

/** Groups entries in order into calls of at most 10 entries and `maxBytes`. */
function* batches<T extends { entry: BusEntry }>(
  items: readonly T[],
  maxBytes: number,
): Generator<T[]> {
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = entrySize(item.entry);
    if (batch.length === MAX_ENTRIES_PER_CALL || (batch.length > 0 && bytes + size > maxBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Sends a batch, then only its failed entries again, up to `maxAttempts`. Returns the first record
 * (in stream order) that could not be published, or `undefined` when all were.
 */
const putWithRetries = async (
  batch: ReadonlyArray<{ record: DynamoDBRecord; entry: BusEntry; eventId: string }>,
  deps: PublishDeps,
): Promise<{ record: DynamoDBRecord; publishedBefore: number } | undefined> => {
  let pending = [...batch];
  let lastFailures: Array<{ eventId: string; errorCode: string; errorMessage: string }> = [];
  for (let attempt = 1; attempt <= deps.maxAttempts && pending.length > 0; attempt++) {
    if (attempt > 1) await deps.sleep(deps.backoffMs(attempt));
    let results: readonly BusEntryResult[];
    try {
      results = await deps.bus.putEvents(pending.map((item) => item.entry));
    } catch (error) {
      // The whole call failed (throttling, network): every entry is still pending.
      results = pending.map(() => ({
        ok: false,
        errorCode: (error as Error).name,
        errorMessage: (error as Error).message,
      }));
    }
    lastFailures = [];
    pending = pending.filter((item, index) => {
      const result = results[index];
      if (result?.ok) return false;
      lastFailures.push({
        eventId: item.eventId,
        errorCode: result ? result.errorCode : 'MissingResult',
        errorMessage: result ? result.errorMessage : 'no result for this entry',
      });
      return true;
    });
  }
  if (pending.length === 0) return undefined;
  deps.onPublishFailure?.(lastFailures);
  const first = pending[0];
  if (!first) return undefined;
  const firstIndex = batch.indexOf(first);
  return { record: first.record, publishedBefore: firstIndex };
};
