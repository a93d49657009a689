import { MAX_MMS_FILES } from '../../gateway/schemas/common.ts';
import {
  type BrandFreeRequest,
  BrandFreeRequestSchema,
  type BrandTemplateRequest,
  BrandTemplateRequestSchema,
  type MessengerNoticeRequest,
  MessengerNoticeRequestSchema,
} from '../../gateway/schemas/messenger.ts';
import {
  type MmsRequest,
  MmsRequestSchema,
  type PushRequest,
  PushRequestSchema,
  type RcsIntegratedRequest,
  RcsIntegratedRequestSchema,
  type RcsReplyRequest,
  RcsReplyRequestSchema,
  type RcsV1Request,
  RcsV1RequestSchema,
  type RcsV11Request,
  RcsV11RequestSchema,
  type SEND_ENDPOINTS,
  type SmsRequest,
  SmsRequestSchema,
} from '../../gateway/schemas/send.ts';
import * as z from '../../gateway/schemas/zod.ts';
import { lazily } from '../commons/helpers/lazily.ts';
import { SEND_CHANNELS, type SendChannel } from './channels.ts';

/*
 * The send queue's message contract (issue 4, "Queue message contract").
 *
 * A queue message is one gateway send request body, flat and with spec 01's field names, plus
 * `channel` and, where the spec has several paths for one channel, `variant` (and, for MMS,
 * S3 `attachments`). This file holds the contract: the envelope, the types, the problem format
 * and which endpoint a message goes to. Beside it: `queue-message-parsing.ts` (parseSendMessage),
 * `queue-message-checks.ts` (the rules that need a clock or more than one field),
 * `queue-message-recipients.ts` (selecting recipients of a parsed message) and
 * `queue-message-json-schema.ts` (the contract as JSON Schema, for the docs).
 */

/** SMS/MMS paths: `xms` = `{send_url}/xms/…/v1` (the default), `msg` = `{api_url}/msg/v1/…`. */
export const TEXT_VARIANTS = ['xms', 'msg'] as const;
export type TextVariant = (typeof TEXT_VARIANTS)[number];

/** RCS paths: `{api_url}/msg/v1/rcs`, `{api_url}/msg/v1.1/rcs`, `{send_url}/rcs/v1.1`. */
export const RCS_VARIANTS = ['v1', 'v1.1', 'integrated'] as const;
export type RcsVariant = (typeof RCS_VARIANTS)[number];

/**
 * How deep a queue message may nest objects and arrays, the message itself being the first level.
 * The gateway's own fields nest a few levels; the free-form ones (`userCustomFields`, brand
 * coupons, buttons, carousels) take any JSON, and a message nested thousands of levels deep
 * overflows the stack of every recursive walk (the checks, JSON.stringify). 32 is DynamoDB's
 * bound on nested attributes (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/
 * Constraints.html, "Nested attribute depth", read 2026-12-07; the top-level attribute is its
 * first level), so a message that passes could also be stored as an item, its fields the item's
 * attributes. It is stored as text today (a Send Rejected keeps the body as it came).
 */
export const MAX_NESTING_LEVELS = 32;

/** Spec 01 §8: a scheduled send may be at most 30 days from now. */
export const SCHEDULE_HORIZON_DAYS = 30;

/** The spec 01 section that names each channel's fields. */
export const CHANNEL_SPEC_SECTION: Record<SendChannel, string> = {
  sms: '4.3',
  mms: '4.4',
  rcs: '4.5',
  'rcs-reply': '4.6',
  push: '4.7',
  'messenger-notice': '4.8',
  'brand-template': '4.9',
  'brand-free': '4.10',
};

/** Each channel's gateway request schema; rcs has one per variant. */
export const REQUEST_SCHEMAS = {
  sms: SmsRequestSchema,
  mms: MmsRequestSchema,
  rcs: {
    v1: RcsV1RequestSchema,
    'v1.1': RcsV11RequestSchema,
    integrated: RcsIntegratedRequestSchema,
  },
  'rcs-reply': RcsReplyRequestSchema,
  push: PushRequestSchema,
  'messenger-notice': MessengerNoticeRequestSchema,
  'brand-template': BrandTemplateRequestSchema,
  'brand-free': BrandFreeRequestSchema,
} as const satisfies Record<SendChannel, z.ZodMiniType | Record<RcsVariant, z.ZodMiniType>>;

/** The channels whose envelope is `channel` alone: one request schema, no variant, no attachments. */
export type PlainChannel = Exclude<SendChannel, 'sms' | 'mms' | 'rcs'>;

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

/** An S3 object sent as an MMS attachment through `{send_url}/xms/mms/file/v1` (multipart). */
const s3AttachmentSchema = () =>
  z.strictObject({
    bucket: z.string().check(z.minLength(1)),
    key: z.string().check(z.minLength(1)),
    /** File name given to the gateway; defaults to the last segment of `key`. */
    name: z.optional(z.string().check(z.minLength(1))),
    /** Media type of the part; defaults to what S3 reports for the object. */
    contentType: z.optional(
      z
        .string()
        .check(
          z.regex(/^[\w.+-]+\/[\w.+-]+$/, 'contentType must be a media type such as image/jpeg'),
        ),
    ),
  });
export type S3Attachment = z.infer<ReturnType<typeof s3AttachmentSchema>>;

const textVariantSchema = () =>
  z.optional(
    z.enum(TEXT_VARIANTS, {
      error: 'variant must be "xms" ({send_url}/xms/…, the default) or "msg" ({api_url}/msg/v1/…)',
    }),
  );

/**
 * Each channel's envelope: the keys of a queue message that are not part of the request body.
 * Its objects strip unknown keys: the rest of the message is the request body, checked by the
 * channel's strict request schema. Each is built by its first use (a sender builds the envelopes
 * of the channels it is given, not all of them at start: docs/performance.md, `cold-start`).
 */
export const ENVELOPES = {
  sms: lazily(() => z.object({ channel: z.literal('sms'), variant: textVariantSchema() })),
  mms: lazily(() =>
    z.object({
      channel: z.literal('mms'),
      variant: textVariantSchema(),
      attachments: z.optional(
        z
          .array(s3AttachmentSchema())
          .check(
            z.minLength(1, 'attachments needs 1 to 3 S3 objects; omit it for none'),
            z.maxLength(MAX_MMS_FILES, `at most ${MAX_MMS_FILES} attachments per MMS (spec 01 §8)`),
          ),
      ),
    }),
  ),
  rcs: lazily(() =>
    z.object({
      channel: z.literal('rcs'),
      variant: z.enum(RCS_VARIANTS, {
        error: (issue) =>
          `${issue.input === undefined ? 'is required for rcs' : 'must be'}: "v1" ({api_url}/msg/v1/rcs), "v1.1" ({api_url}/msg/v1.1/rcs) or "integrated" ({send_url}/rcs/v1.1); they accept different fields`,
      }),
    }),
  ),
  'rcs-reply': lazily(() => z.object({ channel: z.literal('rcs-reply') })),
  push: lazily(() => z.object({ channel: z.literal('push') })),
  'messenger-notice': lazily(() => z.object({ channel: z.literal('messenger-notice') })),
  'brand-template': lazily(() => z.object({ channel: z.literal('brand-template') })),
  'brand-free': lazily(() => z.object({ channel: z.literal('brand-free') })),
} as const satisfies Record<SendChannel, () => z.ZodMiniObject>;

type Envelope<C extends SendChannel> = ReturnType<(typeof ENVELOPES)[C]>;

/** The envelope of a queue message, as its channel's envelope schema reads it. */
export type SendEnvelope = { [C in SendChannel]: z.output<Envelope<C>> }[SendChannel];

const CHANNEL_LIST = SEND_CHANNELS.map((channel) => `"${channel}"`).join(', ');

/** The problem of a message whose `channel` is missing or names no channel. */
export const channelProblem = (given: unknown): Problem => ({
  path: '$.channel',
  message: `${given === undefined ? 'is required' : `${JSON.stringify(given)} is not a channel`}: one of ${CHANNEL_LIST}`,
});

/** The keys of a queue message that are not part of the gateway request body. */
export const envelopeKeys = (channel: SendChannel): readonly string[] =>
  Object.keys(ENVELOPES[channel]().shape);

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

type EnvelopeInput<C extends SendChannel> = z.input<Envelope<C>>;

/** What a TypeScript producer writes: the flat request body of the channel plus the envelope. */
export type SendMessageInput =
  | (EnvelopeInput<'sms'> & z.input<typeof SmsRequestSchema>)
  | (EnvelopeInput<'mms'> & z.input<typeof MmsRequestSchema>)
  | ({ channel: 'rcs'; variant: 'v1' } & z.input<typeof RcsV1RequestSchema>)
  | ({ channel: 'rcs'; variant: 'v1.1' } & z.input<typeof RcsV11RequestSchema>)
  | ({ channel: 'rcs'; variant: 'integrated' } & z.input<typeof RcsIntegratedRequestSchema>)
  | (EnvelopeInput<'rcs-reply'> & z.input<typeof RcsReplyRequestSchema>)
  | (EnvelopeInput<'push'> & z.input<typeof PushRequestSchema>)
  | (EnvelopeInput<'messenger-notice'> & z.input<typeof MessengerNoticeRequestSchema>)
  | (EnvelopeInput<'brand-template'> & z.input<typeof BrandTemplateRequestSchema>)
  | (EnvelopeInput<'brand-free'> & z.input<typeof BrandFreeRequestSchema>);

/** A parsed queue message, in the form the sender works with: envelope plus request body. */
export type SendMessage =
  | { channel: 'sms'; variant: TextVariant; body: SmsRequest }
  | { channel: 'mms'; variant: TextVariant; body: MmsRequest; attachments: S3Attachment[] }
  | { channel: 'rcs'; variant: 'v1'; body: RcsV1Request }
  | { channel: 'rcs'; variant: 'v1.1'; body: RcsV11Request }
  | { channel: 'rcs'; variant: 'integrated'; body: RcsIntegratedRequest }
  | { channel: 'rcs-reply'; body: RcsReplyRequest }
  | { channel: 'push'; body: PushRequest }
  | { channel: 'messenger-notice'; body: MessengerNoticeRequest }
  | { channel: 'brand-template'; body: BrandTemplateRequest }
  | { channel: 'brand-free'; body: BrandFreeRequest };

/** One reason a queue message cannot be sent; `path` is a JSON path (`$.recvInfoLst[3].cliKey`). */
export type Problem = { path: string; message: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `['recvInfoLst', 3, 'cliKey']` → `$.recvInfoLst[3].cliKey`; `[]` → `$`. */
export const jsonPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    const key = String(segment);
    return IDENTIFIER.test(key) ? `${out}.${key}` : `${out}[${JSON.stringify(key)}]`;
  }, '$');

// ---------------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------------

/** The `SEND_ENDPOINTS` entry a message goes to; MMS with S3 attachments uses the multipart one. */
export const sendEndpointFor = (message: SendMessage): keyof typeof SEND_ENDPOINTS => {
  switch (message.channel) {
    case 'sms':
      return message.variant === 'msg' ? 'smsLegacy' : 'sms';
    case 'mms':
      if (message.attachments.length > 0) return 'mmsMultipart';
      return message.variant === 'msg' ? 'mmsLegacy' : 'mms';
    case 'rcs':
      if (message.variant === 'v1') return 'rcsV1';
      return message.variant === 'v1.1' ? 'rcsV11' : 'rcsIntegrated';
    case 'rcs-reply':
      return 'rcsReply';
    case 'push':
      return 'push';
    case 'messenger-notice':
      return 'messengerNotice';
    case 'brand-template':
      return 'brandTemplate';
    case 'brand-free':
      return 'brandFree';
  }
};
