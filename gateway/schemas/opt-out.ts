import { parseGatewayDateTime } from '../../protocol/kst.ts';
import { CompactDateTimeSchema, PHONE_PATTERN, PhoneSchema } from './common.ts';
import { envelopeSchema, listOrEmpty, nullableStrings, nullishCounts } from './lenient.ts';
import * as z from './zod.ts';

/*
 * The opt-out (080) number list, spec 01 §4.15. These four calls authenticate with the `apiKey`
 * header, not a bearer token. Requests are strict; responses lenient. Each schema is built by
 * its first parse (`z.lazy`), as in tracking-urls.ts: no Lambda calls these endpoints.
 */

/**
 * Sender number of an opt-out entry: a number, or `*` for every sender (max 20). On delete, `*`
 * removes the entry for all senders.
 */
export const OptOutCallbackSchema = z.lazy(() =>
  z
    .string()
    .check(
      z.refine(
        (value) => value === '*' || PHONE_PATTERN.test(value),
        'callback must be a number of 1-20 digits or "-", or "*" for all senders',
      ),
    ),
);

const OptOutPairSchema = z.lazy(() =>
  z.strictObject({ phone: PhoneSchema, callback: OptOutCallbackSchema }),
);

/**
 * Body of `POST {api_url}/client/v1/080/ars080Reject`: at least one `{phone, callback}`. The
 * gateway refuses a combination registered twice, so a pair repeated within one request is
 * refused here.
 */
export const OptOutRegisterRequestSchema = z.lazy(() =>
  z.array(OptOutPairSchema).check(
    z.minLength(1, 'at least one opt-out entry to register'),
    z.superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((entry, index) => {
        const key = `${entry.phone}\u0000${entry.callback}`;
        if (seen.has(key)) {
          ctx.addIssue({
            code: 'custom',
            path: [index],
            message: `phone ${entry.phone} with callback ${entry.callback} is repeated`,
          });
        }
        seen.add(key);
      });
    }),
  ),
);
export type OptOutRegisterRequest = z.infer<typeof OptOutRegisterRequestSchema>;

/** Body of `DELETE {api_url}/client/v1/080/ars080RejectDelete`. Deleting twice succeeds. */
export const OptOutDeleteRequestSchema = OptOutPairSchema;
export type OptOutDeleteRequest = z.infer<typeof OptOutDeleteRequestSchema>;

/** Query of `POST {mnt_url}/client/v1.2/080/ars080RejectList`; pages start at 1. */
export const OptOutListQuerySchema = z.lazy(() =>
  z.strictObject({
    phone: z.optional(PhoneSchema),
    listCnt: z.int().check(z.minimum(1)),
    pageIdx: z.int().check(z.minimum(1)),
  }),
);
export type OptOutListQuery = z.infer<typeof OptOutListQuerySchema>;

/**
 * One opt-out entry. `delYn` `Y` = deleted (deleted entries stay in the list); `callback` `*` =
 * all senders; `aniNumber` only when it differs from the refused number.
 */
export const OptOutEntrySchema = z.lazy(() =>
  z.looseObject({
    phone: z.string(),
    ...nullableStrings('aniNumber', 'callback', 'delYn', 'updDt', 'delDt'),
  }),
);
export type OptOutEntry = z.infer<typeof OptOutEntrySchema>;

/** `data` of the list query. */
export const OptOutListDataSchema = z.lazy(() =>
  z.looseObject({
    ...nullishCounts('listCnt', 'pageIdx', 'totalCnt'),
    rejectList: listOrEmpty(OptOutEntrySchema),
  }),
);
export type OptOutListData = z.infer<typeof OptOutListDataSchema>;

export const OPT_OUT_PERIOD_MAX_PAGE_SIZE = 300;

/**
 * Query of `GET {mnt_url}/client/v1.1/080/ars080BlockNumberList`, keys exactly as the gateway
 * spells them (`080ArsNumber` starts with a digit). Times are `YYYYMMDDHHMMSS` KST.
 */
export const OptOutPeriodQuerySchema = z.lazy(() =>
  z
    .strictObject({
      '080ArsNumber': z.string().check(z.minLength(1), z.maxLength(20)),
      fromTime: CompactDateTimeSchema,
      toTime: CompactDateTimeSchema,
      page: z._default(z.int().check(z.minimum(1)), 1),
      pageSize: z._default(
        z
          .int()
          .check(
            z.minimum(1),
            z.maximum(
              OPT_OUT_PERIOD_MAX_PAGE_SIZE,
              `pageSize is at most ${OPT_OUT_PERIOD_MAX_PAGE_SIZE}`,
            ),
          ),
        10,
      ),
    })
    .check(
      z.superRefine((query, ctx) => {
        const from = parseGatewayDateTime(query.fromTime);
        const to = parseGatewayDateTime(query.toTime);
        // Only compare real times: a malformed one already has its own issue.
        if (from !== undefined && to !== undefined && from > to) {
          ctx.addIssue({ code: 'custom', path: ['toTime'], message: 'toTime is before fromTime' });
        }
      }),
    ),
);
/** The query after defaults (page 1, pageSize 10). */
export type OptOutPeriodQuery = z.infer<typeof OptOutPeriodQuerySchema>;
/** The query as a caller writes it (page and pageSize optional). */
export type OptOutPeriodQueryInput = z.input<typeof OptOutPeriodQuerySchema>;

/** One entry of the period query. `status` `inactive` = blocked, `active` = no longer blocks. */
export const OptOutPeriodItemSchema = z.lazy(() =>
  z.looseObject(nullableStrings('blockNumber', 'aniNumber', 'updateTime', 'status')),
);
export type OptOutPeriodItem = z.infer<typeof OptOutPeriodItemSchema>;

export const OptOutPeriodMetaSchema = z.lazy(() =>
  z.looseObject({
    ...nullishCounts('totalItems', 'totalPages'),
    ...nullableStrings('080ArsNumber', 'fromTime', 'toTime'),
    ...nullishCounts('pageSize', 'page'),
  }),
);
export type OptOutPeriodMeta = z.infer<typeof OptOutPeriodMetaSchema>;

/**
 * The whole answer of the period query, not just `data`: it carries `meta` beside `code`,
 * `message` and `data`.
 */
export const OptOutPeriodResponseSchema = z.lazy(() =>
  z.extend(envelopeSchema(listOrEmpty(OptOutPeriodItemSchema)), {
    meta: z.nullish(OptOutPeriodMetaSchema),
  }),
);
export type OptOutPeriodResponse = z.infer<typeof OptOutPeriodResponseSchema>;
