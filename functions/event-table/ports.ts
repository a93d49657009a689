import type { EventRecord } from './event-record.ts';

/**
 * The ports of the event table and the payload bucket: what the receivers, the poller and the
 * other writers of events need from storage (adapters `dynamodb-event-store.ts` and
 * `s3-payload-store.ts`). Tests pass fakes.
 */

/** Where received items are stored: one conditional put per item. */
export interface EventStore {
  /**
   * Writes `record` unless an item with its keys exists. Answers `duplicate` when one does;
   * throws {@link ItemRejectedError} when the store refuses the item for good (no retry can make
   * it fit), and any other error when the write failed (the caller answers so that the gateway
   * redelivers).
   */
  putIfAbsent(record: EventRecord): Promise<'stored' | 'duplicate'>;
}

/** The store refused an item for a reason no retry changes (its size, a key too long). */
export class ItemRejectedError extends Error {
  override readonly name = 'ItemRejectedError';
}

/** An object written to the payload bucket. */
export interface StoredPayload {
  readonly bucket: string;
  readonly key: string;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * The claim check: where a body goes when an item or its event cannot carry it. Keys come from
 * the body's hash, so writing a key again writes the same bytes and a redelivery adds no object.
 */
export interface PayloadStore {
  /** Stores `body` (text as UTF-8, or bytes exactly) under `key`. */
  put(key: string, body: string | Uint8Array, contentType: string): Promise<StoredPayload>;
}
