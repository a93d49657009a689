import { z } from 'zod';
import { listOrEmpty, NullableStringSchema, NumericSchema, presentListOrEmpty } from './common.ts';

/*
 * Inbound (MO) messages: query (spec 01 §4.14) and webhook (§6). Lenient on purpose: production
 * sends `null` for absent lists and titles, counts as strings or numbers, and moType values the
 * spec does not list (field notes, "Webhooks"). Date-times stay raw strings.
 */

/** One attachment. `contentUrl` is single-use and valid 24 h. `contentSize` is read as a number. */
export const ContentInfoSchema = z.looseObject({
  contentName: NullableStringSchema,
  contentSize: NumericSchema.nullish(),
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
  moNumber: NullableStringSchema,
  moType: NullableStringSchema,
  moCallback: NullableStringSchema,
  productCode: NullableStringSchema,
  moTitle: NullableStringSchema,
  moMsg: NullableStringSchema,
  telco: NullableStringSchema,
  moRecvDt: NullableStringSchema,
  contentCnt: NumericSchema.nullish(),
  contentInfoLst: listOrEmpty(ContentInfoSchema),
});
export type MoItem = z.infer<typeof MoItemSchema>;

/** `data` of `GET {api_url}/mo/v1/msg`: MO items; `null` reads as `[]`. */
export const MoListDataSchema = listOrEmpty(MoItemSchema);
export type MoListData = z.infer<typeof MoListDataSchema>;

/**
 * Body of the MO webhook (spec 01 §6). `moLst` must be present (`null` reads as `[]`): the same
 * webhook carries two-way RCS traffic in other list shapes, and such a body must fail this
 * schema so that the receiver keeps it raw instead of reading it as "no messages". `moCnt`
 * falls back to the list's length when missing.
 */
export const MoWebhookBodySchema = z
  .looseObject({
    moCnt: NumericSchema.nullish(),
    moLst: presentListOrEmpty(MoItemSchema),
  })
  .transform((body) => ({ ...body, moCnt: body.moCnt ?? body.moLst.length }));
export type MoWebhookBody = z.infer<typeof MoWebhookBodySchema>;

/**
 * `data` of `GET {api_url}/mo/direct/v1/mmsMoSample` (development only). Its shape is not
 * specified: any object or list of objects is kept as given.
 */
export const MoSampleDataSchema = z
  .union([z.array(z.looseObject({})), z.looseObject({})])
  .nullable();
export type MoSampleData = z.infer<typeof MoSampleDataSchema>;
