import { createHash } from 'node:crypto';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import {
  ItemRejectedError,
  type PayloadStore,
  type StoredPayload,
} from '../../functions/event-table/ports.ts';
import { FakeEventStore } from './fake-event-store.ts';

/** DynamoDB's documented limits (Developer Guide, "Service, account, and table quotas"). */
export const DYNAMODB_ITEM_LIMIT = 400 * 1024;
const PARTITION_KEY_LIMIT = 2048;
const SORT_KEY_LIMIT = 1024;

/**
 * Item size as DynamoDB documents it, written from the documentation and not from the code under
 * test: UTF-8 bytes of every attribute name and string value, numbers at their worst case
 * (21 bytes), booleans and nulls 1 byte, lists and maps 3 bytes plus 1 byte per element.
 */
export const documentedItemSize = (value: unknown): number => {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return 21;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value))
    return 3 + value.reduce<number>((sum, element) => sum + 1 + documentedItemSize(element), 0);
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value as Record<string, unknown>)
        .filter(([, inner]) => inner !== undefined)
        .reduce(
          (sum, [name, inner]) => sum + 1 + Buffer.byteLength(name) + documentedItemSize(inner),
          0,
        )
    );
  return 0;
};

// What the port promises for DynamoDB's ValidationException: a refusal for good.
const validationError = (message: string) =>
  new ItemRejectedError(message, {
    cause: Object.assign(new Error(message), { name: 'ValidationException' }),
  });

/**
 * The in-memory event table, refusing what DynamoDB refuses: items over 400 KB and keys over their
 * limits, as the port says the adapter does for DynamoDB's `ValidationException`.
 */
export class LimitedEventStore extends FakeEventStore {
  override async putIfAbsent(record: EventRecord): Promise<'stored' | 'duplicate'> {
    const top = Object.entries(record).filter(([, value]) => value !== undefined);
    const size = top.reduce(
      (sum, [name, value]) => sum + Buffer.byteLength(name) + documentedItemSize(value),
      0,
    );
    if (size > DYNAMODB_ITEM_LIMIT)
      throw validationError('Item size has exceeded the maximum allowed size');
    if (Buffer.byteLength(record.pk) > PARTITION_KEY_LIMIT)
      throw validationError(
        'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes',
      );
    if (Buffer.byteLength(record.sk) > SORT_KEY_LIMIT)
      throw validationError(
        'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
      );
    return super.putIfAbsent(record);
  }
}

/** An in-memory bucket: the bytes of every object, and how many writes it saw. */
export class MemoryPayloadStore implements PayloadStore {
  readonly objects = new Map<string, Buffer>();
  writes = 0;
  private failures = 0;

  constructor(readonly bucket = 'payload-bucket') {}

  failNext(count: number): void {
    this.failures += count;
  }

  async put(key: string, body: string | Uint8Array): Promise<StoredPayload> {
    this.writes += 1;
    await Promise.resolve();
    if (this.failures > 0) {
      this.failures -= 1;
      throw Object.assign(new Error('We encountered an internal error. Please try again.'), {
        name: 'InternalError',
      });
    }
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
    this.objects.set(key, bytes);
    return {
      bucket: this.bucket,
      key,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
  }
}
