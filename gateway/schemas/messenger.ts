import {
  AgencySchema,
  CallbackSchema,
  charCount,
  checkReservation,
  lineBreakCount,
  optionalTexts,
  RecvInfoSchema,
  recipientsSchema,
  resvFieldsShape,
  ShortCodeSchema,
  senderFieldsShape,
  textSchema,
  YesNoSchema,
} from './common.ts';
import { fallbackListSchema } from './cp949-text.ts';
import { issue } from './issue.ts';
import * as z from './zod.ts';

/*
 * Messenger sends: notification messages (spec 01 §4.8) and brand messages, template and free
 * type (§4.9, §4.10). Requests are strict, except the objects whose fields the spec marks
 * "not shown" (brand buttons, coupon, carousel list, wide items), which pass unknown fields.
 * Each schema is built by its first parse (`z.lazy`), as in send.ts.
 */

// ---------------------------------------------------------------------------------------------
// Messenger notification (spec 01 §4.8)
// ---------------------------------------------------------------------------------------------

/** The button types of the spec's table; an enum so that a typo is caught here. */
export const MESSENGER_BUTTON_TYPES = ['WL', 'AL', 'BK', 'MD', 'BC', 'BT', 'DS', 'AC'] as const;
export const MAX_MESSENGER_BUTTONS = 5;

export const MessengerButtonSchema = z.lazy(() =>
  z
    .strictObject({
      name: textSchema(14),
      type: z.enum(MESSENGER_BUTTON_TYPES),
      ...optionalTexts('linkMo', 'linkPc', 'linkAnd', 'linkIos', 'url_mobile', 'url_pc'),
      ordering: z.optional(z.int()),
      varUrlYn: z.optional(YesNoSchema),
      /** A boolean; the string form `true`/`false` is also seen in the wild and accepted. */
      msgrBtnOutbrowserYn: z.optional(z.union([z.boolean(), z.enum(['true', 'false'])])),
      chat_extra: z.optional(z.string().check(z.maxLength(64))),
      chat_event: z.optional(z.string().check(z.maxLength(64))),
    })
    .check(
      z.superRefine((button, ctx) => {
        if (button.type === 'WL' && button.url_mobile === undefined) {
          issue(ctx, ['url_mobile'], 'a WL (web link) button needs url_mobile');
        }
        if (button.type === 'AL') {
          const links = [button.linkIos, button.linkAnd, button.linkMo].filter(
            (l) => l !== undefined,
          );
          if (links.length < 2) {
            issue(
              ctx,
              ['type'],
              'an AL (app link) button needs at least two of linkIos, linkAnd, linkMo',
            );
          }
        }
        if (button.chat_extra !== undefined && button.type !== 'BC' && button.type !== 'BT') {
          issue(ctx, ['chat_extra'], 'chat_extra is only used by BC and BT buttons');
        }
        if (button.chat_event !== undefined && button.type !== 'BT') {
          issue(ctx, ['chat_event'], 'chat_event is only used by BT buttons');
        }
      }),
    ),
);
export type MessengerButton = z.infer<typeof MessengerButtonSchema>;

/**
 * Up to 5 buttons; AC (add channel) only as the single or first button. The "no quick replies
 * with DS/AC" rule has nothing to bind to: this request has no quick-reply field.
 */
export const MessengerButtonsSchema = z.lazy(() =>
  z.array(MessengerButtonSchema).check(
    z.maxLength(MAX_MESSENGER_BUTTONS, `at most ${MAX_MESSENGER_BUTTONS} buttons (spec 01 §8)`),
    z.superRefine((buttons, ctx) => {
      buttons.forEach((button, index) => {
        if (button.type === 'AC' && index > 0) {
          issue(
            ctx,
            [index, 'type'],
            'an AC (add channel) button must be the single or first button',
          );
        }
      });
    }),
  ),
);

/**
 * Item-list summary description: "only variables, currency units, digits, comma, period". The
 * currency units accepted are the common symbols, ISO codes and Korean unit words.
 */
const SUMMARY_DESCRIPTION_PATTERN =
  /^(?:#\{[^{}]+\}|[0-9.,]|원|₩|\$|€|¥|£|KRW|USD|EUR|JPY|CNY|달러|엔|유로|위안)+$/;

export const MessengerItemSchema = z.lazy(() =>
  z.strictObject({
    list: z
      .array(z.strictObject({ title: textSchema(6), description: textSchema(23) }))
      .check(
        z.minLength(2, 'item.list needs 2 to 10 entries'),
        z.maxLength(10, 'item.list needs 2 to 10 entries'),
      ),
    summary: z.optional(
      z.strictObject({
        title: textSchema(6),
        description: z.optional(
          textSchema(14).check(
            z.regex(
              SUMMARY_DESCRIPTION_PATTERN,
              'summary description may hold only variables, currency units, digits, comma and period',
            ),
          ),
        ),
      }),
    ),
  }),
);
export type MessengerItem = z.infer<typeof MessengerItemSchema>;

/** `POST {send_url}/msgr/notice/v1.2`. The 30-day scheduling horizon is checked elsewhere. */
export const MessengerNoticeRequestSchema = z.lazy(() =>
  z
    .strictObject({
      ...senderFieldsShape,
      ...optionalTexts('title', 'itemHeader', 'itemHighlightTitle', 'itemHighlightDescription'),
      msg: textSchema(1000),
      item: z.optional(MessengerItemSchema),
      msgrChId: z.string().check(z.minLength(1), z.maxLength(61)),
      tmpltCode: z.string().check(z.minLength(1)),
      service: z.optional(z.int()),
      recvInfoLst: recipientsSchema(RecvInfoSchema),
      fbInfoLst: z.optional(fallbackListSchema()),
      buttons: z.optional(MessengerButtonsSchema),
      groupKey: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    })
    .check(z.superRefine(checkReservation)),
);
export type MessengerNoticeRequest = z.infer<typeof MessengerNoticeRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Brand messages (spec 01 §4.9, §4.10)
// ---------------------------------------------------------------------------------------------

export const BRAND_CHAT_BUBBLE_TYPES = [
  'TEXT',
  'IMAGE',
  'WIDE',
  'WIDE_ITEM_LIST',
  'CAROUSEL_FEED',
  'CAROUSEL_COMMERCE',
  'COMMERCE',
  'PREMIUM_VIDEO',
] as const;
export type BrandChatBubbleType = (typeof BRAND_CHAT_BUBBLE_TYPES)[number];

/** `M` information then normal, `N` normal, `I` information. */
export const BrandTargetingSchema = z.enum(['M', 'N', 'I']);

const brandCommonShape = () => ({
  targeting: BrandTargetingSchema,
  ...resvFieldsShape,
  agency: z.optional(AgencySchema),
  pushAlarm: z.optional(YesNoSchema),
  msgrChId: z.string().check(z.minLength(1), z.maxLength(61)),
  chatBubbleType: z.enum(BRAND_CHAT_BUBBLE_TYPES),
  callback: CallbackSchema,
  recvInfoLst: recipientsSchema(RecvInfoSchema),
  fbInfoLst: z.optional(fallbackListSchema()),
  /** Opt-out number written 3-4-4 (`080-1234-5678`); shorter groups are allowed, max 13. */
  unsubscribePhoneNumber: z.optional(
    z
      .string()
      .check(
        z.maxLength(13),
        z.regex(
          /^\d{2,4}-\d{3,4}-\d{4}$/,
          'unsubscribePhoneNumber must be hyphenated, like 080-1234-5678',
        ),
      ),
  ),
  /** Extension of the opt-out number. */
  unsubscribeAuthNumber: z.optional(z.string().check(z.minLength(1), z.maxLength(10))),
});

/** Without its phone number an extension means nothing (spec 01 §4.9). */
const checkUnsubscribe = (
  value: { unsubscribePhoneNumber?: string; unsubscribeAuthNumber?: string },
  ctx: z.core.$RefinementCtx,
): void => {
  if (value.unsubscribeAuthNumber !== undefined && value.unsubscribePhoneNumber === undefined) {
    issue(
      ctx,
      ['unsubscribeAuthNumber'],
      'unsubscribeAuthNumber is not allowed without unsubscribePhoneNumber',
    );
  }
};

/** `POST {send_url}/msgr/brand/tmplt/v1`. */
export const BrandTemplateRequestSchema = z.lazy(() =>
  z.strictObject({ ...brandCommonShape(), tmpltCode: z.string().check(z.minLength(1)) }).check(
    z.superRefine((value, ctx) => {
      checkReservation(value, ctx);
      checkUnsubscribe(value, ctx);
    }),
  ),
);
export type BrandTemplateRequest = z.infer<typeof BrandTemplateRequestSchema>;

export const BRAND_BUTTON_TYPES = ['WL', 'AL', 'BK', 'MD', 'AC', 'BF'] as const;

/**
 * A brand-message button. Its full field list is "not shown" (spec 01 §4.10), so unknown fields
 * pass; the per-type requirements the spec does give are checked. The fixed labels of AC and BF
 * buttons are not given and so not checked.
 */
export const BrandButtonSchema = z.lazy(() =>
  z
    .looseObject({
      name: z.string().check(z.minLength(1)),
      type: z.enum(BRAND_BUTTON_TYPES),
      ...optionalTexts('linkMobile', 'linkPc', 'linkAndroid', 'linkIos'),
      bizFormId: z.optional(z.union([z.string().check(z.minLength(1)), z.number()])),
    })
    .check(
      z.superRefine((button, ctx) => {
        if (button.type === 'WL' && button.linkMobile === undefined) {
          issue(ctx, ['linkMobile'], 'a WL (web link) button needs linkMobile');
        }
        if (button.type === 'AL') {
          const links = [button.linkIos, button.linkAndroid, button.linkMobile];
          if (links.filter((l) => l !== undefined).length < 2) {
            issue(
              ctx,
              ['type'],
              'an AL (app link) button needs two of linkIos, linkAndroid, linkMobile',
            );
          }
        }
        if (button.type === 'BF' && button.bizFormId === undefined) {
          issue(ctx, ['bizFormId'], 'a BF (business form) button needs bizFormId');
        }
      }),
    ),
);
export type BrandButton = z.infer<typeof BrandButtonSchema>;

const BRAND_PRICE_MAX = 99_999_999;

/** COMMERCE bubble's product: discountRate and discountFixed are alternatives. */
export const BrandCommerceSchema = z.lazy(() =>
  z
    .strictObject({
      title: textSchema(30),
      regularPrice: z.number().check(z.minimum(0), z.maximum(BRAND_PRICE_MAX)),
      discountPrice: z.number().check(z.minimum(0), z.maximum(BRAND_PRICE_MAX)),
      discountRate: z.optional(z.number().check(z.minimum(1), z.maximum(100))),
      discountFixed: z.optional(z.number().check(z.minimum(0), z.maximum(999_999))),
    })
    .check(
      z.superRefine((commerce, ctx) => {
        if (commerce.discountRate !== undefined && commerce.discountFixed !== undefined) {
          issue(ctx, ['discountFixed'], 'use either discountRate or discountFixed, not both');
        }
      }),
    ),
);
export type BrandCommerce = z.infer<typeof BrandCommerceSchema>;

/** `carousel.head`: header required once a head is used; linkMobile required once any link is. */
export const BrandCarouselHeadSchema = z.lazy(() =>
  z
    .strictObject({
      header: z.string().check(z.minLength(1)),
      ...optionalTexts('content', 'imageUrl', 'linkMobile', 'linkPc', 'linkAnd', 'linkIos'),
    })
    .check(
      z.superRefine((head, ctx) => {
        const otherLink = head.linkPc ?? head.linkAnd ?? head.linkIos;
        if (otherLink !== undefined && head.linkMobile === undefined) {
          issue(ctx, ['linkMobile'], 'linkMobile is required when the carousel head has any link');
        }
      }),
    ),
);

/** The carousel list fields are "not shown", so everything beyond `head` passes as given. */
export const BrandCarouselSchema = z.lazy(() =>
  z.looseObject({ head: z.optional(BrandCarouselHeadSchema) }),
);
/** Coupon fields: "not shown". */
export const BrandCouponSchema = z.lazy(() => z.looseObject({}));
/** wideItemList entry fields: "not shown". */
export const BrandWideItemSchema = z.lazy(() => z.looseObject({}));

/** The fields of §4.10 that belong to some bubble types only. */
type ScopedField =
  | 'imageUrl'
  | 'imageLink'
  | 'header'
  | 'wideItemList'
  | 'video'
  | 'additionalContent'
  | 'commerce'
  | 'carousel';

interface BubbleRules {
  /** Content limit; absent where the spec gives none. */
  readonly content?: { readonly max: number; readonly maxLineBreaks: number };
  /** Button count; `undefined` = buttons not usable. `max` is lowered by one with a coupon. */
  readonly buttons?: { readonly min: number; readonly max: number; readonly couponMax?: number };
  /** Where an AC button may stand: first for TEXT/IMAGE, last for the others. */
  readonly addChannelAt: 'first' | 'last';
  readonly couponAllowed: boolean;
  readonly required: readonly ScopedField[];
  /** Scoped fields usable with this type (imageUrl is not scoped, only required by some). */
  readonly allowed: readonly ScopedField[];
}

const LONG_CONTENT = { max: 1300, maxLineBreaks: 99 } as const;
const SHORT_CONTENT = { max: 76, maxLineBreaks: 5 } as const;

/** A row of {@link BUBBLE_RULES}: most types put an AC button last and take a coupon. */
const bubble = (rules: Partial<BubbleRules>): BubbleRules => ({
  addChannelAt: 'last',
  couponAllowed: true,
  required: [],
  allowed: [],
  ...rules,
});

/** TEXT and IMAGE: long content, five buttons (four with a coupon), an AC button first. */
const LONG_BUBBLE = {
  content: LONG_CONTENT,
  buttons: { min: 0, max: 5, couponMax: 4 },
  addChannelAt: 'first',
} as const;

/** spec 01 §4.10, one row per chatBubbleType. */
const BUBBLE_RULES: Record<BrandChatBubbleType, BubbleRules> = {
  TEXT: bubble(LONG_BUBBLE),
  IMAGE: bubble({ ...LONG_BUBBLE, required: ['imageUrl'], allowed: ['imageLink'] }),
  WIDE: bubble({
    content: SHORT_CONTENT,
    buttons: { min: 0, max: 2 },
    required: ['imageUrl'],
    allowed: ['imageLink'],
  }),
  WIDE_ITEM_LIST: bubble({
    buttons: { min: 0, max: 2 },
    required: ['header', 'wideItemList'],
    allowed: ['header', 'wideItemList'],
  }),
  CAROUSEL_FEED: bubble({ couponAllowed: false, allowed: ['carousel'] }),
  CAROUSEL_COMMERCE: bubble({
    couponAllowed: false,
    required: ['carousel'],
    allowed: ['carousel'],
  }),
  COMMERCE: bubble({
    buttons: { min: 1, max: 2 },
    required: ['imageUrl', 'commerce'],
    allowed: ['additionalContent', 'commerce'],
  }),
  PREMIUM_VIDEO: bubble({
    content: SHORT_CONTENT,
    buttons: { min: 0, max: 1 },
    required: ['video'],
    allowed: ['header', 'video'],
  }),
};

const SCOPED_FIELDS: readonly ScopedField[] = [
  'imageLink',
  'header',
  'wideItemList',
  'video',
  'additionalContent',
  'commerce',
  'carousel',
];

/** `POST {send_url}/msgr/brand/custom/v1`: the fields of §4.9 without tmpltCode, plus §4.10's. */
export const BrandFreeRequestSchema = z.lazy(() =>
  z
    .strictObject({
      ...brandCommonShape(),
      campaignId: z.optional(ShortCodeSchema),
      deptCode: z.optional(ShortCodeSchema),
      adult: z.optional(z.boolean()),
      content: z.optional(z.string().check(z.minLength(1))),
      buttons: z.optional(z.array(BrandButtonSchema)),
      coupon: z.optional(BrandCouponSchema),
      imageUrl: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
      imageLink: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
      header: z.optional(textSchema(20)),
      wideItemList: z.optional(
        z.array(BrandWideItemSchema).check(z.length(3, 'wideItemList needs exactly 3 entries')),
      ),
      video: z.optional(
        z.strictObject({
          videoUrl: z.string().check(z.minLength(1)),
          thumbnailUrl: z.optional(z.string().check(z.minLength(1))),
        }),
      ),
      additionalContent: z.optional(textSchema(34, { maxLineBreaks: 1 })),
      commerce: z.optional(BrandCommerceSchema),
      carousel: z.optional(BrandCarouselSchema),
    })
    .check(
      z.superRefine((value, ctx) => {
        checkReservation(value, ctx);
        checkUnsubscribe(value, ctx);
        const type = value.chatBubbleType;
        const rules = BUBBLE_RULES[type];

        if (type === 'TEXT' && value.content === undefined) {
          issue(ctx, ['content'], 'a TEXT brand message needs content');
        }
        if (rules.content !== undefined && value.content !== undefined) {
          const length = charCount(value.content);
          const breaks = lineBreakCount(value.content);
          if (length > rules.content.max) {
            issue(
              ctx,
              ['content'],
              `${type} content is ${length} characters; max ${rules.content.max}`,
            );
          }
          if (breaks > rules.content.maxLineBreaks) {
            issue(
              ctx,
              ['content'],
              `${type} content has ${breaks} line breaks; max ${rules.content.maxLineBreaks}`,
            );
          }
        }

        const buttons = value.buttons ?? [];
        if (rules.buttons === undefined) {
          if (value.buttons !== undefined) issue(ctx, ['buttons'], `${type} does not take buttons`);
        } else {
          const max =
            value.coupon !== undefined && rules.buttons.couponMax !== undefined
              ? rules.buttons.couponMax
              : rules.buttons.max;
          if (buttons.length > max) {
            const withCoupon = max === rules.buttons.couponMax ? ' with a coupon' : '';
            issue(
              ctx,
              ['buttons'],
              `${type} takes at most ${max} buttons${withCoupon}; got ${buttons.length}`,
            );
          }
          if (buttons.length < rules.buttons.min) {
            issue(ctx, ['buttons'], `${type} needs at least ${rules.buttons.min} button`);
          }
        }
        buttons.forEach((button, index) => {
          if (button.type !== 'AC') return;
          const allowedIndex = rules.addChannelAt === 'first' ? 0 : buttons.length - 1;
          if (index !== allowedIndex) {
            issue(
              ctx,
              ['buttons', index, 'type'],
              `on ${type} an AC button may only be the ${rules.addChannelAt} button`,
            );
          }
        });

        if (!rules.couponAllowed && value.coupon !== undefined) {
          issue(ctx, ['coupon'], `${type} does not take a coupon`);
        }
        for (const field of rules.required) {
          if (value[field] === undefined) issue(ctx, [field], `${type} needs ${field}`);
        }
        for (const field of SCOPED_FIELDS) {
          if (value[field] !== undefined && !rules.allowed.includes(field)) {
            issue(ctx, [field], `${field} is not used with ${type}`);
          }
        }
      }),
    ),
);
export type BrandFreeRequest = z.infer<typeof BrandFreeRequestSchema>;
