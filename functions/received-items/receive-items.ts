// From zod's core by name: `z.core.$ZodError` would make the bundle keep all of `z.core`, every
// locale with it (docs/performance.md, "Every schema in `zod/mini`").
import { $ZodError } from 'zod/v4/core';
import * as z from '../../gateway/schemas/zod.ts';
import type { Via, WebhookKindSchema } from '../catalogue/catalogue.ts';
import { mapWithConcurrency } from '../commons/helpers/map-with-concurrency.ts';
import type { EventRecord } from '../event-table/event-record.ts';
import { PAYLOAD_KEY_PREFIX, PayloadStoreMissingError } from '../event-table/payload-bucket.ts';
import {
  type EventStore,
  ItemRejectedError,
  type PayloadStore,
  type StoredPayload,
} from '../event-table/ports.ts';
import { type BodyLayout, bodyLayout } from './body-layout.ts';
import { type ItemContext, sha256, stringify } from './item-context.ts';
import {
  inboundRecord,
  quarantineRecord,
  reportRecord,
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
 * A webhook body: text as the front door passed it, or the bytes exactly as they arrived (the
 * handler passes bytes, so that a body that is not UTF-8 is kept as it came).
 */
export type WebhookBody = string | Uint8Array | null | undefined;

/**
 * Receives one report webhook body (spec 01 §6).
 *
 * Input: the raw body. Output: the outcome the handler maps to 200, 204 or 400.
 * Primary course: parse; store each valid report once; quarantine what does not parse. A body too
 * large for an item or an event goes to the payload bucket first (claim check).
 */
export const receiveReports = (body: WebhookBody, deps: ReceiveDeps, via: Via = 'webhook') =>
  receive('report', body, deps, via);

/** Receives one MO webhook body; the handler maps the outcome to code `10000` or a retry code. */
export const receiveInbound = (body: WebhookBody, deps: ReceiveDeps, via: Via = 'webhook') =>
  receive('mo', body, deps, via);

/** One item to store: how to build its record, and its quarantine if the store refuses it. */
interface Pending {
  readonly build: () => Promise<EventRecord>;
  readonly quarantine?: (reason: string) => Promise<EventRecord>;
}

// `ignoreBOM` keeps a byte-order mark in the text, so the text kept is the text that came.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as it came, as text (`received`, `undefined` when the bytes are not UTF-8) and as
 * bytes; and the text to parse, without the UTF-8 byte-order mark some HTTP clients write first
 * (a JSON text has none).
 */
const readBody = (
  body: WebhookBody,
): { received: string | undefined; text: string | undefined; bytes: Uint8Array } => {
  let received: string | undefined;
  let bytes: Uint8Array;
  if (typeof body === 'string') {
    received = body;
    bytes = Buffer.from(body, 'utf8');
  } else {
    bytes = body ?? new Uint8Array();
    try {
      received = UTF8.decode(bytes);
    } catch {
      received = undefined;
    }
  }
  const text = received?.startsWith('\ufeff') ? received.slice(1) : received;
  return { received, text, bytes };
};

const receive = async (
  kind: WebhookKind,
  body: WebhookBody,
  deps: ReceiveDeps,
  via: Via,
): Promise<ReceiveOutcome> => {
  const receivedAt = deps.now().toISOString();
  const { received, text, bytes } = readBody(body);
  const bodySha256 = sha256(bytes);
  const parsed = text === undefined ? undefined : parseJson(text);
  const contentType =
    parsed?.ok === true
      ? 'application/json'
      : text === undefined
        ? 'application/octet-stream'
        : 'text/plain; charset=utf-8';
  const context: ItemContext = {
    kind,
    receivedAt,
    via,
    bodySha256,
    retentionDays: deps.retentionDays,
    claim: claimCheck(kind, bytes, bodySha256, contentType, deps.payloads),
  };

  if (received === undefined || text === undefined || parsed === undefined) {
    // The bytes are kept exactly, in the payload bucket: no text can hold them.
    const reason = 'body is not UTF-8 text';
    return store(
      [{ build: () => quarantineRecord(context, undefined, null, reason) }],
      deps,
      false,
    );
  }
  if (!parsed.ok) {
    const reason = `body is not JSON: ${parsed.reason}`;
    return store([{ build: () => quarantineRecord(context, received, null, reason) }], deps, false);
  }
  const list = listOf(kind, parsed.value);
  if (list === undefined)
    return store(
      [{ build: () => unrecognisedRecord(context, received, parsed.value) }],
      deps,
      false,
    );

  // What of the body no item's event will carry: the whole body is kept, with the reasons.
  const layout = bodyLayout(text);
  const listMember = layout?.members.findLast((member) => member.key === LIST_FIELD[kind]);
  const problems = bodyProblems(kind, parsed.value as Record<string, unknown>, list, layout);
  const whole: Pending[] =
    problems.length === 0
      ? []
      : [{ build: () => quarantineRecord(context, received, null, problems.join('; ')) }];
  if (list.length === 0) {
    if (whole.length === 0) return { ...EMPTY, result: 'empty' };
    const outcome = await store(whole, deps, false);
    return outcome.result === 'retry' ? outcome : { ...outcome, result: 'empty' };
  }

  const pending = list.map((item, index): Pending => {
    const span = listMember?.elements?.[index];
    // The item as it was sent, not as JSON.stringify would write it again.
    const itemText = span === undefined ? stringify(item) : text.slice(span.start, span.end);
    const quarantine = (reason: string) => quarantineRecord(context, itemText, index, reason);
    const repeated = span?.repeatedKeys ?? [];
    if (repeated.length > 0)
      return {
        build: () =>
          quarantine(
            `the item repeats ${repeated.map((path) => `"${path}"`).join(', ')}: which value is meant is not known`,
          ),
      };
    return {
      build: async () => {
        try {
          return kind === 'report'
            ? await reportRecord(context, item, index, itemText)
            : await inboundRecord(context, item, index, itemText);
        } catch (error) {
          // An item the gateway schema accepts but the published event contract does not (a
          // negative count, say), one no event can carry, or one nested too deeply to serialise
          // (RangeError) is kept, not dropped. A failed write to the payload bucket is ours and
          // transient: the body is asked for again.
          if (
            !(
              error instanceof $ZodError ||
              error instanceof UnfitItemError ||
              error instanceof RangeError
            )
          )
            throw error;
          const reason = error instanceof $ZodError ? z.prettifyError(error) : error.message;
          return quarantine(`event contract: ${reason}`);
        }
      },
      quarantine,
    };
  });
  const outcome = await store([...pending, ...whole], deps, true);
  return outcome;
};

/**
 * Keeps a body the receiver cannot read at all (an encoding it does not decode) exactly as it
 * came, as one quarantined body: its bytes go to the payload bucket.
 */
export const keepUnreadableBody = (
  kind: WebhookKind,
  body: WebhookBody,
  reason: string,
  deps: ReceiveDeps,
  via: Via = 'webhook',
): Promise<ReceiveOutcome> => {
  const { bytes } = readBody(body);
  const bodySha256 = sha256(bytes);
  const context: ItemContext = {
    kind,
    receivedAt: deps.now().toISOString(),
    via,
    bodySha256,
    retentionDays: deps.retentionDays,
    claim: claimCheck(kind, bytes, bodySha256, 'application/octet-stream', deps.payloads),
  };
  return store([{ build: () => quarantineRecord(context, undefined, null, reason) }], deps, false);
};

const COUNT_FIELD: Record<WebhookKind, string> = { report: 'rptCnt', mo: 'moCnt' };

/**
 * Why parts of a recognised body would not reach any event: a key the body repeats (JSON.parse
 * keeps the last value only), a count that disagrees with the list, a top-level field other than
 * the count and the list that holds something.
 */
const bodyProblems = (
  kind: WebhookKind,
  value: Record<string, unknown>,
  list: readonly unknown[],
  layout: BodyLayout | undefined,
): string[] => {
  const problems: string[] = [];
  const repeated = [...new Set(layout?.repeatedKeys ?? [])];
  if (repeated.length > 0)
    problems.push(
      `the body repeats ${repeated.map((key) => `"${key}"`).join(', ')}: only the last of each was read`,
    );
  const count = value[COUNT_FIELD[kind]];
  if (count !== undefined && count !== null) {
    const number = typeof count === 'string' && /^\d+$/.test(count) ? Number(count) : count;
    if (number !== list.length)
      problems.push(
        `${COUNT_FIELD[kind]} says ${JSON.stringify(count)} but ${LIST_FIELD[kind]} has ${list.length} items`,
      );
  }
  const extra = Object.keys(value).filter(
    (key) => key !== COUNT_FIELD[kind] && key !== LIST_FIELD[kind] && value[key] !== null,
  );
  if (extra.length > 0)
    problems.push(
      `the body has ${extra.map((key) => `"${key}"`).join(', ')} beside ${LIST_FIELD[kind]}, which no event carries`,
    );
  return problems;
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
  bytes: Uint8Array,
  bodySha256: string,
  contentType: string,
  payloads: PayloadStore | undefined,
): (() => Promise<StoredPayload>) => {
  let written: Promise<StoredPayload> | undefined;
  return () => {
    if (!payloads)
      return Promise.reject(
        new PayloadStoreMissingError('a body needs the payload bucket, and none is configured'),
      );
    written ??= payloads.put(`${PAYLOAD_KEY_PREFIX}${kind}/${bodySha256}`, bytes, contentType);
    return written;
  };
};

/** The list of a recognised body, `[]` for a `null` list, or `undefined` for another shape. */
const listOf = (kind: WebhookKind, value: unknown): unknown[] | undefined => {
  const shape = z.looseObject({ [LIST_FIELD[kind]]: z.nullable(z.array(z.unknown())) });
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
