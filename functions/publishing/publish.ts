import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  AttributeValue as LambdaAttributeValue,
} from 'aws-lambda';
import * as z from 'zod/mini';
import { mapWithConcurrency } from '../commons/helpers/map-with-concurrency.ts';
import { publishedFieldsSchema } from '../event-table/event-record.ts';
import { withStoredDetail } from '../event-table/stored-detail.ts';
import {
  type ReadMessageStatus,
  withStatusesAtPublication,
} from './message-status-at-publication.ts';
import {
  type BusEntry,
  type BusEntryResult,
  type EventBus,
  type ItemKey,
  type MarkerState,
  markerId,
  type PublishLedger,
  type PublishMarker,
} from './ports.ts';

export interface PublishDeps {
  readonly bus: EventBus;
  /**
   * Where records that cannot be published are marked, and records published ahead of a retry.
   * Without one (tests of other parts), such a record is left to Lambda's retries.
   */
  readonly ledger?: PublishLedger;
  readonly source: string;
  /** Reads a message's status from its stored reports, for `data.messageStatus` of each report. */
  readonly messageStatus: ReadMessageStatus;
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
  /** A message's status could not be read: its report, and every record after it, come back. */
  readonly onStatusFailure?: (record: DynamoDBRecord, error: unknown) => void;
  /** The state table failed; what the publisher did about it is in the outcome. */
  readonly onLedgerFailure?: (operation: string, error: unknown) => void;
}

export const MAX_ENTRIES_PER_CALL = 10;
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;

const DetailTimeSchema = z.looseObject({ metadata: z.looseObject({ occurredAt: z.string() }) });

/** PutEvents calls of one invocation in flight at once (a batch of 100 records makes 10 at most). */
const PUT_EVENTS_CONCURRENCY = 10;
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
  /** Entries the bus accepted in this invocation. */
  readonly published: number;
  /** Records that cannot become an event. */
  readonly poison: number;
  /** Records durably marked for `msgbridge events republish` (poison ones included). */
  readonly markedUnpublished: number;
  /** Redelivered records skipped because a marker shows them settled. */
  readonly skipped: number;
  /** Records reported as batch item failures, for Lambda to deliver again. */
  readonly retried: number;
  /**
   * `metadata.id`s of events accepted in this invocation whose records Lambda will deliver again
   * while no marker could record them: each may reach the bus once more. Empty unless the state
   * table failed in the same invocation as PutEvents.
   */
  readonly unguarded: readonly string[];
}

type Unpublishable = { readonly reason: string };

/**
 * Publishes the event-table stream records of one invocation (INSERTs of items carrying an event)
 * so that each record's event reaches the bus once, whatever fails.
 *
 * Why it never simply fails the rest of the batch: Lambda retries a DynamoDB stream from the
 * lowest failed record, so every entry after it that the bus had accepted would go out again.
 *
 * Primary course: each record's new image becomes one entry, a delivery report's with its
 * message's status at publication (message-status-at-publication.ts: one read per distinct
 * msgKey); entries go out in order, at most 10 and at most `maxBatchBytes` per call; only the
 * failed entries are sent again, with backoff. The happy path reads one flag from the ledger and
 * writes nothing to it.
 * - A record that cannot become an entry (poison), or whose entry still fails after the attempts,
 *   is marked `unpublished` in the ledger and not reported as failed: nothing after it comes back,
 *   and `msgbridge events republish` publishes it from the table later.
 * - Only a record that could not be marked (the state table failing too) is reported as failed,
 *   with every later one. Every later record this invocation published is marked `published`, and
 *   a flag is raised that makes redeliveries (for 25 hours, the stream's retention) read the
 *   markers and skip settled records. Events a redelivery may still repeat, for want of a marker
 *   or of the flag, are returned as `unguarded`.
 * - A report whose message's status cannot be read is not published, nor is any record after it:
 *   they are reported as failed, and Lambda delivers them again (no event goes out saying less
 *   than its message's status, and none overtakes it).
 * - When the flag is up and the markers cannot be read, nothing is published and the whole batch
 *   is reported as failed: publishing blind could repeat events.
 */
export const publishRecords = async (
  records: readonly DynamoDBRecord[],
  deps: PublishDeps,
): Promise<PublishOutcome> => {
  const keys = records.map(itemKeyOf);
  const failFrom = (index: number, extra: Partial<PublishOutcome> = {}): PublishOutcome => ({
    response: {
      batchItemFailures: records
        .slice(index)
        .map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })),
    },
    published: 0,
    poison: 0,
    markedUnpublished: 0,
    skipped: 0,
    retried: records.length - index,
    unguarded: [],
    ...extra,
  });

  const { ledger } = deps;
  let settled: ReadonlyMap<string, MarkerState> = new Map();
  if (ledger) {
    try {
      if (await ledger.redeliveryExpected()) {
        settled = await ledger.find(keys.filter((key): key is ItemKey => key !== undefined));
      }
    } catch (error) {
      deps.onLedgerFailure?.('read', error);
      return failFrom(0);
    }
  }

  // Per record: 'skipped', 'published', or why it cannot be published (yet).
  const state: Array<'skipped' | 'published' | Unpublishable | undefined> = records.map(
    () => undefined,
  );
  const built: Array<{ index: number; entry: BusEntry; eventId: string }> = [];
  for (const [index, record] of records.entries()) {
    const key = keys[index];
    if (key && settled.has(markerId(key))) {
      state[index] = 'skipped';
      continue;
    }
    const entry = toEntry(record, deps.source, deps.maxBatchBytes);
    if ('reason' in entry) {
      state[index] = { reason: entry.reason };
      continue;
    }
    built.push({ index, ...entry });
  }

  // Reports say their message's status at publication; from the first one whose status cannot be
  // read, nothing is published and everything comes back (`end`).
  const statused = await withStatusesAtPublication(
    built.map((item) => item.entry),
    deps.messageStatus,
  );
  const unread = statused.findIndex((answer) => 'error' in answer);
  const end = unread === -1 ? records.length : (built[unread]?.index ?? records.length);
  const unreadAnswer = statused[unread];
  const unreadRecord = records[end];
  if (unreadAnswer && 'error' in unreadAnswer && unreadRecord)
    deps.onStatusFailure?.(unreadRecord, unreadAnswer.error);
  const entries = built.slice(0, unread === -1 ? built.length : unread).map((item, at) => {
    const answer = statused[at];
    return answer && 'entry' in answer ? { ...item, entry: answer.entry } : item;
  });
  for (let index = end; index < records.length; index++) state[index] = undefined;
  let poison = 0;
  for (const [index, s] of state.entries()) {
    const record = records[index];
    if (typeof s === 'object' && record) {
      deps.onPoison?.(record, s.reason);
      poison += 1;
    }
  }

  let published = 0;
  // The PutEvents calls of a batch go out together (each entry's outcome is its own; the bus
  // keeps no order between calls anyway), so a shard's records are published at the pace of the
  // slowest call, not of all of them in turn.
  await mapWithConcurrency(
    [...batches(entries, deps.maxBatchBytes)],
    PUT_EVENTS_CONCURRENCY,
    async (batch) => {
      const failed = await putWithRetries(batch, deps);
      for (const item of batch) {
        const failure = failed.get(item);
        state[item.index] = failure ? { reason: failure } : 'published';
        if (!failure) published += 1;
      }
    },
  );
  const eventIds = new Map(entries.map((item) => [item.index, item.eventId]));
  const counts = { published, poison, skipped: state.filter((s) => s === 'skipped').length };

  const unpublishable = state.flatMap((s, index) => (typeof s === 'object' ? [index] : []));
  const first = unpublishable[0];
  if (first === undefined) {
    return { ...failFrom(end), ...counts };
  }

  // Markers: `unpublished` for each record that could not be published, and `published` for each
  // later record this invocation published, in case one before it cannot be marked and Lambda
  // delivers them again. Only this failure path writes.
  let written: ReadonlySet<string> = new Set();
  if (ledger) {
    const markers: PublishMarker[] = state.flatMap((s, index): PublishMarker[] => {
      const key = keys[index];
      if (!key) return [];
      const eventId = eventIds.get(index);
      if (typeof s === 'object') {
        return [{ key, state: 'unpublished', reason: s.reason, ...(eventId ? { eventId } : {}) }];
      }
      return s === 'published' && index > first && eventId
        ? [{ key, state: 'published', eventId }]
        : [];
    });
    try {
      written = await ledger.write(markers);
    } catch (error) {
      deps.onLedgerFailure?.('write', error);
    }
  }
  const isWritten = (index: number): boolean => {
    const key = keys[index];
    return key !== undefined && written.has(markerId(key));
  };
  const markedUnpublished = unpublishable.filter(isWritten).length;
  const lowest = unpublishable.find((index) => !isWritten(index));
  if (lowest === undefined) {
    return { ...failFrom(end), ...counts, markedUnpublished };
  }

  // Records from `lowest` on come back. The flag makes the redelivery read their markers; raised
  // only now, so that failures the markers settle cost later invocations no reads.
  let flagged = false;
  if (ledger) {
    try {
      await ledger.expectRedelivery();
      flagged = true;
    } catch (error) {
      deps.onLedgerFailure?.('flag', error);
    }
  }
  // What a redelivery will put again: published records it cannot tell apart, and, without the
  // flag, marked ones too (they would go out then and again with `events republish`).
  const unguarded = state.flatMap((s, index) => {
    const eventId = eventIds.get(index);
    if (index <= lowest || eventId === undefined) return [];
    if (s === 'published' && (!flagged || !isWritten(index))) return [eventId];
    return typeof s === 'object' && !flagged && isWritten(index) ? [eventId] : [];
  });
  return { ...failFrom(lowest), ...counts, markedUnpublished, unguarded };
};

/** The item's key from the stream record, if it has one. */
const itemKeyOf = (record: DynamoDBRecord): ItemKey | undefined => {
  const pk = record.dynamodb?.Keys?.pk?.S;
  const sk = record.dynamodb?.Keys?.sk?.S;
  return pk !== undefined && sk !== undefined ? { pk, sk } : undefined;
};

const toEntry = (
  record: DynamoDBRecord,
  source: string,
  maxBytes: number,
): { entry: BusEntry; eventId: string } | { reason: string } => {
  const image = record.dynamodb?.NewImage;
  if (!image) return { reason: 'stream record has no new image' };
  return entryFromItem(
    unmarshall(image as Record<string, LambdaAttributeValue> as never),
    source,
    maxBytes,
  );
};

/**
 * The bus entry of a stored event item (its attributes as plain values), or why it has none.
 * The publisher and `msgbridge events republish` build entries the same way.
 */
export const entryFromItem = (
  item: Record<string, unknown>,
  source: string,
  maxBytes: number,
): { entry: BusEntry; eventId: string } | { reason: string } => {
  // A detail stored deflated (`detailZ`, stored-detail.ts) is read as text first.
  const parsed = publishedFieldsSchema().safeParse(withStoredDetail(item));
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
 * Sends a batch, then only its failed entries again, up to `maxAttempts`. Answers the entries
 * still failing, each with the reason of its last failure.
 */
const putWithRetries = async <T extends { entry: BusEntry; eventId: string }>(
  batch: readonly T[],
  deps: PublishDeps,
): Promise<Map<T, string>> => {
  let pending = [...batch];
  let lastFailures: Array<{ eventId: string; errorCode: string; errorMessage: string }> = [];
  const reasons = new Map<T, string>();
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
    reasons.clear();
    pending = pending.filter((item, index) => {
      const result = results[index];
      if (result?.ok) return false;
      const failure = {
        eventId: item.eventId,
        errorCode: result ? result.errorCode : 'MissingResult',
        errorMessage: result ? result.errorMessage : 'no result for this entry',
      };
      lastFailures.push(failure);
      reasons.set(
        item,
        `PutEvents failed ${attempt} times: ${failure.errorCode} ${failure.errorMessage}`,
      );
      return true;
    });
  }
  if (pending.length > 0) deps.onPublishFailure?.(lastFailures);
  return reasons;
};
