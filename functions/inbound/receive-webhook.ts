import { createHash } from 'node:crypto';
import { z } from 'zod';
import { classifyCode } from '../commons/gateway/errors.ts';
// The two modules themselves, not the schemas' index: the index also holds the send schemas,
// whose CP949 rules would bring iconv-lite's tables into the receivers' bundles.
import { MoItemSchema } from '../commons/gateway/schemas/mo.ts';
import { ReportItemSchema } from '../commons/gateway/schemas/reports.ts';
import { parseGatewayDateTime } from '../commons/helpers/kst.ts';
import type { FailureCategory, Via } from '../events/catalogue.ts';
import { buildEventDetail } from '../events/envelope.ts';
import { type EventRecord, toEventRecord } from './event-record.ts';

/** Where received items are stored: one conditional put per item. */
export interface EventStore {
  /**
   * Writes `record` unless an item with its keys exists. Answers `duplicate` when one does;
   * throws when the write failed (the caller answers so that the gateway redelivers).
   */
  putIfAbsent(record: EventRecord): Promise<'stored' | 'duplicate'>;
}

/** What the receiving use cases need; handlers pass the real adapters, tests fakes. */
export interface ReceiveDeps {
  readonly store: EventStore;
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
const MAX_EVENT_TEXT = 64 * 1024;

/**
 * Receives one report webhook body (spec 01 §6).
 *
 * Input: the raw body. Output: the outcome the handler maps to 200, 204 or 400.
 * Primary course: parse; store each valid report once; quarantine what does not parse.
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

const receive = async (
  kind: WebhookKind,
  body: string | null | undefined,
  deps: ReceiveDeps,
  via: Via,
): Promise<ReceiveOutcome> => {
  const receivedAt = deps.now().toISOString();
  const text = body ?? '';
  const bodySha256 = sha256(text);
  const context: ItemContext = {
    kind,
    receivedAt,
    via,
    bodySha256,
    retentionDays: deps.retentionDays,
  };

  const parsed = parseJson(text);
  if (!parsed.ok) {
    return store(
      [quarantineRecord(context, text, null, `body is not JSON: ${parsed.reason}`)],
      deps,
      false,
    );
  }
  const list = listOf(kind, parsed.value);
  if (list === undefined)
    return store([unrecognisedRecord(context, text, parsed.value)], deps, false);
  if (list.length === 0) return { ...EMPTY, result: 'empty' };

  const records = list.map((item, index) => {
    try {
      return kind === 'report'
        ? reportRecord(context, item, index)
        : inboundRecord(context, item, index);
    } catch (error) {
      // An item the gateway schema accepts but the published event contract does not (a
      // negative count, say) is kept, not dropped.
      const reason = error instanceof z.ZodError ? z.prettifyError(error) : String(error);
      return quarantineRecord(context, JSON.stringify(item), index, `event contract: ${reason}`);
    }
  });
  return store(records, deps, true);
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
}

/** The list of a recognised body, `[]` for a `null` list, or `undefined` for another shape. */
const listOf = (kind: WebhookKind, value: unknown): unknown[] | undefined => {
  const shape = z.looseObject({ [LIST_FIELD[kind]]: z.array(z.unknown()).nullable() });
  const parsed = shape.safeParse(value);
  if (!parsed.success) return undefined;
  return (parsed.data[LIST_FIELD[kind]] as unknown[] | null) ?? [];
};

const reportRecord = (context: ItemContext, item: unknown, index: number): EventRecord => {
  const parsed = ReportItemSchema.safeParse(item);
  if (!parsed.success)
    return quarantineRecord(context, JSON.stringify(item), index, z.prettifyError(parsed.error));
  const report = parsed.data;
  const channel = report.ch ?? null;
  const idempotencyKey = `report:${report.msgKey}:${report.resultCode}:${channel ?? '-'}`;
  const reportedAt = report.rptDt ? (parseGatewayDateTime(report.rptDt) ?? null) : null;
  const delivered = report.resultCode === '10000';
  const detail = buildEventDetail('deliveryReport', {
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
  });
  return toEventRecord(
    {
      pk: `REPORT#${report.msgKey}`,
      sk: `RESULT#${report.resultCode}#${channel ?? '-'}`,
      kind: 'report',
    },
    detail,
    context.retentionDays,
  );
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

const inboundRecord = (context: ItemContext, item: unknown, index: number): EventRecord => {
  const parsed = MoItemSchema.safeParse(item);
  if (!parsed.success)
    return quarantineRecord(context, JSON.stringify(item), index, z.prettifyError(parsed.error));
  const mo = parsed.data;
  const receivedAtGateway = mo.moRecvDt ? (parseGatewayDateTime(mo.moRecvDt) ?? null) : null;
  const idempotencyKey = `mo:${mo.moKey}`;
  const detail = buildEventDetail('inboundMessage', {
    idempotencyKey,
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
  });
  const record = toEventRecord(
    { pk: `MO#${mo.moKey}`, sk: 'MO', kind: 'mo' },
    detail,
    context.retentionDays,
  );
  // The list, not contentCnt (a string or a number, and sometimes wrong), says what there is to fetch.
  return mo.contentInfoLst.length > 0
    ? { ...record, attachmentCount: mo.contentInfoLst.length }
    : record;
};

const quarantineRecord = (
  context: ItemContext,
  raw: string,
  index: number | null,
  reason: string,
): EventRecord => {
  const rawSha256 = sha256(raw);
  const idempotencyKey = `quarantine:${context.kind}:${context.bodySha256}:${index ?? 'body'}:${rawSha256}`;
  const detail = buildEventDetail('quarantinedItem', {
    idempotencyKey,
    occurredAt: context.receivedAt,
    receivedAt: context.receivedAt,
    via: context.via,
    data: {
      webhook: context.kind,
      reason,
      index,
      bodySha256: context.bodySha256,
      raw: cut(raw),
      truncated: raw.length > MAX_EVENT_TEXT,
    },
  });
  return {
    ...toEventRecord(
      {
        pk: `QUARANTINE#${rawSha256}`,
        sk: `${context.kind}#${context.bodySha256}#${index ?? 'body'}`,
        kind: 'quarantine',
      },
      detail,
      context.retentionDays,
    ),
    payload: raw,
  };
};

const unrecognisedRecord = (context: ItemContext, text: string, value: unknown): EventRecord => {
  const idempotencyKey = `unrecognised:${context.kind}:${context.bodySha256}`;
  const topLevelKeys =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const detail = buildEventDetail('unrecognisedBody', {
    idempotencyKey,
    occurredAt: context.receivedAt,
    receivedAt: context.receivedAt,
    via: context.via,
    data: {
      webhook: context.kind,
      bodySha256: context.bodySha256,
      topLevelKeys,
      body: cut(text),
      truncated: text.length > MAX_EVENT_TEXT,
    },
  });
  return {
    ...toEventRecord(
      { pk: `UNRECOGNISED#${context.bodySha256}`, sk: context.kind, kind: 'unrecognised' },
      detail,
      context.retentionDays,
    ),
    payload: text,
  };
};

/** Stores every record with bounded parallelism; the outcome is known only when all settled. */
const store = async (
  records: readonly EventRecord[],
  deps: ReceiveDeps,
  listed: boolean,
): Promise<ReceiveOutcome> => {
  const results = await mapWithConcurrency(records, deps.concurrency, async (record) => {
    try {
      return await deps.store.putIfAbsent(record);
    } catch (error) {
      deps.onStoreFailure?.(record, error);
      return 'failed' as const;
    }
  });
  const count = (kind: EventRecord['kind'], result: string) =>
    records.filter((record, index) => record.kind === kind && results[index] === result).length;
  const failed = results.filter((result) => result === 'failed').length;
  const eventKinds = ['report', 'mo'] as const;
  return {
    result: failed > 0 ? 'retry' : 'stored',
    stored: eventKinds.reduce((sum, kind) => sum + count(kind, 'stored'), 0),
    duplicates: eventKinds.reduce((sum, kind) => sum + count(kind, 'duplicate'), 0),
    quarantined: records.filter((record) => record.kind === 'quarantine').length,
    unrecognised: records.filter((record) => record.kind === 'unrecognised').length,
    failed,
    keys: listed
      ? records
          .filter((r) => r.kind === 'report' || r.kind === 'mo')
          .map((r) => r.pk.split('#')[1] ?? r.pk)
      : [],
  };
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

const cut = (text: string): string =>
  text.length > MAX_EVENT_TEXT ? text.slice(0, MAX_EVENT_TEXT) : text;
