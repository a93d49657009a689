import { z } from 'zod';
import { formatKst, parseGatewayDateTime } from '../../protocol/kst.ts';
import {
  type BrandFreeRequest,
  BrandFreeRequestSchema,
  type BrandTemplateRequest,
  BrandTemplateRequestSchema,
  charCount,
  cp949TextIssues,
  MAX_MMS_FILES,
  type MessengerNoticeRequest,
  MessengerNoticeRequestSchema,
  MMS_MAX_BYTES,
  MMS_TITLE_MAX_BYTES,
  type MmsRequest,
  MmsRequestSchema,
  PUSH_MSG_MAX_CHARS,
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
  SMS_MAX_BYTES,
  type SmsRequest,
  SmsRequestSchema,
} from '../commons/gateway/schemas/index.ts';
import { SEND_CHANNELS, type SendChannel } from './channels.ts';

/*
 * The send queue's message contract (issue 4, "Queue message contract").
 *
 * A queue message is one gateway send request body, flat and with spec 01's field names, plus
 * `channel` and, where the spec has several paths for one channel, `variant` (and, for MMS,
 * S3 `attachments`). Parsing is two steps because the request schemas are strict objects with
 * refinements, which zod 4 cannot extend: the envelope fields are checked by a discriminated
 * union, the remaining keys by the channel's request schema. The checks that need more than one
 * part of the message or a clock (the 30-day horizon, template variables, attachments against
 * file ids) run on the raw input, so every problem is reported in one pass.
 */

export { SEND_CHANNELS, type SendChannel };

/** SMS/MMS paths: `xms` = `{send_url}/xms/…/v1` (the default), `msg` = `{api_url}/msg/v1/…`. */
export const TEXT_VARIANTS = ['xms', 'msg'] as const;
export type TextVariant = (typeof TEXT_VARIANTS)[number];

/** RCS paths: `{api_url}/msg/v1/rcs`, `{api_url}/msg/v1.1/rcs`, `{send_url}/rcs/v1.1`. */
export const RCS_VARIANTS = ['v1', 'v1.1', 'integrated'] as const;
export type RcsVariant = (typeof RCS_VARIANTS)[number];

/** Spec 01 §8: a scheduled send may be at most 30 days from now. */
export const SCHEDULE_HORIZON_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

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

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

/** An S3 object sent as an MMS attachment through `{send_url}/xms/mms/file/v1` (multipart). */
export const S3AttachmentSchema = z.strictObject({
  bucket: z.string().min(1),
  key: z.string().min(1),
  /** File name given to the gateway; defaults to the last segment of `key`. */
  name: z.string().min(1).optional(),
  /** Media type of the part; defaults to what S3 reports for the object. */
  contentType: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'contentType must be a media type such as image/jpeg')
    .optional(),
});
export type S3Attachment = z.infer<typeof S3AttachmentSchema>;

const textVariantSchema = z
  .enum(TEXT_VARIANTS, {
    error: 'variant must be "xms" ({send_url}/xms/…, the default) or "msg" ({api_url}/msg/v1/…)',
  })
  .optional();

const ENVELOPES = {
  sms: z.object({ channel: z.literal('sms'), variant: textVariantSchema }),
  mms: z.object({
    channel: z.literal('mms'),
    variant: textVariantSchema,
    attachments: z
      .array(S3AttachmentSchema)
      .min(1, 'attachments needs 1 to 3 S3 objects; omit it for none')
      .max(MAX_MMS_FILES, `at most ${MAX_MMS_FILES} attachments per MMS (spec 01 §8)`)
      .optional(),
  }),
  rcs: z.object({
    channel: z.literal('rcs'),
    variant: z.enum(RCS_VARIANTS, {
      error: (issue) =>
        `${issue.input === undefined ? 'is required for rcs' : 'must be'}: "v1" ({api_url}/msg/v1/rcs), "v1.1" ({api_url}/msg/v1.1/rcs) or "integrated" ({send_url}/rcs/v1.1); they accept different fields`,
    }),
  }),
  'rcs-reply': z.object({ channel: z.literal('rcs-reply') }),
  push: z.object({ channel: z.literal('push') }),
  'messenger-notice': z.object({ channel: z.literal('messenger-notice') }),
  'brand-template': z.object({ channel: z.literal('brand-template') }),
  'brand-free': z.object({ channel: z.literal('brand-free') }),
} as const satisfies Record<SendChannel, z.ZodObject>;

const CHANNEL_LIST = SEND_CHANNELS.map((channel) => `"${channel}"`).join(', ');

/**
 * The envelope of every queue message. Its objects strip unknown keys: the rest of the message
 * is the request body, checked by the channel's strict request schema.
 */
export const SendEnvelopeSchema = z.discriminatedUnion(
  'channel',
  [
    ENVELOPES.sms,
    ENVELOPES.mms,
    ENVELOPES.rcs,
    ENVELOPES['rcs-reply'],
    ENVELOPES.push,
    ENVELOPES['messenger-notice'],
    ENVELOPES['brand-template'],
    ENVELOPES['brand-free'],
  ],
  {
    error: (issue) => {
      if (issue.code !== 'invalid_union') return undefined;
      const given = isObject(issue.input) ? issue.input.channel : undefined;
      return `${given === undefined ? 'is required' : `${JSON.stringify(given)} is not a channel`}: one of ${CHANNEL_LIST}`;
    },
  },
);
export type SendEnvelope = z.infer<typeof SendEnvelopeSchema>;

/** The keys of a queue message that are not part of the gateway request body. */
const envelopeKeys = (channel: SendChannel): readonly string[] =>
  Object.keys(ENVELOPES[channel].shape);

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

type EnvelopeInput<C extends SendChannel> = z.input<(typeof ENVELOPES)[C]>;

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

export type ParseSendMessageResult =
  | { ok: true; message: SendMessage }
  | { ok: false; problems: Problem[] };

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `['recvInfoLst', 3, 'cliKey']` → `$.recvInfoLst[3].cliKey`; `[]` → `$`. */
export const jsonPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    const key = String(segment);
    return IDENTIFIER.test(key) ? `${out}.${key}` : `${out}[${JSON.stringify(key)}]`;
  }, '$');

/** Says "is required" for a missing field instead of "expected string, received undefined". */
const parseParams = {
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined,
};

const channelLabel = (channel: SendChannel, variant?: string): string =>
  `${channel}${variant === undefined ? '' : ` (variant ${variant})`} request (spec 01 §${CHANNEL_SPEC_SECTION[channel]})`;

const unknownKeyMessage = (key: string, atRoot: boolean, label: string): string => {
  if (!atRoot) return 'is not a known field here';
  if (key === 'variant') return `this channel has no variant: it is not a field of the ${label}`;
  if (key === 'attachments') return 'attachments are for channel "mms" only';
  return `is not a field of the ${label}`;
};

/** zod issues as problems; an unknown-keys issue becomes one problem per key, at the key. */
const toProblems = (issues: readonly z.core.$ZodIssue[], label = ''): Problem[] =>
  issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: jsonPath([...issue.path, key]),
          message: unknownKeyMessage(key, issue.path.length === 0, label),
        }))
      : [{ path: jsonPath(issue.path), message: issue.message }],
  );

/** Parses `body` with `schema`, adding its problems; the parsed body, or `undefined`. */
const parseBody = <T>(
  schema: z.ZodType<T>,
  body: JsonObject,
  label: string,
  problems: Problem[],
): T | undefined => {
  const result = schema.safeParse(body, parseParams);
  if (result.success) return result.data;
  problems.push(...toProblems(result.error.issues, label));
  return undefined;
};

const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  values.find((candidate) => candidate === value);

/**
 * Validates the body with the channel's request schema and, when the envelope is valid too,
 * builds the message. With an invalid envelope the body is still checked, so that every problem
 * is reported: an unreadable rcs `variant` is checked as `v1.1`, whose fields include both other
 * variants'.
 */
const parseChannelBody = (
  channel: SendChannel,
  envelope: SendEnvelope | undefined,
  raw: JsonObject,
  body: JsonObject,
  problems: Problem[],
): SendMessage | undefined => {
  switch (channel) {
    case 'sms': {
      const parsed = parseBody(SmsRequestSchema, body, channelLabel(channel), problems);
      if (parsed === undefined || envelope?.channel !== 'sms') return undefined;
      return { channel, variant: envelope.variant ?? 'xms', body: parsed };
    }
    case 'mms': {
      const parsed = parseBody(MmsRequestSchema, body, channelLabel(channel), problems);
      if (parsed === undefined || envelope?.channel !== 'mms') return undefined;
      return {
        channel,
        variant: envelope.variant ?? 'xms',
        body: parsed,
        attachments: envelope.attachments ?? [],
      };
    }
    case 'rcs': {
      const variant = oneOf(RCS_VARIANTS, raw.variant) ?? 'v1.1';
      const label = channelLabel(channel, variant);
      const valid = envelope?.channel === 'rcs';
      switch (variant) {
        case 'v1': {
          const parsed = parseBody(RcsV1RequestSchema, body, label, problems);
          return parsed === undefined || !valid ? undefined : { channel, variant, body: parsed };
        }
        case 'v1.1': {
          const parsed = parseBody(RcsV11RequestSchema, body, label, problems);
          return parsed === undefined || !valid ? undefined : { channel, variant, body: parsed };
        }
        case 'integrated': {
          const parsed = parseBody(RcsIntegratedRequestSchema, body, label, problems);
          return parsed === undefined || !valid ? undefined : { channel, variant, body: parsed };
        }
      }
      return undefined;
    }
    case 'rcs-reply': {
      const parsed = parseBody(RcsReplyRequestSchema, body, channelLabel(channel), problems);
      return parsed === undefined ? undefined : { channel, body: parsed };
    }
    case 'push': {
      const parsed = parseBody(PushRequestSchema, body, channelLabel(channel), problems);
      return parsed === undefined ? undefined : { channel, body: parsed };
    }
    case 'messenger-notice': {
      const parsed = parseBody(MessengerNoticeRequestSchema, body, channelLabel(channel), problems);
      return parsed === undefined ? undefined : { channel, body: parsed };
    }
    case 'brand-template': {
      const parsed = parseBody(BrandTemplateRequestSchema, body, channelLabel(channel), problems);
      return parsed === undefined ? undefined : { channel, body: parsed };
    }
    case 'brand-free': {
      const parsed = parseBody(BrandFreeRequestSchema, body, channelLabel(channel), problems);
      return parsed === undefined ? undefined : { channel, body: parsed };
    }
  }
};

// --- checks that need a clock or more than one field ------------------------------------------

const RESV_REQ_DT_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;

/**
 * `resvReqDt` (KST wall clock) must lie after `now` and at most 30 days ahead (spec 01 §8).
 * Its format is the request schema's concern; a malformed value is not checked again here.
 */
const scheduleProblems = (body: JsonObject, now: Date): Problem[] => {
  const value = body.resvReqDt;
  if (body.resvYn !== 'Y' || typeof value !== 'string' || !RESV_REQ_DT_PATTERN.test(value)) {
    return [];
  }
  const instant = parseGatewayDateTime(value);
  if (instant === undefined) return [];
  const at = Date.parse(instant);
  const latest = now.getTime() + SCHEDULE_HORIZON_DAYS * DAY_MS;
  if (at <= now.getTime()) {
    return [
      {
        path: '$.resvReqDt',
        message: `${value} KST is not in the future (it is now ${formatKst(now, 'YYYY-MM-DD HH:mm:ss')} KST)`,
      },
    ];
  }
  if (at > latest) {
    return [
      {
        path: '$.resvReqDt',
        message: `${value} KST is more than ${SCHEDULE_HORIZON_DAYS} days ahead; the latest allowed now is ${formatKst(latest, 'YYYY-MM-DD HH:mm')} KST (spec 01 §8)`,
      },
    ];
  }
  return [];
};

/** `#{name}`: text, notification, push, brand messages and every SMS/MMS fallback. */
const HASH_VARIABLE = /#\{([^{}]+)\}/g;
const HAS_HASH_VARIABLE = /#\{[^{}]+\}/;
/** `{{name}}`: RCS. */
const BRACE_VARIABLE = /\{\{([^{}]+)\}\}/g;

export interface VariableSource {
  /** Top-level fields whose strings (at any depth) may hold variables. */
  readonly fields: readonly string[];
  readonly syntax: '#{name}' | '{{name}}';
}

/**
 * Where each channel's message text may carry template variables (spec 01 §2, RecvInfo).
 * `fbInfoLst` is SMS/MMS text, so it uses `#{name}` on every channel. Fields that are not text
 * shown to the recipient (`ext`, image URLs, ids) are not searched. A brand template's and an
 * RCS template's own text is registered with the gateway (`tmpltCode`, `messagebaseId`), not
 * in the request, so their variables cannot be seen here.
 */
export const VARIABLE_SOURCES: Record<
  Exclude<SendChannel, 'rcs-reply'>,
  readonly VariableSource[]
> = {
  sms: [{ fields: ['msg', 'fbInfoLst'], syntax: '#{name}' }],
  mms: [{ fields: ['title', 'msg', 'fbInfoLst'], syntax: '#{name}' }],
  rcs: [
    { fields: ['buttons'], syntax: '{{name}}' },
    { fields: ['fbInfoLst'], syntax: '#{name}' },
  ],
  push: [{ fields: ['msg', 'fbInfoLst'], syntax: '#{name}' }],
  'messenger-notice': [
    {
      fields: [
        'title',
        'itemHeader',
        'itemHighlightTitle',
        'itemHighlightDescription',
        'msg',
        'item',
        'buttons',
        'fbInfoLst',
      ],
      syntax: '#{name}',
    },
  ],
  'brand-template': [{ fields: ['fbInfoLst'], syntax: '#{name}' }],
  'brand-free': [
    {
      fields: [
        'content',
        'header',
        'additionalContent',
        'buttons',
        'coupon',
        'wideItemList',
        'commerce',
        'carousel',
        'fbInfoLst',
      ],
      syntax: '#{name}',
    },
  ],
};

interface VariableUse {
  /** The `mergeData` key that must be present. */
  readonly key: string;
  /** As written in the text, e.g. `#{name}`. */
  readonly written: string;
  /** Where it was first seen. */
  readonly path: string;
}

const collectVariables = (
  value: unknown,
  path: PropertyKey[],
  pattern: RegExp,
  uses: Map<string, VariableUse>,
  keySuffix = '',
): void => {
  if (typeof value === 'string') {
    for (const match of value.matchAll(pattern)) {
      const name = (match[1] ?? '').trim();
      const key = `${name}${keySuffix}`;
      if (name !== '' && !uses.has(key)) {
        uses.set(key, { key, written: match[0], path: jsonPath(path) });
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      collectVariables(item, [...path, index], pattern, uses, keySuffix);
    });
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      collectVariables(item, [...path, key], pattern, uses, keySuffix);
    }
  }
};

/**
 * Carousel commerce (spec 01 §4.9): a variable inside the commerce object of carousel `N`
 * (1-based position in `carousel.list`) is looked up as `name_N`; elsewhere as `name`.
 */
const collectCarouselVariables = (carousel: unknown, uses: Map<string, VariableUse>): void => {
  if (!isObject(carousel)) {
    collectVariables(carousel, ['carousel'], HASH_VARIABLE, uses);
    return;
  }
  for (const [key, value] of Object.entries(carousel)) {
    if (key !== 'list' || !Array.isArray(value)) {
      collectVariables(value, ['carousel', key], HASH_VARIABLE, uses);
      continue;
    }
    value.forEach((item, index) => {
      const itemPath = ['carousel', 'list', index];
      if (!isObject(item)) {
        collectVariables(item, itemPath, HASH_VARIABLE, uses);
        return;
      }
      for (const [field, fieldValue] of Object.entries(item)) {
        const suffix = field === 'commerce' ? `_${index + 1}` : '';
        collectVariables(fieldValue, [...itemPath, field], HASH_VARIABLE, uses, suffix);
      }
    });
  }
};

/** Every variable the message text uses, keyed by the `mergeData` key it needs. */
export const templateVariablesOf = (
  channel: SendChannel,
  body: JsonObject,
): Map<string, VariableUse> => {
  const uses = new Map<string, VariableUse>();
  if (channel === 'rcs-reply') return uses;
  const carouselCommerce = channel === 'brand-free' && body.chatBubbleType === 'CAROUSEL_COMMERCE';
  for (const source of VARIABLE_SOURCES[channel]) {
    const pattern = source.syntax === '#{name}' ? HASH_VARIABLE : BRACE_VARIABLE;
    for (const field of source.fields) {
      if (field === 'carousel' && carouselCommerce) collectCarouselVariables(body[field], uses);
      else collectVariables(body[field], [field], pattern, uses);
    }
  }
  return uses;
};

/** Every variable used in the text must have a value in every recipient's `mergeData`. */
const variableProblems = (channel: SendChannel, body: JsonObject): Problem[] => {
  const recipients = body.recvInfoLst;
  if (channel === 'rcs-reply' || !Array.isArray(recipients)) return [];
  const uses = [...templateVariablesOf(channel, body).values()];
  if (uses.length === 0) return [];
  const problems: Problem[] = [];
  recipients.forEach((recipient, index) => {
    if (!isObject(recipient)) return;
    const mergeData = recipient.mergeData ?? {};
    // A mergeData that is not an object is reported by the request schema.
    if (!isObject(mergeData)) return;
    for (const use of uses) {
      if (Object.hasOwn(mergeData, use.key)) continue;
      problems.push({
        path: jsonPath(['recvInfoLst', index, 'mergeData']),
        message: `recipient ${index} has no mergeData "${use.key}" for ${use.written} used in ${use.path}`,
      });
    }
  });
  return problems;
};

// --- texts as each recipient receives them ---------------------------------------------------

/** Spec 01 §4.8 and §4.10 character limits (the schemas hold them inline). */
const NOTICE_MSG_MAX_CHARS = 1000;
const BRAND_CONTENT_MAX_CHARS: Partial<Record<string, number>> = {
  TEXT: 1300,
  IMAGE: 1300,
  WIDE: 76,
  PREMIUM_VIDEO: 76,
};

interface LimitedText {
  readonly path: PropertyKey[];
  readonly text: string;
  /** Problems of the text, as `cp949TextIssues` words them ("is 96 bytes …"). */
  readonly issues: (text: string) => string[];
}

const characterLimit =
  (max: number) =>
  (text: string): string[] => {
    const length = charCount(text);
    return length > max ? [`is ${length} characters; max ${max}`] : [];
  };

const fallbackTexts = (body: JsonObject): LimitedText[] => {
  const fallbacks = Array.isArray(body.fbInfoLst) ? body.fbInfoLst : [];
  return fallbacks.flatMap((fallback, index): LimitedText[] => {
    if (!isObject(fallback) || (fallback.ch !== 'SMS' && fallback.ch !== 'MMS')) return [];
    const channel = fallback.ch;
    const texts: LimitedText[] = [];
    if (typeof fallback.msg === 'string') {
      const max = channel === 'MMS' ? MMS_MAX_BYTES : SMS_MAX_BYTES;
      texts.push({
        path: ['fbInfoLst', index, 'msg'],
        text: fallback.msg,
        issues: (text) => cp949TextIssues(text, max, channel),
      });
    }
    if (typeof fallback.title === 'string') {
      texts.push({
        path: ['fbInfoLst', index, 'title'],
        text: fallback.title,
        issues: (text) => cp949TextIssues(text, MMS_TITLE_MAX_BYTES, 'MMS title'),
      });
    }
    return texts;
  });
};

/** The texts with a length limit that `#{name}` variables can change, per channel. */
const limitedTexts = (channel: SendChannel, body: JsonObject): LimitedText[] => {
  const texts = fallbackTexts(body);
  const add = (path: PropertyKey[], value: unknown, issues: (text: string) => string[]) => {
    if (typeof value === 'string') texts.push({ path, text: value, issues });
  };
  switch (channel) {
    case 'sms':
      add(['msg'], body.msg, (text) => cp949TextIssues(text, SMS_MAX_BYTES, 'SMS'));
      break;
    case 'mms':
      add(['msg'], body.msg, (text) => cp949TextIssues(text, MMS_MAX_BYTES, 'MMS'));
      add(['title'], body.title, (text) => cp949TextIssues(text, MMS_TITLE_MAX_BYTES, 'MMS title'));
      break;
    case 'push': {
      const msg = isObject(body.msg) ? body.msg : {};
      if (typeof msg.title === 'string' && typeof msg.body === 'string') {
        // Title and body are held to 2000 together (see PushMessageSchema); joined, they are
        // filled in and counted as one text.
        add(['msg'], `${msg.title}${msg.body}`, characterLimit(PUSH_MSG_MAX_CHARS));
      }
      break;
    }
    case 'messenger-notice':
      add(['msg'], body.msg, characterLimit(NOTICE_MSG_MAX_CHARS));
      break;
    case 'brand-free': {
      const max =
        typeof body.chatBubbleType === 'string'
          ? BRAND_CONTENT_MAX_CHARS[body.chatBubbleType]
          : undefined;
      if (max !== undefined) add(['content'], body.content, characterLimit(max));
      break;
    }
    default:
      break;
  }
  return texts;
};

/** `#{name}` replaced by the recipient's value; names without a value stay as written. */
const fillIn = (text: string, mergeData: JsonObject): string =>
  text.replace(HASH_VARIABLE, (written, name: string) => {
    const value = mergeData[name.trim()];
    return typeof value === 'string' ? value : written;
  });

/**
 * The byte and character limits hold for the text each recipient receives: the request schema
 * counts `#{name}` as written, so a long name can push a valid template over the limit, and a
 * value can hold an emoji SMS cannot carry. Texts that already fail as written are reported by
 * the schema and not again per recipient.
 */
const filledTextProblems = (channel: SendChannel, body: JsonObject): Problem[] => {
  const recipients = body.recvInfoLst;
  if (!Array.isArray(recipients)) return [];
  const texts = limitedTexts(channel, body).filter(
    (limited) => HAS_HASH_VARIABLE.test(limited.text) && limited.issues(limited.text).length === 0,
  );
  const problems: Problem[] = [];
  recipients.forEach((recipient, index) => {
    if (!isObject(recipient) || !isObject(recipient.mergeData)) return;
    for (const limited of texts) {
      for (const issue of limited.issues(fillIn(limited.text, recipient.mergeData))) {
        problems.push({
          path: jsonPath(['recvInfoLst', index, 'mergeData']),
          message: `${jsonPath(limited.path)} filled in for recipient ${index}: ${issue}`,
        });
      }
    }
  });
  return problems;
};

/**
 * `cliKey`s must be unique in the message. The request schema checks this too, but zod skips a
 * list's own check once an item has a missing or mistyped field; this one always runs.
 */
const duplicateCliKeyProblems = (body: JsonObject): Problem[] => {
  const recipients = body.recvInfoLst;
  if (!Array.isArray(recipients)) return [];
  const first = new Map<string, number>();
  const problems: Problem[] = [];
  recipients.forEach((recipient, index) => {
    if (!isObject(recipient) || typeof recipient.cliKey !== 'string') return;
    const earlier = first.get(recipient.cliKey);
    if (earlier === undefined) first.set(recipient.cliKey, index);
    else {
      problems.push({
        path: jsonPath(['recvInfoLst', index, 'cliKey']),
        message: `cliKey "${recipient.cliKey}" repeats recipient ${earlier}'s; cliKeys must be unique`,
      });
    }
  });
  return problems;
};

/** S3 attachments go through the multipart endpoint, which takes no file ids. */
const attachmentProblems = (raw: JsonObject): Problem[] => {
  const attachments = raw.attachments;
  if (!Array.isArray(attachments) || attachments.length === 0) return [];
  const problems: Problem[] = [];
  if (raw.fileIdLst !== undefined) {
    problems.push({
      path: '$.fileIdLst',
      message:
        'use either attachments (S3 objects, sent multipart) or fileIdLst (uploaded file ids), not both',
    });
    const total = attachments.length + (Array.isArray(raw.fileIdLst) ? raw.fileIdLst.length : 0);
    if (total > MAX_MMS_FILES) {
      problems.push({
        path: '$.attachments',
        message: `${total} files in total; an MMS carries at most ${MAX_MMS_FILES} (spec 01 §8)`,
      });
    }
  }
  if (raw.variant === 'msg') {
    problems.push({
      path: '$.variant',
      message:
        'attachments are sent through {send_url}/xms/mms/file/v1; variant "msg" has no multipart path: omit variant or use "xms"',
    });
  }
  return problems;
};

const crossFieldProblems = (
  channel: SendChannel,
  raw: JsonObject,
  body: JsonObject,
  now: Date,
): Problem[] => [
  ...scheduleProblems(body, now),
  ...duplicateCliKeyProblems(body),
  ...variableProblems(channel, body),
  ...filledTextProblems(channel, body),
  ...(channel === 'mms' ? attachmentProblems(raw) : []),
];

/** Keeps the first problem of each path and message. */
const distinct = (problems: readonly Problem[]): Problem[] => {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * Parses one queue message and reports every problem at once: the envelope (`channel`,
 * `variant`, `attachments`), the channel's request schema (field rules, CP949 byte limits,
 * recipients, buttons, fallbacks, `cliKey`s, `resvReqDt` format), the 30-day scheduling horizon
 * against `now`, template variables in every recipient's `mergeData`, and attachments against
 * file ids. The producer helper, the `validate` command and the sender all call this.
 *
 * zod runs an object's cross-field refinements only when none of its fields has a missing or
 * mistyped value, so a message with such an error may show further problems once it is fixed.
 */
export const parseSendMessage = (
  input: unknown,
  options: { now: Date },
): ParseSendMessageResult => {
  if (!isObject(input)) {
    return { ok: false, problems: [{ path: '$', message: 'a queue message is a JSON object' }] };
  }
  const problems: Problem[] = [];
  const envelope = SendEnvelopeSchema.safeParse(input, parseParams);
  if (!envelope.success) problems.push(...toProblems(envelope.error.issues));

  const channel = oneOf(SEND_CHANNELS, input.channel);
  if (channel === undefined) return { ok: false, problems };

  const ownKeys = envelopeKeys(channel);
  const body = Object.fromEntries(Object.entries(input).filter(([key]) => !ownKeys.includes(key)));
  const message = parseChannelBody(
    channel,
    envelope.success ? envelope.data : undefined,
    input,
    body,
    problems,
  );
  problems.push(...crossFieldProblems(channel, input, body, options.now));

  if (message === undefined || problems.length > 0) {
    return { ok: false, problems: distinct(problems) };
  }
  return { ok: true, message };
};

// ---------------------------------------------------------------------------------------------
// Working with parsed messages
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

/** The recipients of a message in order; a two-way RCS reply has exactly one. */
export const recipientsOf = (message: SendMessage): Array<{ cliKey: string; phone?: string }> => {
  if (message.channel === 'rcs-reply') {
    return [{ cliKey: message.body.cliKey, phone: message.body.phone }];
  }
  const list: ReadonlyArray<{ cliKey: string; phone?: string | undefined }> =
    message.body.recvInfoLst;
  return list.map(({ cliKey, phone }) => (phone === undefined ? { cliKey } : { cliKey, phone }));
};

/** Thrown by {@link withRecipients} when the selection does not fit the message. */
export class RecipientSelectionError extends Error {
  override readonly name = 'RecipientSelectionError';
  constructor(
    readonly requested: readonly string[],
    readonly unknown: readonly string[],
  ) {
    super(
      unknown.length > 0
        ? `cliKeys not in the message: ${unknown.join(', ')}`
        : 'at least one cliKey must be selected',
    );
  }
}

const keepRecipients = <M extends { body: { recvInfoLst: Array<{ cliKey: string }> } }>(
  message: M,
  keep: ReadonlySet<string>,
): M => ({
  ...message,
  body: {
    ...message.body,
    recvInfoLst: message.body.recvInfoLst.filter((recipient) => keep.has(recipient.cliKey)),
  },
});

/**
 * The same message with only the recipients whose `cliKey` is listed, in their original order:
 * how the sender retries some recipients of a request. A two-way RCS reply has one recipient
 * and is returned as is. Throws {@link RecipientSelectionError} for an empty selection or a
 * `cliKey` the message does not have (a bug in the caller, not a message problem).
 */
export const withRecipients = (message: SendMessage, cliKeys: readonly string[]): SendMessage => {
  const present = new Set(recipientsOf(message).map((recipient) => recipient.cliKey));
  const unknown = cliKeys.filter((cliKey) => !present.has(cliKey));
  if (unknown.length > 0 || cliKeys.length === 0) {
    throw new RecipientSelectionError(cliKeys, unknown);
  }
  if (message.channel === 'rcs-reply') return message;
  return keepRecipients(message, new Set(cliKeys));
};

// ---------------------------------------------------------------------------------------------
// JSON Schema
// ---------------------------------------------------------------------------------------------

type JsonSchema = z.core.JSONSchema.JSONSchema;

export interface SendMessageJsonSchema extends JsonSchema {
  $schema: 'https://json-schema.org/draft/2020-12/schema';
  oneOf: JsonSchema[];
}

interface Branch {
  readonly title: string;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly envelope: Record<string, JsonSchema>;
  readonly required: readonly string[];
  readonly extra?: JsonSchema;
}

/** A nested schema must not repeat `$schema`: only the root declares the dialect. */
const withoutDialect = ({ $schema: _, ...schema }: JsonSchema): JsonSchema => schema;

const TEXT_VARIANT_JSON: JsonSchema = {
  type: 'string',
  enum: [...TEXT_VARIANTS],
  default: 'xms',
  description: '`xms` = {send_url}/xms/… (default); `msg` = {api_url}/msg/v1/…',
};

const branchesOfContract = (): Branch[] => {
  const channel = (name: SendChannel): JsonSchema => ({ const: name });
  const rcs = (variant: RcsVariant, schema: z.ZodType, path: string): Branch => ({
    title: `rcs (${variant})`,
    description: `RCS through ${path} (spec 01 §4.5).`,
    schema,
    envelope: { channel: channel('rcs'), variant: { const: variant } },
    required: ['channel', 'variant'],
  });
  return [
    {
      title: 'sms',
      description: 'SMS (spec 01 §4.3). msg max 90 bytes counted as CP949.',
      schema: SmsRequestSchema,
      envelope: { channel: channel('sms'), variant: TEXT_VARIANT_JSON },
      required: ['channel'],
    },
    {
      title: 'mms',
      description:
        'MMS (spec 01 §4.4). title max 40, msg max 2000 bytes counted as CP949. S3 `attachments` are sent through {send_url}/xms/mms/file/v1 and exclude `fileIdLst`.',
      schema: MmsRequestSchema,
      envelope: {
        channel: channel('mms'),
        variant: TEXT_VARIANT_JSON,
        attachments: withoutDialect(
          z.toJSONSchema(ENVELOPES.mms.shape.attachments.unwrap(), {
            io: 'input',
            target: 'draft-2020-12',
          }),
        ),
      },
      required: ['channel'],
      extra: { not: { required: ['attachments', 'fileIdLst'] } },
    },
    rcs('v1', RcsV1RequestSchema, '{api_url}/msg/v1/rcs'),
    rcs('v1.1', RcsV11RequestSchema, '{api_url}/msg/v1.1/rcs'),
    rcs('integrated', RcsIntegratedRequestSchema, '{send_url}/rcs/v1.1 (header 0 only)'),
    {
      title: 'rcs-reply',
      description: 'Two-way RCS reply through {send_url}/rcs/bi/v1.1 (spec 01 §4.6).',
      schema: RcsReplyRequestSchema,
      envelope: { channel: channel('rcs-reply') },
      required: ['channel'],
    },
    {
      title: 'push',
      description: 'Push through {api_url}/msg/v1/push (spec 01 §4.7).',
      schema: PushRequestSchema,
      envelope: { channel: channel('push') },
      required: ['channel'],
    },
    {
      title: 'messenger-notice',
      description: 'Messenger notification through {send_url}/msgr/notice/v1.2 (spec 01 §4.8).',
      schema: MessengerNoticeRequestSchema,
      envelope: { channel: channel('messenger-notice') },
      required: ['channel'],
    },
    {
      title: 'brand-template',
      description: 'Brand message, template type, through {send_url}/msgr/brand/tmplt/v1 (§4.9).',
      schema: BrandTemplateRequestSchema,
      envelope: { channel: channel('brand-template') },
      required: ['channel'],
    },
    {
      title: 'brand-free',
      description: 'Brand message, free type, through {send_url}/msgr/brand/custom/v1 (§4.10).',
      schema: BrandFreeRequestSchema,
      envelope: { channel: channel('brand-free') },
      required: ['channel'],
    },
  ];
};

/**
 * The queue message contract as JSON Schema (draft 2020-12), one `oneOf` branch per channel and
 * per RCS variant, each the channel's request schema with the envelope fields added. It
 * describes structure only: byte counts, cross-field rules, the scheduling horizon and template
 * variables are checked by {@link parseSendMessage} (`msgbridge validate`).
 */
export const sendMessageJsonSchema = (): SendMessageJsonSchema => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'msgbridge send queue message',
  description:
    'One gateway send request (spec 01 §4.3–4.10, fields as the spec names them) plus `channel` and, where the spec has several paths, `variant`. Structure only: run `msgbridge validate` for every rule.',
  oneOf: branchesOfContract().map((branch) => {
    const request = withoutDialect(
      z.toJSONSchema(branch.schema, { io: 'input', target: 'draft-2020-12' }),
    );
    return {
      title: branch.title,
      description: branch.description,
      ...request,
      properties: { ...branch.envelope, ...request.properties },
      required: [...branch.required, ...(request.required ?? [])],
      ...branch.extra,
    };
  }),
});
