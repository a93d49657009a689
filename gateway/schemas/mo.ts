import {
  LenientCountSchema,
  listOrEmpty,
  NullableStringSchema,
  nullableStrings,
  presentListOrEmpty,
} from './lenient.ts';
import * as z from './zod.ts';

/*
 * Inbound (MO) messages: query (spec 01 §4.14) and webhook (§6). Lenient on purpose: production
 * sends `null` for absent lists and titles, counts as strings or numbers, and moType values the
 * spec does not list (field notes, "Webhooks"). Date-times stay raw strings.
 */

/**
 * One attachment. `contentUrl` is single-use and valid 24 h. `contentSize` is read as a number;
 * an empty one as `null` (the size is informative only: the file itself is measured when fetched).
 */
export const ContentInfoSchema = z.looseObject({
  contentName: NullableStringSchema,
  contentSize: LenientCountSchema,
  contentExt: NullableStringSchema,
  contentUrl: NullableStringSchema,
});
export type ContentInfo = z.infer<typeof ContentInfoSchema>;

/** The spec's moType values; `LMSMO` and others also arrive and are kept (see MoItemSchema). */
export const MO_TYPES = ['SMSMO', 'MMSMO', 'RCSMO'] as const;

/**
 * One inbound message. `moNumber` is OUR receiving number and `moCallback` the end user's phone.
 * `moType` is any string (LMSMO is seen in production); `moTitle` may be `null`;
 * `contentInfoLst` is `null` when there is no attachment (read as `[]`).
 */
export const MoItemSchema = z.looseObject({
  moKey: z.string(),
  ...nullableStrings(
    'moNumber',
    'moType',
    'moCallback',
    'productCode',
    'moTitle',
    'moMsg',
    'telco',
    'moRecvDt',
  ),
  // Empty reads as null: the event then counts contentInfoLst instead.
  contentCnt: LenientCountSchema,
  contentInfoLst: listOrEmpty(ContentInfoSchema),
});
export type MoItem = z.infer<typeof MoItemSchema>;

/**
 * `data` of `GET {api_url}/mo/v1/msg`: the MO items as sent, each unread (`null` reads as `[]`).
 * The gateway hands each message out once, so the list is not parsed as one unit: one odd item
 * would make every message on it unreadable and lose them. The poller hands the items to the MO
 * receive path, which reads each with {@link MoItemSchema} and keeps an odd one raw in quarantine.
 */
export const MoListDataSchema = listOrEmpty(z.unknown());
export type MoListData = z.infer<typeof MoListDataSchema>;

/**
 * Body of the MO webhook (spec 01 §6). `moLst` must be present (`null` reads as `[]`): the same
 * webhook carries two-way RCS traffic in other list shapes, and such a body must fail this
 * schema so that the receiver keeps it raw instead of reading it as "no messages". `moCnt`
 * falls back to the list's length when missing.
 */
export const MoWebhookBodySchema = z.pipe(
  z.looseObject({
    moCnt: LenientCountSchema,
    moLst: presentListOrEmpty(MoItemSchema),
  }),
  z.transform((body) => ({ ...body, moCnt: body.moCnt ?? body.moLst.length })),
);
export type MoWebhookBody = z.infer<typeof MoWebhookBodySchema>;

/**
 * `data` of `GET {api_url}/mo/direct/v1/mmsMoSample` (development only). Its shape is not
 * specified: any object or list of objects is kept as given.
 */
export const MoSampleDataSchema = z.nullable(
  z.union([z.array(z.looseObject({})), z.looseObject({})]),
);
export type MoSampleData = z.infer<typeof MoSampleDataSchema>;
