import * as z from 'zod';
import { mapWithConcurrency } from '../commons/helpers/map-with-concurrency.ts';
import type { Via, WebhookKindSchema } from '../events/catalogue.ts';
import type { EventRecord } from '../events/event-record.ts';
import { PAYLOAD_KEY_PREFIX, PayloadStoreMissingError } from '../events/payload-bucket.ts';
import {
  type EventStore,
  ItemRejectedError,
  type PayloadStore,
  type StoredPayload,
} from '../events/store-ports.ts';
import {
  type ItemContext,
  inboundRecord,
  quarantineRecord,
  reportRecord,
  sha256,
  stringify,
  UnfitItemError,
  unrecognisedRecord,
} from './item-records.ts';

/** What the receiving use cases need; handlers pass the real adapters, tests fakes. */
export interface ReceiveDeps {
  readonly store: EventStore;
  /**
   * The payload bucket, for bodies too large for an item or an event. Every deployed receiver
   * has one; without it such a body is answered "deliver again" until one is configured.
   */
  readonly payloads?: PayloadStore;
  readonly now: () => Date;
  /** Days an item stays in the event table (at least the gateway's redelivery window). */
  readonly retentionDays: number;
  /** Conditional puts in flight at once. */
  readonly concurrency: number;
  /** Told about every item that could not be stored, with its keys. */
  readonly onStoreFailure?: (record: EventRecord, error: unknown) => void;
}

/** Which webhook a body came to; the event catalogue's `webhook` field. */
export type WebhookKind = z.infer<typeof WebhookKindSchema>;

/**
 * What happened to one webhook body. `retry` means at least one write failed and the gateway must
 * deliver the body again (items already stored are recognised as duplicates then).
 */
export interface ReceiveOutcome {
  readonly result: 'stored' | 'empty' | 'retry';
  readonly stored: number;
  readonly duplicates: number;
  readonly quarantined: number;
  readonly unrecognised: number;
  readonly failed: number;
  /** Keys of the items written or found, for log correlation (`msgKey`s or `moKey`s). */
  readonly keys: readonly string[];
}

const LIST_FIELD: Record<WebhookKind, string> = { report: 'rptLst', mo: 'moLst' };

/**
 * Receives one report webhook body (spec 01 §6).
 *
 * Input: the raw body. Output: the outcome the handler maps to 200, 204 or 400.
 * Primary course: parse; store each valid report once; quarantine what does not parse. A body too
 * large for an item or an event goes to the payload bucket first (claim check).
 */
export const receiveReports = (
  body: string | null | undefined,
  deps: ReceiveDeps,
  via: Via = 'webhook',
) => receive('report', body, deps, via);

/** Receives one MO webhook body; the handler maps the outcome to code `10000` or a retry code. */
export const receiveInbound = (
  body: string | null | undefined,
  deps: ReceiveDeps,
  via: Via = 'webhook',
) => receive('mo', body, deps, via);

/** One item to store: how to build its record, and its quarantine if the store refuses it. */
interface Pending {
  readonly build: () => Promise<EventRecord>;
  readonly quarantine?: (reason: string) => Promise<EventRecord>;
}

const receive = async (
  kind: WebhookKind,
  body: string | null | undefined,
  deps: ReceiveDeps,
  via: Via,
): Promise<ReceiveOutcome> => {
  const receivedAt = deps.now().toISOString();
  const text = body ?? '';
  const bodySha256 = sha256(text);
  const parsed = parseJson(text);
  const context: ItemContext = {
    kind,
    receivedAt,
    via,
    bodySha256,
    retentionDays: deps.retentionDays,
    claim: claimCheck(kind, text, bodySha256, parsed.ok, deps.payloads),
  };

  if (!parsed.ok) {
    const reason = `body is not JSON: ${parsed.reason}`;
    return store([{ build: () => quarantineRecord(context, text, null, reason) }], deps, false);
  }
  const list = listOf(kind, parsed.value);
  if (list === undefined)
    return store([{ build: () => unrecognisedRecord(context, text, parsed.value) }], deps, false);
  if (list.length === 0) return { ...EMPTY, result: 'empty' };

  const pending = list.map((item, index): Pending => {
    const quarantine = (reason: string) =>
      quarantineRecord(context, stringify(item), index, reason);
    return {
      build: async () => {
        try {
          return kind === 'report'
            ? await reportRecord(context, item, index)
            : await inboundRecord(context, item, index);
        } catch (error) {
          // An item the gateway schema accepts but the published event contract does not (a
          // negative count, say), one no event can carry, or one nested too deeply to serialise
          // (RangeError) is kept, not dropped. A failed write to the payload bucket is ours and
          // transient: the body is asked for again.
          if (
            !(
              error instanceof z.ZodError ||
              error instanceof UnfitItemError ||
              error instanceof RangeError
            )
          )
            throw error;
          const reason = error instanceof z.ZodError ? z.prettifyError(error) : error.message;
          return quarantine(`event contract: ${reason}`);
        }
      },
      quarantine,
    };
  });
  return store(pending, deps, true);
};

const EMPTY: ReceiveOutcome = {
  result: 'stored',
  stored: 0,
  duplicates: 0,
  quarantined: 0,
  unrecognised: 0,
  failed: 0,
  keys: [],
};

/**
 * The body's claim check, written at most once and only when some item needs it. The key is the
 * body's hash: a redelivered body overwrites its own object with the same bytes.
 */
const claimCheck = (
  kind: WebhookKind,
  text: string,
  bodySha256: string,
  json: boolean,
  payloads: PayloadStore | undefined,
): (() => Promise<StoredPayload>) => {
  let written: Promise<StoredPayload> | undefined;
  return () => {
    if (!payloads)
      return Promise.reject(
        new PayloadStoreMissingError('a body needs the payload bucket, and none is configured'),
      );
    written ??= payloads.put(
      `${PAYLOAD_KEY_PREFIX}${kind}/${bodySha256}`,
      text,
      json ? 'application/json' : 'text/plain; charset=utf-8',
    );
    return written;
  };
};

/** The list of a recognised body, `[]` for a `null` list, or `undefined` for another shape. */
const listOf = (kind: WebhookKind, value: unknown): unknown[] | undefined => {
  const shape = z.looseObject({ [LIST_FIELD[kind]]: z.array(z.unknown()).nullable() });
  const parsed = shape.safeParse(value);
  if (!parsed.success) return undefined;
  return (parsed.data[LIST_FIELD[kind]] as unknown[] | null) ?? [];
};

/** Stores every item with bounded parallelism; the outcome is known only when all settled. */
const store = async (
  pending: readonly Pending[],
  deps: ReceiveDeps,
  listed: boolean,
): Promise<ReceiveOutcome> => {
  const results = await mapWithConcurrency(pending, deps.concurrency, (item) =>
    storeOne(item, deps),
  );
  const count = (result: string, kinds: readonly (EventRecord['kind'] | undefined)[]) =>
    results.filter((r) => r.result === result && kinds.includes(r.kind)).length;
  const failed = results.filter((r) => r.result === 'failed').length;
  const eventKinds = ['report', 'mo'] as const;
  return {
    result: failed > 0 ? 'retry' : 'stored',
    stored: count('stored', eventKinds),
    duplicates: count('duplicate', eventKinds),
    quarantined: results.filter((r) => r.result !== 'failed' && r.kind === 'quarantine').length,
    unrecognised: results.filter((r) => r.result !== 'failed' && r.kind === 'unrecognised').length,
    failed,
    keys: listed
      ? results.flatMap((r) =>
          r.pk !== undefined && (r.kind === 'report' || r.kind === 'mo')
            ? [r.pk.split('#')[1] ?? r.pk]
            : [],
        )
      : [],
  };
};

interface Stored {
  readonly result: 'stored' | 'duplicate' | 'failed';
  /** Unknown when the record could not be built. */
  readonly kind: EventRecord['kind'] | undefined;
  readonly pk?: string;
}

/**
 * Builds and writes one item. A refusal for good (the store's size or key limits) quarantines
 * the item, so it is never answered "deliver again" forever; any other failure is transient.
 */
const storeOne = async (item: Pending, deps: ReceiveDeps): Promise<Stored> => {
  let record: EventRecord | undefined;
  try {
    record = await item.build();
    return { result: await deps.store.putIfAbsent(record), kind: record.kind, pk: record.pk };
  } catch (error) {
    if (error instanceof ItemRejectedError && record && item.quarantine) {
      const rejected = record;
      try {
        const quarantined = await item.quarantine(
          `the event table refused the ${rejected.kind} item: ${error.message}`,
        );
        return { result: await deps.store.putIfAbsent(quarantined), kind: quarantined.kind };
      } catch (quarantineError) {
        deps.onStoreFailure?.(rejected, quarantineError);
        return { result: 'failed', kind: rejected.kind };
      }
    }
    if (record) deps.onStoreFailure?.(record, error);
    return { result: 'failed', kind: record?.kind };
  }
};

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
};
