import { CliKeySchema, LocalDateSchema } from './common.ts';
import {
  GatewayCodeSchema,
  LenientCountSchema,
  listOrEmpty,
  NullableStringSchema,
  nullableStrings,
  presentListOrEmpty,
} from './lenient.ts';
import { FbReasonSchema, ReportItemSchema } from './report-items.ts';
import * as z from './zod.ts';

/*
 * Delivery reports: polling (spec 01 §4.11, §4.12), status query (§4.13) and the report webhook
 * (§6). Responses and webhook bodies are lenient: production report items carry more fields
 * than the spec and the set grows (field notes, "Webhooks"), so unknown fields are kept.
 * Date-times stay the gateway's raw strings; `parseGatewayDateTime` converts them.
 */

/** `rptCnt` as sent (number or numeric string), or the list's length when it is missing. */
const withReportCount = <T extends { rptCnt?: number | null | undefined; rptLst: unknown[] }>(
  page: T,
): T & { rptCnt: number } => ({ ...page, rptCnt: page.rptCnt ?? page.rptLst.length });

/**
 * A poll page with reports (`GET {api_url}/msg/v1.2/report`): confirm its `rptKey` within 120 s
 * or the same reports come back. Parse the envelope's `data` with
 * {@link PollReportsResponseDataSchema}, which turns an empty poll into `null`.
 *
 * Only the page's envelope (`rptKey`, `rptCnt`, a list) is read here; the items stay as sent.
 * Read as one unit, one odd item (a numeric `msgKey`) would make the whole page unreadable: never
 * confirmed, it would come back every 120 s until the gateway drops it. The poller hands the
 * items to the report receive path, which reads each with {@link ReportItemSchema}, stores the
 * good ones and keeps an odd one raw in quarantine, and then the page can be confirmed.
 */
export const PollReportsDataSchema = z.pipe(
  z.looseObject({
    rptKey: z.string().check(z.minLength(1)),
    rptCnt: LenientCountSchema,
    rptLst: listOrEmpty(z.unknown()),
  }),
  z.transform(withReportCount),
);
export type PollReportsData = z.infer<typeof PollReportsDataSchema>;

/**
 * An empty poll answers `data` null, or a page with `rptCnt` 0 whose `rptKey` may be null and
 * `rptLst` null or `[]` (field notes, "Polling"). Nothing in it needs confirming.
 */
const isEmptyPoll = (data: unknown): boolean => {
  if (data === null || data === undefined) return true;
  if (typeof data !== 'object') return false;
  const { rptCnt, rptLst } = data as { rptCnt?: unknown; rptLst?: unknown };
  const noItems =
    rptLst === null || rptLst === undefined || (Array.isArray(rptLst) && rptLst.length === 0);
  return noItems && (rptCnt === null || rptCnt === undefined || Number(rptCnt) === 0);
};

/**
 * The envelope `data` of a poll, as the client should read it: `null` for an empty poll (data
 * null, or `rptCnt` 0 with no items), otherwise a {@link PollReportsDataSchema} page with its
 * `rptKey`. Inside `envelopeSchema(...)` a missing `data` reads as `undefined`; treat it as empty
 * too. Either way: nothing to confirm, wait at least 10 s before the next poll.
 */
export const PollReportsResponseDataSchema = z.pipe(
  z.transform((data: unknown) => (isEmptyPoll(data) ? null : data)),
  z.nullable(PollReportsDataSchema),
);
export type PollReportsResponseData = z.infer<typeof PollReportsResponseDataSchema>;

/** Body of `POST {api_url}/msg/v1.2/report/result`. Confirm only after the reports are stored. */
export const ConfirmReportsRequestSchema = z.strictObject({
  rptKeyLst: z
    .array(z.string().check(z.minLength(1)))
    .check(z.minLength(1, 'at least one rptKey to confirm')),
});
export type ConfirmReportsRequest = z.infer<typeof ConfirmReportsRequestSchema>;

/**
 * Body of `POST {api_url}/msg/v1/sent`: 1 to 10 keys. The 90-day query range needs a clock and
 * is checked elsewhere.
 */
/** Keys per status query (spec 01 §8). */
export const STATUS_QUERY_MAX_KEYS = 10;

export const StatusQueryRequestSchema = z.strictObject({
  cliKeyLst: z
    .array(z.strictObject({ cliKey: CliKeySchema, reqDt: LocalDateSchema }))
    .check(
      z.minLength(1, 'at least one cliKey to query'),
      z.maxLength(STATUS_QUERY_MAX_KEYS, 'at most 10 cliKeys per status query (spec 01 §8)'),
    ),
});
export type StatusQueryRequest = z.infer<typeof StatusQueryRequestSchema>;

export const MESSAGE_STATUSES = ['REG', 'ING', 'DONE', 'OVER_DATE', 'INVALID_KEY'] as const;
export type KnownMessageStatus = (typeof MESSAGE_STATUSES)[number];

/** True for the statuses of spec 01 §3; anything else is kept as given, not rejected. */
export const isKnownMessageStatus = (status: string): status is KnownMessageStatus =>
  (MESSAGE_STATUSES as readonly string[]).includes(status);

/**
 * Message status: REG → ING → DONE, or OVER_DATE / INVALID_KEY. A value outside the spec's list
 * is kept as a string so that one new status does not fail the whole answer.
 */
export const MessageStatusSchema = z.union([z.enum(MESSAGE_STATUSES), z.string()]);

/** One entry of the status query answer. An INVALID_KEY entry may lack everything but cliKey. */
export const StatusQueryItemSchema = z.looseObject({
  msgKey: NullableStringSchema,
  cliKey: z.string(),
  ch: NullableStringSchema,
  status: MessageStatusSchema,
  resultCode: z.nullish(GatewayCodeSchema),
  ...nullableStrings('resultCodeDesc', 'telco'),
  fbReasonLst: listOrEmpty(FbReasonSchema),
  ...nullableStrings('rptDt', 'productCode'),
});
export type StatusQueryItem = z.infer<typeof StatusQueryItemSchema>;

/** `data` of the status query: `{cliKeyLst: [...]}`. */
export const StatusQueryDataSchema = z.looseObject({
  cliKeyLst: listOrEmpty(StatusQueryItemSchema),
});
export type StatusQueryData = z.infer<typeof StatusQueryDataSchema>;

/**
 * Body the gateway posts to the report webhook (spec 01 §6). `rptLst` must be present (`null`
 * reads as `[]`): a body without it is not a report body and must not read as "nothing to do".
 */
export const ReportWebhookBodySchema = z.pipe(
  z.looseObject({
    rptCnt: LenientCountSchema,
    rptLst: presentListOrEmpty(ReportItemSchema),
  }),
  z.transform(withReportCount),
);
export type ReportWebhookBody = z.infer<typeof ReportWebhookBodySchema>;
