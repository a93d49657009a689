import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseGatewayDateTime } from '../../protocol/kst.ts';
import { classifyCode } from '../commons/gateway/errors.ts';
// The two modules themselves, not the schemas' index: the index also holds the send schemas,
// whose CP949 rules would bring iconv-lite's tables into the receivers' bundles.
import { MoItemSchema } from '../commons/gateway/schemas/mo.ts';
import { ReportItemSchema } from '../commons/gateway/schemas/reports.ts';
import type { EventTypeName, FailureCategory, PayloadRef, Via } from '../events/catalogue.ts';
import { buildEventDetail } from '../events/envelope.ts';
import { type EventRecord, toEventRecord } from '../events/event-record.ts';
import {
  type EventStore,
  ItemRejectedError,
  type PayloadStore,
  type StoredPayload,
} from '../events/store-ports.ts';
import {
  cutToJsonBytes,
  DETAIL_BUDGET_BYTES,
  ITEM_BUDGET_BYTES,
  itemBytes,
  utf8Bytes,
} from './item-size.ts';

/** Where bodies are kept in the payload bucket: `payloads/<report|mo>/<SHA-256 of the body>`. */
export const PAYLOAD_KEY_PREFIX = 'payloads/';

/** A body had to go to the payload bucket, but the receiver was built without one. */
export class PayloadStoreMissingError extends Error {
  override readonly name = 'PayloadStoreMissingError';
}

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

export type WebhookKind = 'report' | 'mo';

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
/** Quarantined text an event carries, counted as JSON in UTF-8 (escapes included). */
const MAX_EVENT_TEXT = 64 * 1024;
const MAX_REASON_TEXT = 4 * 1024;
const MAX_TOP_LEVEL_KEYS_TEXT = 8 * 1024;

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

interface ItemContext {
  readonly kind: WebhookKind;
  readonly receivedAt: string;
  readonly via: Via;
  readonly bodySha256: string;
  readonly retentionDays: number;
  /** Writes the body to the payload bucket (once per body, however many items need it). */
  readonly claim: () => Promise<StoredPayload>;
}

/** An item or body that no event can carry, even with its large fields left out. */
class UnfitItemError extends Error {
  override readonly name = 'UnfitItemError';
}

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

/** Report fields an event may leave out, largest first, when even without `raw` it is too large. */
const REPORT_OMITTABLE = [
  'userCustomFields',
  'resultCodeDesc',
  'fallbackReasons',
  'phone',
  'telco',
  'productCode',
  'reportedAtKst',
] as const;
const MO_OMITTABLE = [
  'text',
  'title',
  'attachments',
  'sender',
  'receivingNumber',
  'type',
  'telco',
  'productCode',
  'receivedAtGatewayKst',
] as const;
// What `raw` keeps when it is left out: the keys, and for MO the attachment list
// `fetch-attachments` downloads from.
const REPORT_RAW_KEPT = ['msgKey', 'cliKey', 'resultCode', 'ch'] as const;
const MO_RAW_KEPT = ['moKey', 'contentCnt', 'contentInfoLst'] as const;

const reportRecord = async (
  context: ItemContext,
  item: unknown,
  index: number,
): Promise<EventRecord> => {
  const parsed = ReportItemSchema.safeParse(item);
  if (!parsed.success)
    return quarantineRecord(context, stringify(item), index, z.prettifyError(parsed.error));
  const report = parsed.data;
  const channel = report.ch ?? null;
  const idempotencyKey = `report:${report.msgKey}:${report.resultCode}:${channel ?? '-'}`;
  const reportedAt = report.rptDt ? (parseGatewayDateTime(report.rptDt) ?? null) : null;
  const delivered = report.resultCode === '10000';
  return fittedEventRecord(
    context,
    index,
    'deliveryReport',
    {
      pk: `REPORT#${report.msgKey}`,
      sk: `RESULT#${report.resultCode}#${channel ?? '-'}`,
      kind: 'report',
    },
    {
      idempotencyKey,
      occurredAt: reportedAt ?? context.receivedAt,
      receivedAt: context.receivedAt,
      via: context.via,
      data: {
        msgKey: report.msgKey,
        cliKey: report.cliKey,
        delivered,
        resultCode: report.resultCode,
        resultCodeDesc: report.resultCodeDesc ?? null,
        failureCategory: delivered ? null : failureCategory(report.resultCode),
        channel,
        fallbackReasons: report.fbReasonLst.map((reason) => ({
          channel: reason.ch ?? null,
          resultCode: reason.fbResultCode ?? null,
          resultDesc: reason.fbResultDesc ?? null,
          telco: reason.telco ?? null,
        })),
        telco: report.telco ?? null,
        productCode: report.productCode ?? null,
        reportedAt,
        reportedAtKst: report.rptDt ?? null,
        phone: report.phone ?? null,
        isBi: report.isBi ?? null,
        userCustomFields: report.userCustomFields ?? null,
        raw: item as Record<string, unknown>,
      },
    },
    { omittable: REPORT_OMITTABLE, rawKept: REPORT_RAW_KEPT },
  );
};

type EventInput<T extends EventTypeName> = Parameters<typeof buildEventDetail<T>>[1];

/**
 * The record of a report or MO item whose event fits the bus. When it would not, the body goes
 * to the payload bucket and the event carries `payloadRef` instead of `raw` (which keeps only the
 * keys); when even that is too large, the largest of `omittable` are left out one by one, each
 * named in `omitted`. An event that still does not fit throws {@link UnfitItemError}.
 */
const fittedEventRecord = async <T extends 'deliveryReport' | 'inboundMessage'>(
  context: ItemContext,
  index: number,
  type: T,
  keys: { readonly pk: string; readonly sk: string; readonly kind: EventRecord['kind'] },
  input: EventInput<T>,
  shrink: { readonly omittable: readonly string[]; readonly rawKept: readonly string[] },
): Promise<EventRecord> => {
  const whole = buildEventDetail(type, input);
  if (utf8Bytes(JSON.stringify(whole)) <= DETAIL_BUDGET_BYTES)
    return toEventRecord(keys, whole, context.retentionDays);

  const payloadRef: PayloadRef = { ...(await context.claim()), item: index };
  const full = input.data as Record<string, unknown>;
  const raw = (full.raw ?? {}) as Record<string, unknown>;
  let data: Record<string, unknown> = {
    ...full,
    raw: Object.fromEntries(
      shrink.rawKept.filter((name) => name in raw).map((name) => [name, raw[name]]),
    ),
    payloadRef,
    omitted: ['raw'],
  };
  for (;;) {
    const detail = buildEventDetail(type, { ...input, data } as EventInput<T>);
    if (utf8Bytes(JSON.stringify(detail)) <= DETAIL_BUDGET_BYTES)
      return { ...toEventRecord(keys, detail, context.retentionDays), payloadRef };
    const omitted = data.omitted as string[];
    const largest = shrink.omittable
      .filter((name) => !omitted.includes(name))
      .map((name) => ({ name, bytes: utf8Bytes(JSON.stringify(data[name]) ?? '') }))
      .sort((a, b) => b.bytes - a.bytes)[0];
    if (!largest || largest.bytes <= 4)
      throw new UnfitItemError(
        `the event exceeds ${DETAIL_BUDGET_BYTES} bytes even without its large fields`,
      );
    data = {
      ...data,
      [largest.name]: Array.isArray(data[largest.name]) ? [] : null,
      omitted: [...omitted, largest.name],
    };
  }
};
/**
 * How a failed delivery should be read. `32114` means "success uncertain, may still arrive within
 * 3 days"; codes the gateway documents as safe to retry are retryable; the rest are permanent.
 */
export const failureCategory = (resultCode: string): FailureCategory => {
  if (resultCode === '32114') return 'uncertain';
  const family = classifyCode(resultCode);
  return family === 'retryable' || family === 'rate-limited' ? 'retryable' : 'permanent';
};

const inboundRecord = async (
  context: ItemContext,
  item: unknown,
  index: number,
): Promise<EventRecord> => {
  const parsed = MoItemSchema.safeParse(item);
  if (!parsed.success)
    return quarantineRecord(context, stringify(item), index, z.prettifyError(parsed.error));
  const mo = parsed.data;
  const receivedAtGateway = mo.moRecvDt ? (parseGatewayDateTime(mo.moRecvDt) ?? null) : null;
  const record = await fittedEventRecord(
    context,
    index,
    'inboundMessage',
    { pk: `MO#${mo.moKey}`, sk: 'MO', kind: 'mo' },
    {
      idempotencyKey: `mo:${mo.moKey}`,
      occurredAt: receivedAtGateway ?? context.receivedAt,
      receivedAt: context.receivedAt,
      via: context.via,
      data: {
        moKey: mo.moKey,
        sender: mo.moCallback ?? null,
        receivingNumber: mo.moNumber ?? null,
        type: mo.moType ?? null,
        text: mo.moMsg ?? null,
        title: mo.moTitle ?? null,
        telco: mo.telco ?? null,
        productCode: mo.productCode ?? null,
        receivedAtGateway,
        receivedAtGatewayKst: mo.moRecvDt ?? null,
        attachmentCount: mo.contentCnt ?? mo.contentInfoLst.length,
        attachments: mo.contentInfoLst.map((content) => ({
          name: content.contentName ?? null,
          sizeBytes: content.contentSize ?? null,
          extension: content.contentExt ?? null,
        })),
        raw: item as Record<string, unknown>,
      },
    },
    { omittable: MO_OMITTABLE, rawKept: MO_RAW_KEPT },
  );
  // The list, not contentCnt (a string or a number, and sometimes wrong), says what there is to fetch.
  return mo.contentInfoLst.length > 0
    ? { ...record, attachmentCount: mo.contentInfoLst.length }
    : record;
};

/**
 * A quarantined item (`index`) or body (`null`): its text is kept whole in the item's `payload`,
 * or in the payload bucket when the item would be too large or the text could not be made
 * (`undefined`: an item nested too deeply to serialise; the body holds it at `index`).
 */
const quarantineRecord = async (
  context: ItemContext,
  raw: string | undefined,
  index: number | null,
  reason: string,
): Promise<EventRecord> => {
  const rawSha256 = sha256(raw ?? `${context.bodySha256}#${index ?? 'body'}`);
  const idempotencyKey = `quarantine:${context.kind}:${context.bodySha256}:${index ?? 'body'}:${rawSha256}`;
  const shown = cutToJsonBytes(raw ?? '', MAX_EVENT_TEXT);
  return withPayload(context, raw, index, (payloadRef) => ({
    ...toEventRecord(
      {
        pk: `QUARANTINE#${rawSha256}`,
        sk: `${context.kind}#${context.bodySha256}#${index ?? 'body'}`,
        kind: 'quarantine',
      },
      buildEventDetail('quarantinedItem', {
        idempotencyKey,
        occurredAt: context.receivedAt,
        receivedAt: context.receivedAt,
        via: context.via,
        data: {
          webhook: context.kind,
          reason: cutToJsonBytes(reason, MAX_REASON_TEXT),
          index,
          bodySha256: context.bodySha256,
          raw: shown,
          truncated: raw === undefined || shown.length < raw.length,
          ...(payloadRef ? { payloadRef } : {}),
        },
      }),
      context.retentionDays,
    ),
  }));
};

const unrecognisedRecord = async (
  context: ItemContext,
  text: string,
  value: unknown,
): Promise<EventRecord> => {
  const idempotencyKey = `unrecognised:${context.kind}:${context.bodySha256}`;
  const keys =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  // As many top-level keys as fit 8 KiB: a body with a million keys still makes an event.
  let budget = MAX_TOP_LEVEL_KEYS_TEXT;
  const topLevelKeys = keys.filter((key) => {
    budget -= utf8Bytes(JSON.stringify(key)) + 1;
    return budget >= 0;
  });
  const body = cutToJsonBytes(text, MAX_EVENT_TEXT);
  return withPayload(context, text, null, (payloadRef) =>
    toEventRecord(
      { pk: `UNRECOGNISED#${context.bodySha256}`, sk: context.kind, kind: 'unrecognised' },
      buildEventDetail('unrecognisedBody', {
        idempotencyKey,
        occurredAt: context.receivedAt,
        receivedAt: context.receivedAt,
        via: context.via,
        data: {
          webhook: context.kind,
          bodySha256: context.bodySha256,
          topLevelKeys,
          body,
          truncated: body.length < text.length,
          ...(payloadRef ? { payloadRef } : {}),
        },
      }),
      context.retentionDays,
    ),
  );
};

/**
 * The record with the whole text in its `payload` when the item stays within its budget;
 * otherwise (or without a text) the body goes to the payload bucket and the record and its event
 * carry `payloadRef` instead.
 */
const withPayload = async (
  context: ItemContext,
  text: string | undefined,
  index: number | null,
  build: (payloadRef: PayloadRef | undefined) => EventRecord,
): Promise<EventRecord> => {
  if (text !== undefined) {
    const inline = { ...build(undefined), payload: text };
    if (itemBytes(inline) <= ITEM_BUDGET_BYTES) return inline;
  }
  const payloadRef: PayloadRef = { ...(await context.claim()), item: index };
  return { ...build(payloadRef), payloadRef };
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

/** Runs `task` over `items` with at most `limit` in flight; results keep the input order. */
export const mapWithConcurrency = async <T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
};

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
};

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The JSON of an item, or `undefined` when it is nested too deeply to serialise. */
const stringify = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
};
