/**
 * The ports of `publish-events`: the event bus and the publish ledger (adapters
 * `adapters/eventbridge-bus.ts` and `adapters/dynamodb-publish-ledger.ts`). Tests pass fakes.
 */

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

/** The keys of an event-table item, as a stream record names them. */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/**
 * How a stream record was settled outside the bus: `unpublished` — its event could not be put and
 * waits for `msgbridge events republish`; `published` — its event is on the bus although Lambda
 * will deliver the record again.
 */
export type MarkerState = 'published' | 'unpublished';

export interface PublishMarker {
  readonly key: ItemKey;
  readonly state: MarkerState;
  readonly eventId?: string;
  /** Why the event is not on the bus (an `unpublished` marker). */
  readonly reason?: string;
}

/** One string per item key, the identity of a marker. */
export const markerId = (key: ItemKey): string => JSON.stringify([key.pk, key.sk]);

/**
 * The publisher's durable memory (the state table). Only the failure path writes to it; the
 * happy path reads one flag per invocation.
 */
export interface PublishLedger {
  /** Whether an invocation recently left records to Lambda's retries (so some may be settled). */
  redeliveryExpected(): Promise<boolean>;
  /** Raises that flag for as long as the stream keeps records (24 hours, and an hour more). */
  expectRedelivery(): Promise<void>;
  /** The markers of these items, by {@link markerId}. */
  find(keys: readonly ItemKey[]): Promise<ReadonlyMap<string, MarkerState>>;
  /** Writes markers; answers the {@link markerId}s written (a batch write may leave some out). */
  write(markers: readonly PublishMarker[]): Promise<ReadonlySet<string>>;
}
