import { type Backoff, backoffDelay } from '../functions/commons/helpers/backoff.ts';
import type { StoredMarker } from '../functions/publishing/adapters/dynamodb-publish-ledger.ts';
import {
  type ReadMessageStatus,
  withStatusesAtPublication,
} from '../functions/publishing/message-status-at-publication.ts';
import {
  type BusEntry,
  type EventBus,
  type ItemKey,
  type MarkerState,
  markerId,
  type PublishMarker,
} from '../functions/publishing/ports.ts';
import {
  entryFromItem,
  entrySize,
  MAX_ENTRIES_PER_CALL,
  PUT_EVENTS_MAX_BYTES,
} from '../functions/publishing/publish.ts';

/*
 * `msgbridge events republish`: publishes, from the event table, the events `publish-events` could
 * not publish — the items it marked `unpublished` in the state table, and the stream records it
 * gave up on (the on-failure destination). Each is put with its stored detail, so with the same
 * `metadata.id` as the original would have had, a delivery report saying its message's status
 * at publication as `publish-events` reads it (message-status-at-publication.ts).
 *
 * Input: the ports below. Output: what was published, skipped and left, and why.
 * Primary course: plan (list markers and failed batches, look up which items are already on the
 * bus), then publish in calls of at most 10, mark each accepted item `published` (so a second run
 * skips it), and remove a failed batch only after every item it names is on the bus.
 */

/** One on-failure message: the stream records of one batch Lambda gave up on. */
export interface FailedBatch {
  /** Identifies the message to remove once settled. */
  readonly id: string;
  /** For people: shard and sequence range, or the record. */
  readonly description: string;
  /** The event items it names; absent when they can no longer be found (see `unavailable`). */
  readonly keys?: readonly ItemKey[];
  /** Why the items cannot be found (the stream keeps records 24 hours). */
  readonly unavailable?: string;
}

/** Where the publisher's failed batches are (the on-failure queue, or the local run's list). */
export interface PublishFailures {
  list(): Promise<FailedBatch[]>;
  /** Removes a batch whose items are all on the bus. */
  settle(batch: FailedBatch): Promise<void>;
}

/** The publisher's markers (the state table). */
export interface RepublishMarkers {
  listUnpublished(): Promise<StoredMarker[]>;
  find(keys: readonly ItemKey[]): Promise<ReadonlyMap<string, MarkerState>>;
  write(markers: readonly PublishMarker[]): Promise<ReadonlySet<string>>;
}

/** Reads one event-table item (attributes as plain values). */
export interface EventItems {
  get(key: ItemKey): Promise<Record<string, unknown> | undefined>;
}

export interface RepublishPorts {
  readonly failures: PublishFailures;
  readonly markers: RepublishMarkers;
  readonly items: EventItems;
  readonly bus: EventBus;
  /** The events' `source`, as the publisher puts them. */
  readonly source: string;
  /** A message's status from its stored reports, as `publish-events` reads it. */
  readonly messageStatus: ReadMessageStatus;
  /** Attempts per entry. @default 3 */
  readonly maxAttempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface RepublishPlan {
  /** Items to publish, each once, marked ones first. */
  readonly items: readonly { readonly key: ItemKey; readonly reason?: string }[];
  /** Items of failed batches whose marker says their event is already on the bus. */
  readonly alreadyPublished: number;
  readonly batches: readonly FailedBatch[];
  /** Batches whose items can no longer be found. */
  readonly unavailable: readonly FailedBatch[];
}

export interface RepublishResult {
  readonly published: number;
  readonly alreadyPublished: number;
  /** Items that could not be published, with the reason; they stay marked or in the queue. */
  readonly failed: { readonly key: ItemKey; readonly reason: string }[];
  /** Failed batches removed after all their items were on the bus. */
  readonly settled: number;
  readonly unavailable: readonly FailedBatch[];
  /** Published, but the `published` marker could not be written: a second run repeats them. */
  readonly unmarked: number;
}

/** Lists what there is to republish, without changing anything. */
export const planRepublish = async (ports: RepublishPorts): Promise<RepublishPlan> => {
  const marked = await ports.markers.listUnpublished();
  const listed = await ports.failures.list();
  const batches = listed.filter((batch) => batch.keys !== undefined);
  const fromBatches = batches.flatMap((batch) => batch.keys ?? []);
  const known = fromBatches.length > 0 ? await ports.markers.find(fromBatches) : new Map();
  const items = new Map<string, { key: ItemKey; reason?: string }>();
  for (const marker of marked) {
    items.set(markerId(marker.key), {
      key: marker.key,
      ...(marker.reason ? { reason: marker.reason } : {}),
    });
  }
  let alreadyPublished = 0;
  for (const key of fromBatches) {
    const id = markerId(key);
    if (items.has(id)) continue;
    if (known.get(id) === 'published') {
      alreadyPublished += 1;
      continue;
    }
    items.set(id, { key });
  }
  return {
    items: [...items.values()],
    alreadyPublished,
    batches,
    unavailable: listed.filter((batch) => batch.keys === undefined),
  };
};

/** Publishes the plan; `onProgress` gets the number of items handled so far. */
export const runRepublish = async (
  plan: RepublishPlan,
  ports: RepublishPorts,
  onProgress?: (done: number) => void,
): Promise<RepublishResult> => {
  const failed = new Map<string, { key: ItemKey; reason: string }>();
  const built: Array<{ key: ItemKey; entry: BusEntry; eventId: string }> = [];
  let done = 0;
  for (const { key } of plan.items) {
    const item = await ports.items.get(key);
    const entry = item
      ? entryFromItem(item, ports.source, PUT_EVENTS_MAX_BYTES)
      : { reason: 'the item is no longer in the event table (expired)' };
    if ('reason' in entry) {
      failed.set(markerId(key), { key, reason: entry.reason });
      onProgress?.(++done);
    } else built.push({ key, ...entry });
  }
  // Reports go out with their message's status now; one whose status cannot be read stays to
  // republish, never published saying less.
  const statused = await withStatusesAtPublication(
    built.map((item) => item.entry),
    ports.messageStatus,
  );
  const ready = built.flatMap((item, index) => {
    const answer = statused[index];
    if (answer && 'entry' in answer) return [{ ...item, entry: answer.entry }];
    const reason = `its message's status could not be read: ${(answer?.error as Error | undefined)?.message ?? 'no answer'}`;
    failed.set(markerId(item.key), { key: item.key, reason });
    onProgress?.(++done);
    return [];
  });

  let published = 0;
  let unmarked = 0;
  for (const group of groups(ready)) {
    const refused = await putAll(group, ports);
    const accepted = group.filter((item) => !refused.has(item));
    for (const [item, reason] of refused) {
      failed.set(markerId(item.key), { key: item.key, reason });
    }
    published += accepted.length;
    if (accepted.length > 0) {
      // A second run must not publish these again: their marker now says `published`.
      let written: ReadonlySet<string> = new Set();
      try {
        written = await ports.markers.write(
          accepted.map((item) => ({ key: item.key, state: 'published', eventId: item.eventId })),
        );
      } catch {
        // Counted below: the events are out, only the record of it is missing.
      }
      unmarked += accepted.filter((item) => !written.has(markerId(item.key))).length;
    }
    done += group.length;
    onProgress?.(done);
  }

  let settled = 0;
  for (const batch of plan.batches) {
    if ((batch.keys ?? []).some((key) => failed.has(markerId(key)))) continue;
    await ports.failures.settle(batch);
    settled += 1;
  }
  return {
    published,
    alreadyPublished: plan.alreadyPublished,
    failed: [...failed.values()],
    settled,
    unavailable: plan.unavailable,
    unmarked,
  };
};

/** Calls of at most 10 entries and the `PutEvents` size limit, in order. */
const groups = <T extends { entry: BusEntry }>(items: readonly T[]): T[][] => {
  const result: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = entrySize(item.entry);
    if (
      current.length === MAX_ENTRIES_PER_CALL ||
      (current.length > 0 && bytes + size > PUT_EVENTS_MAX_BYTES)
    ) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
};

/** The waits before a group's refused entries are put again: 200 ms, 400 ms, … */
const REPUBLISH_BACKOFF: Backoff = { firstMs: 200, maxMs: 2_000 };

/** Puts a group, then only its refused entries again; answers the ones still refused. */
const putAll = async <T extends { entry: BusEntry }>(
  group: readonly T[],
  ports: RepublishPorts,
): Promise<Map<T, string>> => {
  const attempts = ports.maxAttempts ?? 3;
  const sleep = ports.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  let pending = [...group];
  const refused = new Map<T, string>();
  for (let attempt = 1; attempt <= attempts && pending.length > 0; attempt += 1) {
    if (attempt > 1) await sleep(backoffDelay(REPUBLISH_BACKOFF, attempt - 1));
    refused.clear();
    try {
      const results = await ports.bus.putEvents(pending.map((item) => item.entry));
      pending = pending.filter((item, index) => {
        const result = results[index];
        if (result?.ok) return false;
        refused.set(
          item,
          result ? `${result.errorCode} ${result.errorMessage}` : 'PutEvents gave no result',
        );
        return true;
      });
    } catch (error) {
      for (const item of pending)
        refused.set(item, `PutEvents failed: ${(error as Error).message}`);
    }
  }
  return refused;
};
