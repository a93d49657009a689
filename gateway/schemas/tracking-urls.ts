import { parseGatewayDateTime } from '../../protocol/kst.ts';
import { LocalDateSchema, LocalDateTimeSchema, optionalTexts, PhoneSchema } from './common.ts';
import {
  GatewayIdSchema,
  listOrEmpty,
  NullableStringSchema,
  NumericSchema,
  nullableStrings,
  nullishCounts,
  oneOrMany,
} from './lenient.ts';
import * as z from './zod.ts';

/*
 * Response-tracking short URLs and their click statistics, spec 01 §4.16. Requests are strict;
 * responses lenient (counts as numbers, ids as strings, unknown fields kept). Each schema is
 * built by its first parse (`z.lazy`): every function that calls the gateway imports the client,
 * and only `export-statistics` and the operator's tools call these endpoints
 * (docs/performance.md, `cold-start`).
 */

// ---------------------------------------------------------------------------------------------
// Click URLs
// ---------------------------------------------------------------------------------------------

/** Body of `POST {api_url}/msg/v1/createClickUrl`. */
export const ClickUrlCreateRequestSchema = z.lazy(() =>
  z.strictObject({
    urlTitle: z.string().check(z.minLength(1)),
    /** The spec requires the scheme; a bare host would be refused by the gateway. */
    orgUrl: z
      .string()
      .check(z.regex(/^https?:\/\/\S+$/, 'orgUrl must start with http:// or https://')),
    /** Expiry, `YYYY-MM-DD HH:mm:ss` KST; after it the URL is disabled automatically. */
    expDt: LocalDateTimeSchema,
  }),
);
export type ClickUrlCreateRequest = z.infer<typeof ClickUrlCreateRequestSchema>;

/** `data` of create: the new URL id, a number in the spec's sample; kept as a string. */
export const ClickUrlCreateDataSchema = z.lazy(() =>
  z.pipe(
    z.union([
      z.number(),
      z.string().check(z.trim(), z.regex(/^\d+$/, 'expected a numeric url id')),
    ]),
    z.transform(String),
  ),
);
export type ClickUrlCreateData = z.infer<typeof ClickUrlCreateDataSchema>;

/** `POST {api_url}/msg/v1/deleteClickUrl`; `urlId` travels as a query parameter. Irreversible. */
export const ClickUrlDeleteRequestSchema = z.lazy(() =>
  z.strictObject({ urlId: z.string().check(z.minLength(1)) }),
);
export type ClickUrlDeleteRequest = z.infer<typeof ClickUrlDeleteRequestSchema>;

/** `data` of delete: "empty" (null, absent, `""` or `{}`), so anything is accepted. */
export const ClickUrlDeleteDataSchema = z.unknown();

/** Query of `GET {api_url}/msg/v1/getClickUrl`; pages of up to 100, starting at 1. */
export const ClickUrlListQuerySchema = z.lazy(() =>
  z.strictObject({ page: z.int().check(z.minimum(1)) }),
);
export type ClickUrlListQuery = z.infer<typeof ClickUrlListQuerySchema>;

/** One tracking URL in the list: expired ones are included, deleted ones are not. */
export const ClickUrlItemSchema = z.lazy(() =>
  z.looseObject({
    no: z.nullish(NumericSchema),
    title: NullableStringSchema,
    urlId: GatewayIdSchema,
    ...nullableStrings('orgUrl', 'expDt', 'regDt'),
  }),
);
export type ClickUrlItem = z.infer<typeof ClickUrlItemSchema>;

/** `data` of the list (`null` reads as `[]`). */
export const ClickUrlListDataSchema = z.lazy(() => listOrEmpty(ClickUrlItemSchema));
export type ClickUrlListData = z.infer<typeof ClickUrlListDataSchema>;

// ---------------------------------------------------------------------------------------------
// Statistics requests
// ---------------------------------------------------------------------------------------------

/** Longest range of the URL, channel and recipient statistics (spec 01 §8). */
export const URL_STATS_MAX_DAYS = 31;
/** Longest range of the send-day/hour and click-day/hour statistics (spec 01 §8). */
export const URL_STATS_PERIOD_MAX_DAYS = 15;

/** Calendar days from `from` to `to`, both included; undefined when either is not a date. */
export const inclusiveDaySpan = (from: string, to: string): number | undefined => {
  const start = parseGatewayDateTime(from);
  const end = parseGatewayDateTime(to);
  if (start === undefined || end === undefined) return undefined;
  return Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000) + 1;
};

/**
 * `from` must not be after `to`, and the range counts both ends: with a 31-day limit,
 * 2025-01-01..2025-01-31 passes and 2025-01-01..2025-02-01 does not. Counting inclusively is the
 * stricter of the two readings of "range 31 days", so the gateway never sees a longer range.
 */
const checkRange =
  (maxDays: number) =>
  (value: { from: string; to: string }, ctx: z.core.$RefinementCtx): void => {
    const days = inclusiveDaySpan(value.from, value.to);
    if (days === undefined) return;
    if (days < 1) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to is before from' });
    } else if (days > maxDays) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `${value.from}..${value.to} spans ${days} days; max ${maxDays}`,
      });
    }
  };

const rangeShape = { from: LocalDateSchema, to: LocalDateSchema };

/** The filters of the statistics by URL, at least one of which is required. */
const URL_FILTERS = ['urlId', 'title', 'orgUrl'] as const;

/** Body of `POST {api_url}/msg/v1/stat/url/msg` (by registration date): at least one filter. */
export const UrlStatsByUrlRequestSchema = z.lazy(() =>
  z.strictObject({ ...rangeShape, ...optionalTexts(...URL_FILTERS) }).check(
    z.superRefine((value, ctx) => {
      checkRange(URL_STATS_MAX_DAYS)(value, ctx);
      if (URL_FILTERS.every((filter) => value[filter] === undefined)) {
        const message = `give at least one of ${URL_FILTERS.join(', ')}`;
        ctx.addIssue({ code: 'custom', path: [], message });
      }
    }),
  ),
);
export type UrlStatsByUrlRequest = z.infer<typeof UrlStatsByUrlRequestSchema>;

/** Body of `POST {api_url}/msg/v1/stat/url/channel` (by send date). */
export const UrlStatsByChannelRequestSchema = z.lazy(() =>
  z
    .strictObject({ ...rangeShape, urlId: z.string().check(z.minLength(1)) })
    .check(z.superRefine(checkRange(URL_STATS_MAX_DAYS))),
);
export type UrlStatsByChannelRequest = z.infer<typeof UrlStatsByChannelRequestSchema>;

/** Body of `POST {api_url}/msg/v1/stat/url/receiver` (by access date). */
export const UrlStatsByReceiverRequestSchema = z.lazy(() =>
  z
    .strictObject({
      ...rangeShape,
      urlId: z.string().check(z.minLength(1)),
      page: z.int().check(z.minimum(1)),
      phone: z.optional(PhoneSchema),
    })
    .check(z.superRefine(checkRange(URL_STATS_MAX_DAYS))),
);
export type UrlStatsByReceiverRequest = z.infer<typeof UrlStatsByReceiverRequestSchema>;

/** Body shared by the sendDay, sendHour, clickDay and clickHour statistics (max 15 days). */
export const UrlStatsPeriodRequestSchema = z.lazy(() =>
  z
    .strictObject({ ...rangeShape, urlId: z.string().check(z.minLength(1)) })
    .check(z.superRefine(checkRange(URL_STATS_PERIOD_MAX_DAYS))),
);
export type UrlStatsPeriodRequest = z.infer<typeof UrlStatsPeriodRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Statistics responses
// ---------------------------------------------------------------------------------------------

/*
 * The spec lists the statistics `data` fields without saying whether `data` is one object or a
 * list (a title filter can match several URLs; channels are several): read with `oneOrMany`.
 */

/** A rate such as `"12.5"`, kept as the gateway wrote it (a number becomes its string). */
const RateSchema = z.nullish(z.pipe(z.union([z.string(), z.number()]), z.transform(String)));

/** An item of the URL or channel statistics: what it counts, then sent, opened and their rate. */
const clickThroughItem = <S extends z.core.$ZodShape>(countedBy: S) =>
  z.looseObject({
    ...countedBy,
    ...nullishCounts('totCnt', 'conCnt'),
    clickThroughRate: RateSchema,
  });

export const UrlStatsByUrlItemSchema = z.lazy(() =>
  clickThroughItem({
    urlId: z.nullish(GatewayIdSchema),
    ...nullableStrings('title', 'orgUrl', 'regDt'),
  }),
);
export type UrlStatsByUrlItem = z.infer<typeof UrlStatsByUrlItemSchema>;
export const UrlStatsByUrlDataSchema = z.lazy(() => oneOrMany(UrlStatsByUrlItemSchema));
export type UrlStatsByUrlData = z.infer<typeof UrlStatsByUrlDataSchema>;

export const UrlStatsByChannelItemSchema = z.lazy(() =>
  clickThroughItem({ ch: NullableStringSchema }),
);
export type UrlStatsByChannelItem = z.infer<typeof UrlStatsByChannelItemSchema>;
export const UrlStatsByChannelDataSchema = z.lazy(() => oneOrMany(UrlStatsByChannelItemSchema));
export type UrlStatsByChannelData = z.infer<typeof UrlStatsByChannelDataSchema>;

/** One access of a recipient. `isMobile` stays the gateway's `Y`/`N`. */
export const UrlStatsReceiverItemSchema = z.lazy(() =>
  z.looseObject({
    conYmd: NullableStringSchema,
    urlId: z.nullish(GatewayIdSchema),
    ...nullableStrings('phone', 'sndYmd', 'ch', 'isMobile'),
  }),
);
export type UrlStatsReceiverItem = z.infer<typeof UrlStatsReceiverItemSchema>;

/** `data` of the recipient statistics; the list is spelled `recvlst` (lower-case l). */
export const UrlStatsByReceiverDataSchema = z.lazy(() =>
  z.looseObject({
    urlId: z.nullish(GatewayIdSchema),
    totCnt: z.nullish(NumericSchema),
    recvlst: listOrEmpty(UrlStatsReceiverItemSchema),
  }),
);
export type UrlStatsByReceiverData = z.infer<typeof UrlStatsByReceiverDataSchema>;

const dayItemShape = () => ({
  urlId: z.nullish(GatewayIdSchema),
  ...nullableStrings('ymd', 'ch', 'conDt'),
  ...nullishCounts('sumCnt', 'avgCnt'),
});

export const UrlStatsDayItemSchema = z.lazy(() => z.looseObject(dayItemShape()));
export type UrlStatsDayItem = z.infer<typeof UrlStatsDayItemSchema>;
/** `data` of sendDay and clickDay. */
export const UrlStatsDayDataSchema = z.lazy(() => oneOrMany(UrlStatsDayItemSchema));
export type UrlStatsDayData = z.infer<typeof UrlStatsDayDataSchema>;

/** `hour` is kept as written (`"09"`); a number becomes its string. */
export const UrlStatsHourItemSchema = z.lazy(() =>
  z.looseObject({
    ...dayItemShape(),
    hour: z.nullish(GatewayIdSchema),
  }),
);
export type UrlStatsHourItem = z.infer<typeof UrlStatsHourItemSchema>;
/** `data` of sendHour and clickHour. */
export const UrlStatsHourDataSchema = z.lazy(() => oneOrMany(UrlStatsHourItemSchema));
export type UrlStatsHourData = z.infer<typeof UrlStatsHourDataSchema>;

// ---------------------------------------------------------------------------------------------
// Endpoint map
// ---------------------------------------------------------------------------------------------

/**
 * Every tracking-URL call, all on {api_url}: method, path, where the parameters go (`body` JSON
 * or `query` string), the request schema and the schema of the success envelope's `data`.
 */
export const TRACKING_URL_ENDPOINTS = {
  create: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/createClickUrl',
    params: 'body',
    schema: ClickUrlCreateRequestSchema,
    responseDataSchema: ClickUrlCreateDataSchema,
  },
  delete: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/deleteClickUrl',
    params: 'query',
    schema: ClickUrlDeleteRequestSchema,
    responseDataSchema: ClickUrlDeleteDataSchema,
  },
  /** Sent without a Content-Type header. */
  list: {
    host: 'api',
    method: 'GET',
    path: '/msg/v1/getClickUrl',
    params: 'query',
    schema: ClickUrlListQuerySchema,
    responseDataSchema: ClickUrlListDataSchema,
  },
  statsByUrl: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/msg',
    params: 'body',
    schema: UrlStatsByUrlRequestSchema,
    responseDataSchema: UrlStatsByUrlDataSchema,
  },
  statsByChannel: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/channel',
    params: 'body',
    schema: UrlStatsByChannelRequestSchema,
    responseDataSchema: UrlStatsByChannelDataSchema,
  },
  statsByReceiver: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/receiver',
    params: 'body',
    schema: UrlStatsByReceiverRequestSchema,
    responseDataSchema: UrlStatsByReceiverDataSchema,
  },
  statsSendDay: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/sendDay',
    params: 'body',
    schema: UrlStatsPeriodRequestSchema,
    responseDataSchema: UrlStatsDayDataSchema,
  },
  statsSendHour: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/sendHour',
    params: 'body',
    schema: UrlStatsPeriodRequestSchema,
    responseDataSchema: UrlStatsHourDataSchema,
  },
  statsClickDay: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/clickDay',
    params: 'body',
    schema: UrlStatsPeriodRequestSchema,
    responseDataSchema: UrlStatsDayDataSchema,
  },
  statsClickHour: {
    host: 'api',
    method: 'POST',
    path: '/msg/v1/stat/url/clickHour',
    params: 'body',
    schema: UrlStatsPeriodRequestSchema,
    responseDataSchema: UrlStatsHourDataSchema,
  },
} as const;
export type TrackingUrlEndpointName = keyof typeof TRACKING_URL_ENDPOINTS;
