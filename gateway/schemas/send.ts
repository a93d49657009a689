import {
  AgencySchema,
  CallbackSchema,
  CliKeySchema,
  charCount,
  checkReservation,
  MAX_MMS_FILES,
  MAX_RCS_BUTTONS,
  MergeDataSchema,
  MMS_MAX_BYTES,
  MMS_TITLE_MAX_BYTES,
  PhoneSchema,
  RcsButtonSchema,
  RecvInfoSchema,
  recipientsSchema,
  resvFieldsShape,
  ShortCodeSchema,
  SMS_MAX_BYTES,
  senderFieldsShape,
  textSchema,
  YesNoSchema,
} from './common.ts';
import { cp949TextSchema, fallbackListSchema } from './cp949-text.ts';
import { issue } from './issue.ts';
import { GatewayCodeSchema, NullableStringSchema, UserCustomFieldsSchema } from './lenient.ts';
import {
  BrandFreeRequestSchema,
  BrandTemplateRequestSchema,
  MessengerNoticeRequestSchema,
} from './messenger.ts';
import * as z from './zod.ts';

/*
 * Request bodies of SMS, MMS, RCS and push sends (spec 01 §4.3–4.7), the two-way RCS reply
 * result, and the map of every send endpoint (messenger bodies are in messenger.ts). Requests
 * are strict; see common.ts for the shared pieces and their rules.
 *
 * Each schema is a `z.lazy`: built by its first parse and shared after that, so that a sender
 * given only SMS builds only the SMS schema, not every channel's when it starts (building them
 * all cost `send-messages` a third of its import: docs/performance.md, `cold-start`). The shapes
 * several schemas share are functions for the same reason.
 */

// ---------------------------------------------------------------------------------------------
// SMS and MMS (spec 01 §4.3, §4.4)
// ---------------------------------------------------------------------------------------------

const textMessageShape = () => ({
  ...senderFieldsShape,
  recvInfoLst: recipientsSchema(RecvInfoSchema),
});

/** `POST {send_url}/xms/sms/v1` and `POST {api_url}/msg/v1/sms`; `msg` max 90 CP949 bytes. */
export const SmsRequestSchema = z.lazy(() =>
  z
    .strictObject({
      ...textMessageShape(),
      msg: cp949TextSchema(SMS_MAX_BYTES, 'SMS'),
      fbInfoLst: z.optional(fallbackListSchema('SMS')),
    })
    .check(z.superRefine(checkReservation)),
);
export type SmsRequest = z.infer<typeof SmsRequestSchema>;

const mmsShape = () => ({
  ...textMessageShape(),
  title: z.optional(cp949TextSchema(MMS_TITLE_MAX_BYTES, 'MMS title')),
  msg: cp949TextSchema(MMS_MAX_BYTES, 'MMS'),
  fbInfoLst: z.optional(fallbackListSchema('MMS')),
});

/** `POST {send_url}/xms/mms/v1` and `POST {api_url}/msg/v1/mms` (JSON, uploaded file ids). */
export const MmsRequestSchema = z.lazy(() =>
  z
    .strictObject({
      ...mmsShape(),
      fileIdLst: z.optional(
        z
          .array(z.string().check(z.minLength(1)))
          .check(
            z.maxLength(MAX_MMS_FILES, `at most ${MAX_MMS_FILES} attachments per MMS (spec 01 §8)`),
          ),
      ),
    })
    .check(z.superRefine(checkReservation)),
);
export type MmsRequest = z.infer<typeof MmsRequestSchema>;

/**
 * The `reqMsg` part of `POST {send_url}/xms/mms/file/v1` (multipart): the MMS body without file
 * ids, since the files travel in the `parts` part.
 */
export const MmsMultipartRequestSchema = z.lazy(() =>
  z.strictObject(mmsShape()).check(z.superRefine(checkReservation)),
);
export type MmsMultipartRequest = z.infer<typeof MmsMultipartRequestSchema>;

// ---------------------------------------------------------------------------------------------
// RCS (spec 01 §4.5, §4.6)
// ---------------------------------------------------------------------------------------------

const rcsButtonsSchema = () =>
  z
    .array(RcsButtonSchema)
    .check(z.maxLength(MAX_RCS_BUTTONS, `at most ${MAX_RCS_BUTTONS} RCS buttons (spec 01 §8)`));

const rcsCommonShape = () => ({
  ...resvFieldsShape,
  agency: z.optional(AgencySchema),
  messagebaseId: z.string().check(z.minLength(1), z.maxLength(100)),
  /** Sender number or two-way chat room id, hence the longer limit. */
  callback: z.string().check(z.minLength(1), z.maxLength(100)),
  expiryOption: z.optional(z.string().check(z.length(1))),
  campaignId: z.optional(ShortCodeSchema),
  deptCode: z.optional(ShortCodeSchema),
  buttons: z.optional(rcsButtonsSchema()),
  recvInfoLst: recipientsSchema(RecvInfoSchema),
  /** RCS may fall back to SMS and to MMS, each at most once. */
  fbInfoLst: z.optional(fallbackListSchema()),
});

/** Only the standard variants carry an advertising header, its footer, copy and click tracking. */
const rcsAdvertisingShape = () => ({
  clickUrlYn: z.optional(YesNoSchema),
  /** `0` informational, `1` advertising. */
  header: z.enum(['0', '1']),
  /** The opt-out number of an advertising message. */
  footer: z.optional(z.string().check(z.minLength(1), z.maxLength(20))),
  copyAllowed: z.optional(z.boolean()),
});

const rcsBrandShape = () => ({
  brandId: z.optional(z.string().check(z.minLength(1))),
  brandKey: z.optional(z.string().check(z.minLength(1))),
  /** Values seen: SMS, LMS, MMS, ITMPL, CHAT; not a closed list, so any non-empty string. */
  productCode: z.optional(z.string().check(z.minLength(1))),
});

/** An advertising message (`header` `1`) must carry its opt-out number in `footer`. */
const checkAdvertisingFooter = (
  value: { header: string; footer?: string | undefined },
  ctx: z.core.$RefinementCtx,
): void => {
  if (value.header === '1' && value.footer === undefined) {
    issue(
      ctx,
      ['footer'],
      'an advertising RCS message (header 1) needs footer, the opt-out number',
    );
  }
};

/**
 * brandId, brandKey and productCode are "agencies: yes" (spec 01 §4.5): required once the
 * request carries an `agency` object, which ordinary customers omit.
 */
const checkAgencyBrand = (
  value: { agency?: unknown; brandId?: string; brandKey?: string; productCode?: string },
  ctx: z.core.$RefinementCtx,
): void => {
  if (value.agency === undefined) return;
  for (const field of ['brandId', 'brandKey', 'productCode'] as const) {
    if (value[field] === undefined) issue(ctx, [field], `${field} is required for agency sends`);
  }
};

/** `POST {api_url}/msg/v1/rcs`: the oldest variant, without brandId/brandKey/productCode. */
export const RcsV1RequestSchema = z.lazy(() =>
  z.strictObject({ ...rcsCommonShape(), ...rcsAdvertisingShape() }).check(
    z.superRefine((value, ctx) => {
      checkReservation(value, ctx);
      checkAdvertisingFooter(value, ctx);
    }),
  ),
);
export type RcsV1Request = z.infer<typeof RcsV1RequestSchema>;

/** `POST {api_url}/msg/v1.1/rcs`. */
export const RcsV11RequestSchema = z.lazy(() =>
  z.strictObject({ ...rcsCommonShape(), ...rcsAdvertisingShape(), ...rcsBrandShape() }).check(
    z.superRefine((value, ctx) => {
      checkReservation(value, ctx);
      checkAdvertisingFooter(value, ctx);
      checkAgencyBrand(value, ctx);
    }),
  ),
);
export type RcsV11Request = z.infer<typeof RcsV11RequestSchema>;

/**
 * `POST {send_url}/rcs/v1.1`, the integrated variant: informational only (header `0`), so there
 * is no footer, copyAllowed or clickUrlYn; those keys are rejected as unknown.
 */
export const RcsIntegratedRequestSchema = z.lazy(() =>
  z
    .strictObject({
      ...rcsCommonShape(),
      ...rcsBrandShape(),
      header: z.literal('0', {
        error: 'integrated RCS ({send_url}/rcs/v1.1) accepts header 0 (informational) only',
      }),
    })
    .check(
      z.superRefine((value, ctx) => {
        checkReservation(value, ctx);
        checkAgencyBrand(value, ctx);
      }),
    ),
);
export type RcsIntegratedRequest = z.infer<typeof RcsIntegratedRequestSchema>;

/**
 * `POST {send_url}/rcs/bi/v1.1`, a reply inside a two-way conversation. No fallback and no
 * scheduling (field notes: two-way replies have no fallback). The spec allows header `1` with
 * footer only "in the standard variant" without saying how the variant is chosen on this one
 * path, so both headers are accepted and `1` needs its footer.
 */
export const RcsReplyRequestSchema = z.lazy(() =>
  z
    .strictObject({
      agency: z.optional(AgencySchema),
      replyId: z.string().check(z.minLength(1)),
      cliKey: CliKeySchema.check(z.maxLength(20)),
      messagebaseId: z.string().check(z.minLength(1), z.maxLength(100)),
      chatbotId: z.string().check(z.minLength(1), z.maxLength(40)),
      telco: z.string().check(z.minLength(1)),
      phone: PhoneSchema,
      /**
       * `description` is required and `media` (`maapfile://<file_id>`) serves media cards; other
       * card variables (title, subTitle1, …) are strings too, so extra string keys are allowed.
       */
      body: z.catchall(
        z.object({
          description: z.string().check(z.minLength(1)),
          media: z.optional(z.string().check(z.minLength(1))),
        }),
        z.string(),
      ),
      header: z.enum(['0', '1']),
      footer: z.optional(z.string().check(z.minLength(1), z.maxLength(20))),
      copyAllowed: z.optional(z.boolean()),
      campaignId: z.optional(ShortCodeSchema),
      deptCode: z.optional(ShortCodeSchema),
      buttons: z.optional(rcsButtonsSchema()),
      chipList: z.optional(z.array(RcsButtonSchema)),
      ...rcsBrandShape(),
    })
    .check(
      z.superRefine((value, ctx) => {
        checkAdvertisingFooter(value, ctx);
        checkAgencyBrand(value, ctx);
      }),
    ),
);
export type RcsReplyRequest = z.infer<typeof RcsReplyRequestSchema>;

/** One result of a two-way reply: replyId and chatbotId instead of phone (spec 01 §4.6). */
export const RcsReplyResultItemSchema = z.lazy(() =>
  z.looseObject({
    cliKey: z.string(),
    msgKey: NullableStringSchema,
    replyId: NullableStringSchema,
    chatbotId: NullableStringSchema,
    code: GatewayCodeSchema,
    message: NullableStringSchema,
  }),
);
export type RcsReplyResultItem = z.infer<typeof RcsReplyResultItemSchema>;

/** `data` of a two-way reply (`null` reads as `[]`). */

// ---------------------------------------------------------------------------------------------
// Push (spec 01 §4.7)
// ---------------------------------------------------------------------------------------------

export const PUSH_MSG_MAX_CHARS = 2000;
export const PUSH_EXT_MAX_BYTES = 1000;

/** A push recipient: the app user (`cuid`) is required; `phone` is only the fallback number. */
export const PushRecvInfoSchema = z.lazy(() =>
  z.strictObject({
    cliKey: CliKeySchema,
    cuid: z.string().check(z.minLength(1)),
    phone: z.optional(PhoneSchema),
    mergeData: z.optional(MergeDataSchema),
    userCustomFields: z.optional(UserCustomFieldsSchema),
  }),
);
export type PushRecvInfo = z.infer<typeof PushRecvInfoSchema>;

/**
 * The push text. The spec puts "max 2000 chars" on the msg object without saying which field;
 * title and body together are held to it, which satisfies either reading.
 */
export const PushMessageSchema = z.lazy(() =>
  z
    .strictObject({
      title: textSchema(PUSH_MSG_MAX_CHARS),
      body: textSchema(PUSH_MSG_MAX_CHARS),
    })
    .check(
      z.superRefine((msg, ctx) => {
        const total = charCount(msg.title) + charCount(msg.body);
        if (total > PUSH_MSG_MAX_CHARS) {
          issue(ctx, ['body'], `title and body are ${total} characters; max ${PUSH_MSG_MAX_CHARS}`);
        }
      }),
    ),
);
export type PushMessage = z.infer<typeof PushMessageSchema>;

/** `ext`: string map, at most 1000 bytes measured as its UTF-8 JSON serialisation. */
export const PushExtSchema = z.lazy(() =>
  z.record(z.string(), z.string()).check(
    z.superRefine((ext, ctx) => {
      const bytes = Buffer.byteLength(JSON.stringify(ext), 'utf8');
      if (bytes > PUSH_EXT_MAX_BYTES) {
        issue(ctx, [], `ext is ${bytes} bytes as UTF-8 JSON; max ${PUSH_EXT_MAX_BYTES}`);
      }
    }),
  ),
);

/** `POST {api_url}/msg/v1/push`. */
export const PushRequestSchema = z.lazy(() =>
  z
    .strictObject({
      callback: CallbackSchema,
      campaignId: z.optional(ShortCodeSchema),
      deptCode: z.optional(ShortCodeSchema),
      agency: z.optional(AgencySchema),
      ...resvFieldsShape,
      msg: PushMessageSchema,
      appId: z.string().check(z.minLength(1)),
      ext: z.optional(PushExtSchema),
      fileId: z.optional(z.string().check(z.minLength(1))),
      recvInfoLst: recipientsSchema(PushRecvInfoSchema),
      fbInfoLst: z.optional(fallbackListSchema()),
      clickUrlYn: YesNoSchema,
    })
    .check(
      z.superRefine((value, ctx) => {
        checkReservation(value, ctx);
        // The fallback goes to the recipient's phone, so a fallback without one cannot be delivered.
        if ((value.fbInfoLst?.length ?? 0) === 0) return;
        value.recvInfoLst.forEach((recipient, index) => {
          if (recipient.phone === undefined) {
            issue(
              ctx,
              ['recvInfoLst', index, 'phone'],
              'phone (the fallback number) is required with fbInfoLst',
            );
          }
        });
      }),
    ),
);
export type PushRequest = z.infer<typeof PushRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Endpoint map
// ---------------------------------------------------------------------------------------------

/** A send endpoint: `POST` on `host` with a JSON body unless `body` says otherwise. */
const post = <
  const H extends 'api' | 'send',
  const P extends string,
  S extends z.ZodMiniType,
  const B extends 'json' | 'multipart' = 'json',
>(
  host: H,
  path: P,
  schema: S,
  body: B = 'json' as B,
) => ({ host, method: 'POST', path, body, schema }) as const;

/**
 * Every send endpoint (all `POST`): host placeholder (`api` = {api_url}, `send` = {send_url}),
 * path, body encoding and request schema (the answer is read by `resvYn`, see the client). SMS and
 * MMS exist on both the older `/msg/v1` paths and the `/xms` paths (field notes, "Hosts").
 */
export const SEND_ENDPOINTS = {
  sms: post('send', '/xms/sms/v1', SmsRequestSchema),
  smsLegacy: post('api', '/msg/v1/sms', SmsRequestSchema),
  mms: post('send', '/xms/mms/v1', MmsRequestSchema),
  mmsLegacy: post('api', '/msg/v1/mms', MmsRequestSchema),
  /** `schema` describes the `reqMsg` part; the files go in the `parts` part. */
  mmsMultipart: post('send', '/xms/mms/file/v1', MmsMultipartRequestSchema, 'multipart'),
  rcsV1: post('api', '/msg/v1/rcs', RcsV1RequestSchema),
  rcsV11: post('api', '/msg/v1.1/rcs', RcsV11RequestSchema),
  rcsIntegrated: post('send', '/rcs/v1.1', RcsIntegratedRequestSchema),
  rcsReply: post('send', '/rcs/bi/v1.1', RcsReplyRequestSchema),
  push: post('api', '/msg/v1/push', PushRequestSchema),
  messengerNotice: post('send', '/msgr/notice/v1.2', MessengerNoticeRequestSchema),
  brandTemplate: post('send', '/msgr/brand/tmplt/v1', BrandTemplateRequestSchema),
  brandFree: post('send', '/msgr/brand/custom/v1', BrandFreeRequestSchema),
} as const;
