/**
 * The simulator's own reading of spec 01 §4.8 (messenger notification) and §4.9/§4.10 (brand
 * messages, template and free type). See send-rules.ts for the common pieces.
 */
import {
  anyObject,
  at,
  bool,
  type Check,
  fail,
  flag,
  isObject,
  type Json,
  list,
  number,
  object,
  optional,
  required,
  type Shape,
  stringsIn,
  text,
  textProblem,
} from './send-checks.ts';
import { COMMON, type EndpointRules, LIMITED, LIMITS, type TextSlot } from './send-rules.ts';

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

// --- Notification (§4.8) ------------------------------------------------------------------------

const NOTICE_BUTTON_TYPES = ['WL', 'AL', 'BK', 'MD', 'BC', 'BT', 'DS', 'AC'];

/**
 * Summary description: "only variables, currency units, digits, comma, period". The currency
 * units accepted are the simulator's choice: 원, ₩, $, €, ¥, £, KRW, USD (and spaces).
 */
const SUMMARY_DESCRIPTION = /^(?:#\{[^}]+\}|[0-9,. ]|원|₩|\$|€|¥|£|KRW|USD)*$/;

/**
 * The links a button needs by its type: a web link (WL) its mobile URL `web`, an app link (AL)
 * two of the `app` links. Notification and brand buttons name their link fields differently.
 */
const linkRules = (
  button: Json,
  path: string,
  links: { readonly web: string; readonly app: readonly string[]; readonly twoOf: string },
) => {
  if (button.type === 'WL' && !present(button[links.web])) {
    fail(at(path, links.web), `a web link (WL) needs ${links.web}`);
  }
  if (button.type === 'AL' && links.app.filter((key) => present(button[key])).length < 2) {
    fail(path, `an app link (AL) needs ${links.twoOf} ${links.app.join(', ')}`);
  }
};

const noticeButton: Check = (value, path) => {
  object({
    name: required(text({ max: 14 })),
    type: required(text({ oneOf: NOTICE_BUTTON_TYPES })),
    linkMo: optional(text()),
    linkPc: optional(text()),
    linkAnd: optional(text()),
    linkIos: optional(text()),
    url_mobile: optional(text()),
    url_pc: optional(text()),
    ordering: optional(number({ integer: true })),
    varUrlYn: optional(text()),
    // A string `true` is also seen (spec 01 §4.8).
    msgrBtnOutbrowserYn: optional((inner, where) => {
      if (typeof inner !== 'boolean' && inner !== 'true' && inner !== 'false') {
        fail(where, 'must be a boolean');
      }
    }),
    chat_extra: optional(text({ max: 64 })),
    chat_event: optional(text({ max: 64 })),
  })(value, path);
  const button = value as Json;
  linkRules(button, path, {
    web: 'url_mobile',
    app: ['linkIos', 'linkAnd', 'linkMo'],
    twoOf: 'at least two of',
  });
  if (present(button.chat_extra) && button.type !== 'BC' && button.type !== 'BT') {
    fail(at(path, 'chat_extra'), 'is for button types BC and BT only');
  }
  if (present(button.chat_event) && button.type !== 'BT') {
    fail(at(path, 'chat_event'), 'is for button type BT only');
  }
};

export const NOTICE_RULES: EndpointRules = {
  shape: {
    ...COMMON,
    ...LIMITED,
    clickUrlYn: optional(flag),
    callback: required(text({ max: 20 })),
    title: optional(text()),
    itemHeader: optional(text()),
    itemHighlightTitle: optional(text()),
    itemHighlightDescription: optional(text()),
    msg: required(text(LIMITS.noticeMsg)),
    item: optional(
      object({
        list: required(
          list(
            object({ title: required(text({ max: 6 })), description: required(text({ max: 23 })) }),
            { min: 2, max: 10 },
          ),
        ),
        summary: optional(
          object({
            title: required(text({ max: 6 })),
            description: optional(text({ max: 14, pattern: SUMMARY_DESCRIPTION })),
          }),
        ),
      }),
    ),
    msgrChId: required(text({ max: 61 })),
    tmpltCode: required(text()),
    service: optional(number({ integer: true })),
    buttons: optional(list(noticeButton, { max: 5 })),
    groupKey: optional(text({ max: 200 })),
  },
  recipients: 'list',
  cross: (body) => {
    const buttons = Array.isArray(body.buttons) ? (body.buttons as Json[]) : [];
    buttons.forEach((button, index) => {
      if (button.type === 'AC' && index > 0) {
        fail(
          at(at('buttons', index), 'type'),
          'an add-channel button (AC) must be the only or first button',
        );
      }
    });
  },
  slots: (body) => [
    { path: 'msg', text: String(body.msg), syntax: 'hash', rule: LIMITS.noticeMsg },
    ...(['title', 'itemHeader', 'itemHighlightTitle', 'itemHighlightDescription'] as const).flatMap(
      (key): TextSlot[] =>
        typeof body[key] === 'string' ? [{ path: key, text: body[key], syntax: 'hash' }] : [],
    ),
    ...stringsIn(body.item, 'item').map(
      ([path, value]): TextSlot => ({ path, text: value, syntax: 'hash' }),
    ),
  ],
};

// --- Brand messages (§4.9, §4.10) -----------------------------------------------------------------

const CAROUSELS = ['CAROUSEL_FEED', 'CAROUSEL_COMMERCE'];
export const CHAT_BUBBLE_TYPES = [
  'TEXT',
  'IMAGE',
  'WIDE',
  'WIDE_ITEM_LIST',
  ...CAROUSELS,
  'COMMERCE',
  'PREMIUM_VIDEO',
];

const BRAND_COMMON: Shape = {
  ...COMMON,
  targeting: required(text({ oneOf: ['M', 'N', 'I'] })),
  pushAlarm: optional(flag),
  msgrChId: required(text({ max: 61 })),
  chatBubbleType: required(text({ oneOf: CHAT_BUBBLE_TYPES })),
  callback: required(text({ max: 20 })),
  // "max 13, hyphenated 3-4-4 style": the area part may be 2 to 4 digits (02-, 080-, 1588-).
  unsubscribePhoneNumber: optional(text({ max: 13, pattern: /^\d{2,4}-\d{3,4}-\d{4}$/ })),
  unsubscribeAuthNumber: optional(text({ max: 10 })),
};

const unsubscribePair = (body: Json) => {
  if (present(body.unsubscribeAuthNumber) && !present(body.unsubscribePhoneNumber)) {
    fail('unsubscribeAuthNumber', 'is not allowed without unsubscribePhoneNumber');
  }
};

export const BRAND_TEMPLATE_RULES: EndpointRules = {
  shape: { ...BRAND_COMMON, tmpltCode: required(text()) },
  recipients: 'list',
  cross: unsubscribePair,
};

const BRAND_BUTTON_TYPES = ['WL', 'AL', 'BK', 'MD', 'AC', 'BF'];

/** Brand free button: the spec shows only the type rules, so other fields are not refused. */
const brandButton: Check = (value, path) => {
  if (!isObject(value)) return fail(path, 'must be an object');
  text({ oneOf: BRAND_BUTTON_TYPES })(value.type, at(path, 'type'));
  linkRules(value, path, {
    web: 'linkMobile',
    app: ['linkIos', 'linkAndroid', 'linkMobile'],
    twoOf: 'two of',
  });
  if (value.type === 'BF' && !present(value.bizFormId)) {
    fail(at(path, 'bizFormId'), 'a business-form button (BF) needs bizFormId');
  }
};

const price = number({ min: 0, max: 99_999_999 });

const carouselHead: Check = (value, path) => {
  if (!isObject(value)) return fail(path, 'must be an object');
  if (!present(value.header)) fail(at(path, 'header'), 'is required when head is used');
  const links = ['linkPc', 'linkAnd', 'linkIos'].filter((key) => present(value[key]));
  if (links.length > 0 && !present(value.linkMobile)) {
    fail(at(path, 'linkMobile'), 'is required when any link is given');
  }
};

/** Content limits and button counts by bubble type (spec 01 §4.10). */
const BUBBLE = {
  content: {
    TEXT: { max: 1300, maxLines: 99 },
    IMAGE: { max: 1300, maxLines: 99 },
    WIDE: { max: 76, maxLines: 5 },
    PREMIUM_VIDEO: { max: 76, maxLines: 5 },
  },
  maxButtons: { TEXT: 5, IMAGE: 5, WIDE: 2, WIDE_ITEM_LIST: 2, PREMIUM_VIDEO: 1, COMMERCE: 2 },
} as const;

/** Which bubble types require each optional field, and which may carry it (spec 01 §4.10). */
const BUBBLE_FIELDS: Readonly<
  Record<string, { readonly required: readonly string[]; readonly allowed: readonly string[] }>
> = {
  imageUrl: { required: ['IMAGE', 'WIDE', 'COMMERCE'], allowed: ['IMAGE', 'WIDE', 'COMMERCE'] },
  imageLink: { required: [], allowed: ['IMAGE', 'WIDE'] },
  header: { required: ['WIDE_ITEM_LIST'], allowed: ['WIDE_ITEM_LIST', 'PREMIUM_VIDEO'] },
  wideItemList: { required: ['WIDE_ITEM_LIST'], allowed: ['WIDE_ITEM_LIST'] },
  video: { required: ['PREMIUM_VIDEO'], allowed: ['PREMIUM_VIDEO'] },
  additionalContent: { required: [], allowed: ['COMMERCE'] },
  commerce: { required: ['COMMERCE'], allowed: ['COMMERCE'] },
  carousel: { required: ['CAROUSEL_COMMERCE'], allowed: ['CAROUSEL_COMMERCE', 'CAROUSEL_FEED'] },
};

const bubbleRules = (body: Json) => {
  const type = String(body.chatBubbleType);
  const carousel = CAROUSELS.includes(type);
  for (const [key, rule] of Object.entries(BUBBLE_FIELDS)) {
    if (!present(body[key]) && rule.required.includes(type)) fail(key, `is required for ${type}`);
    if (present(body[key]) && !rule.allowed.includes(type)) fail(key, `is not used with ${type}`);
  }
  const contentRule = BUBBLE.content[type as keyof typeof BUBBLE.content];
  if (typeof body.content === 'string' && contentRule) {
    const problem = textProblem(body.content, contentRule);
    if (problem) fail('content', `${problem} for ${type}`);
  }
  if (carousel && present(body.coupon)) fail('coupon', `is not usable with ${type}`);
  const buttons = Array.isArray(body.buttons) ? (body.buttons as Json[]) : [];
  if (carousel && buttons.length > 0) fail('buttons', `are not usable with ${type}`);
  const max = BUBBLE.maxButtons[type as keyof typeof BUBBLE.maxButtons];
  const allowed = (type === 'TEXT' || type === 'IMAGE') && present(body.coupon) ? 4 : max;
  if (allowed !== undefined && buttons.length > allowed) {
    fail('buttons', `has ${buttons.length} buttons; ${type} takes at most ${allowed}`);
  }
  if (type === 'COMMERCE' && buttons.length < 1) fail('buttons', 'COMMERCE needs 1 to 2 buttons');
  buttons.forEach((button, index) => {
    if (button.type !== 'AC') return;
    const first = type === 'TEXT' || type === 'IMAGE';
    if (first ? index !== 0 : index !== buttons.length - 1) {
      fail(
        at(at('buttons', index), 'type'),
        first
          ? `AC must be the first button for ${type}`
          : `AC must be the last button for ${type}`,
      );
    }
  });
  if (
    isObject(body.commerce) &&
    present(body.commerce.discountRate) &&
    present(body.commerce.discountFixed)
  ) {
    fail('commerce', 'give discountRate or discountFixed, not both');
  }
  if (Array.isArray(body.wideItemList) && body.wideItemList.length !== 3) {
    fail('wideItemList', `needs exactly 3 entries, has ${body.wideItemList.length}`);
  }
};

export const BRAND_FREE_RULES: EndpointRules = {
  shape: {
    ...BRAND_COMMON,
    ...LIMITED,
    adult: optional(bool),
    content: optional(text()),
    buttons: optional(list(brandButton)),
    coupon: optional(anyObject),
    imageUrl: optional(text({ max: 500 })),
    imageLink: optional(text({ max: 500 })),
    header: optional(text({ max: 20 })),
    wideItemList: optional(list(anyObject)),
    video: optional(object({ videoUrl: required(text()), thumbnailUrl: optional(text()) })),
    additionalContent: optional(text({ max: 34, maxLines: 1 })),
    commerce: optional(
      object({
        title: required(text({ max: 30 })),
        regularPrice: required(price),
        discountPrice: required(price),
        discountRate: optional(number({ min: 1, max: 100 })),
        discountFixed: optional(number({ min: 0, max: 999_999 })),
      }),
    ),
    carousel: optional((value, path) => {
      if (!isObject(value)) return fail(path, 'must be an object');
      if (value.head !== undefined && value.head !== null)
        carouselHead(value.head, at(path, 'head'));
    }),
  },
  recipients: 'list',
  cross: (body) => {
    unsubscribePair(body);
    bubbleRules(body);
  },
};
