import { classifyCode } from '../../gateway/errors.ts';
import * as z from '../../gateway/schemas/zod.ts';
import { parseGatewayDateTime } from '../../protocol/kst.ts';
import {
  deliveryReport,
  type FailureCategory,
  inboundMessage,
  type PayloadRef,
} from '../catalogue/catalogue.ts';
import { buildEventDetail, type EventInput } from '../catalogue/envelope.ts';
import { reportedStatus } from '../catalogue/message-status.ts';
import { lazily } from '../commons/helpers/lazily.ts';
import { eventKeys, idempotencyKeys, SORT_KEY } from '../commons/table-keys.ts';
import { type EventRecord, toEventRecord } from '../event-table/event-record.ts';
import { DETAIL_BUDGET_BYTES, utf8Bytes } from '../event-table/item-size.ts';
import { envelopeFields, type ItemContext, stringify } from './item-context.ts';

/**
 * The event-table record of each received item: a delivery report, an MO message, a quarantined
 * item or an unrecognised body, each with an event that fits the bus (the body goes to the payload
 * bucket, the claim check, when it would not). The receive use case (`receive-items.ts`) decides
 * which record an item gets and stores it.
 */

/** An item or body that no event can carry, even with its large fields left out. */
export class UnfitItemError extends Error {
  override readonly name = 'UnfitItemError';
}

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

/**
 * The record of one item of a body: `build` gets the item as `schema` reads it; an item the schema
 * refuses is quarantined with the reasons. `schema` is loaded by the first item that needs it.
 */
const parsedItemRecord =
  <S extends z.ZodMiniType>(
    schema: () => Promise<S>,
    build: (
      context: ItemContext,
      parsed: z.output<S>,
      item: unknown,
      index: number,
    ) => Promise<EventRecord>,
  ) =>
  async (
    context: ItemContext,
    item: unknown,
    index: number,
    text?: string,
  ): Promise<EventRecord> => {
    const parsed = (await schema()).safeParse(item);
    return parsed.success
      ? build(context, parsed.data, item, index)
      : quarantineRecord(context, text ?? stringify(item), index, z.prettifyError(parsed.error));
  };

/*
 * Each kind's item schema is its own module, imported by the first item of that kind: a receiver
 * builds only the schema of the webhook it serves, and none at start (the bundler puts each in a
 * file read on first use; docs/performance.md, `cold-start`). The modules themselves, not the
 * schemas' index or `reports.ts`, which also build the send, poll and status-query schemas.
 */
const reportItemSchema = lazily(() =>
  import('../../gateway/schemas/report-items.ts').then((module) => module.ReportItemSchema),
);
const moItemSchema = lazily(() =>
  import('../../gateway/schemas/mo.ts').then((module) => module.MoItemSchema),
);

export const reportRecord = parsedItemRecord(
  reportItemSchema,
  async (context, report, item, index) => {
    const channel = report.ch ?? null;
    const idempotencyKey = idempotencyKeys.report(report.msgKey, report.resultCode, channel);
    const reportedAt = report.rptDt ? (parseGatewayDateTime(report.rptDt) ?? null) : null;
    const delivered = report.resultCode === '10000';
    return fittedEventRecord(
      context,
      index,
      deliveryReport,
      {
        pk: eventKeys.report(report.msgKey),
        sk: eventKeys.result(report.resultCode, channel),
        kind: 'report',
      },
      {
        ...envelopeFields(context, idempotencyKey, reportedAt),
        data: {
          msgKey: report.msgKey,
          cliKey: report.cliKey,
          delivered,
          // What this report says; publish-events puts the message's status when the event goes
          // out in its place (functions/publishing/message-status-at-publication.ts).
          messageStatus: reportedStatus(report.resultCode),
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
  },
);

/**
 * The record of a report or MO item whose event fits the bus. When it would not, the body goes
 * to the payload bucket and the event carries `payloadRef` instead of `raw` (which keeps only the
 * keys); when even that is too large, the largest of `omittable` are left out one by one, each
 * named in `omitted`. An event that still does not fit throws {@link UnfitItemError}.
 */
const fittedEventRecord = async <E extends typeof deliveryReport | typeof inboundMessage>(
  context: ItemContext,
  index: number,
  type: E,
  keys: { readonly pk: string; readonly sk: string; readonly kind: EventRecord['kind'] },
  input: EventInput<E['name']>,
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
    const detail = buildEventDetail(type, { ...input, data } as EventInput<E['name']>);
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

export const inboundRecord = parsedItemRecord(moItemSchema, async (context, mo, item, index) => {
  const receivedAtGateway = mo.moRecvDt ? (parseGatewayDateTime(mo.moRecvDt) ?? null) : null;
  const record = await fittedEventRecord(
    context,
    index,
    inboundMessage,
    { pk: eventKeys.mo(mo.moKey), sk: SORT_KEY.mo, kind: 'mo' },
    {
      ...envelopeFields(context, idempotencyKeys.mo(mo.moKey), receivedAtGateway),
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
});

/*
 * The records of what could not be read, a quarantined item or body and an unrecognised body, are
 * built by `body-records.ts`, imported by the first such record: a receiver's cold start reads
 * neither their code nor their events' schemas (docs/performance.md, `cold-start`).
 */
const bodyRecords = () => import('./body-records.ts');

/** A quarantined item (`index`) or body (`null`), with why it was quarantined. */
export const quarantineRecord = async (
  context: ItemContext,
  raw: string | undefined,
  index: number | null,
  reason: string,
): Promise<EventRecord> => (await bodyRecords()).quarantineRecord(context, raw, index, reason);

/** A body that is neither a report nor an MO list, kept with its top-level keys. */
export const unrecognisedRecord = async (
  context: ItemContext,
  text: string,
  value: unknown,
): Promise<EventRecord> => (await bodyRecords()).unrecognisedRecord(context, text, value);
