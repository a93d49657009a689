import {
  charCount,
  MAX_MMS_FILES,
  MMS_MAX_BYTES,
  MMS_TITLE_MAX_BYTES,
  SMS_MAX_BYTES,
} from '../../gateway/schemas/common.ts';
import { cp949TextIssues } from '../../gateway/schemas/cp949-text.ts';
import { PUSH_MSG_MAX_CHARS } from '../../gateway/schemas/send.ts';
import { formatKst, parseGatewayDateTime } from '../../protocol/kst.ts';
import type { SendChannel } from './channels.ts';
import {
  isObject,
  type JsonObject,
  jsonPath,
  type Problem,
  SCHEDULE_HORIZON_DAYS,
} from './queue-message.ts';

/*
 * The checks of a queue message that need a clock or more than one field: the 30-day scheduling
 * horizon, template variables in every recipient's `mergeData`, the byte and character limits of
 * the texts as each recipient receives them, unique `cliKey`s and S3 attachments against file ids.
 * They run on the raw input, next to the request schema, so every problem is reported at once.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

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

export const crossFieldProblems = (
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
