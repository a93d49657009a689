import { parseGatewayDateTime } from '../protocol/kst.ts';
import * as z from './zod.ts';

/*
 * The simulator's own reading of the spec 02 requests (messenger channels, groups, templates,
 * statistics): paths, body fields and limits, taken from `spec/02-messenger-channels-templates-
 * stats.md` alone so the simulator can disagree with the bridge's schemas. Where the spec is
 * silent, the choice is written next to the rule and in `simulator/README.md`:
 *
 * - lengths are characters (Unicode code points), as the spec says "chars", not bytes;
 * - a required string may not be empty; an unknown body field is refused (a misspelt field
 *   would otherwise be dropped without a word, which a test double should not hide);
 * - `senderType` / `senderKeyType` absent means `S`, the spec's default (the list call marks it
 *   "required" and "`S` default" at once; the default wins);
 * - a channel template needs `msgrChId`, a group template `msgrGrpId`, each as its sender type
 *   says; the other field is allowed and ignored.
 */

/** The five template states of spec 02 §2: registered, review requested, under review, approved, rejected. */
export const TEMPLATE_STATUSES = ['T', 'R', 'Q', 'A', 'S'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** `METHOD /path` of every spec 02 endpoint but the statistics (§4.1 to §4.4). */
export const MESSENGER_ROUTES = {
  templateCategories: 'POST /msgr/v2/channel/template/category/all',
  channelCategories: 'POST /msgr/v2/channel/category/all',
  groupsOfChannel: 'POST /msgr/v2/channel/group/list',
  addToGroup: 'POST /msgr/v2/channel/group/add',
  // Before `group/{groupKey}`, which would otherwise take `all` for a group key: the first
  // matching route wins.
  allGroups: 'GET /msgr/v2/channel/group/all',
  groupMembers: 'GET /msgr/v2/channel/group/{groupKey}',
  removeFromGroup: 'DELETE /msgr/v2/channel/group/remove',
  listChannels: 'POST /msgr/v2/msgrChannelList',
  channelToken: 'POST /msgr/v2/channel/token',
  restoreChannel: 'POST /msgr/v2/channel/restore',
  relayInfo: 'POST /msgr/v2/channel/relayinfo',
  recoverChannel: 'POST /msgr/v2/channel/recover',
  getChannel: 'POST /msgr/v2/channel/get',
  createChannel: 'POST /msgr/v2/channel/create',
  requestTemplate: 'POST /msgr/v2/channel/template/request',
  deleteTemplate: 'POST /msgr/v2/channel/template/delete',
  commentTemplate: 'POST /msgr/v2/channel/template/comment',
  listTemplates: 'POST /msgr/v2/channel/template/all',
  createTemplate: 'POST /msgr/v2/channel/template/create',
} as const;
export type MessengerRouteName = keyof typeof MESSENGER_ROUTES;

/** The seven read/click statistics of §4.5, all `GET` with the same query. */
export const MESSENGER_STAT_PATHS = {
  channelNoticeRead: '/msgr/v2/stat/msgrChId/noticeRead',
  channelBrandRead: '/msgr/v2/stat/msgrChId/brandRead',
  channelBrandClick: '/msgr/v2/stat/msgrChId/brandClick',
  templateNoticeRead: '/msgr/v2/stat/template/noticeRead',
  templateBrandRead: '/msgr/v2/stat/template/brandRead',
  templateNoticeClick: '/msgr/v2/stat/template/noticeClick',
  templateBrandClick: '/msgr/v2/stat/template/brandClick',
} as const;
export type MessengerStatName = keyof typeof MESSENGER_STAT_PATHS;

// ---- field rules (§2, §4, §8) ----

/** Characters as the spec counts them: Unicode code points. */
export const characters = (text: string): number => [...text].length;

/** A non-empty string of at most `max` characters. */
const text = (max: number) =>
  z.string().check(
    z.minLength(1, 'must not be empty'),
    z.refine((value) => characters(value) <= max, {
      error: (issue) => `is ${characters(String(issue.input))} characters; max ${max}`,
    }),
  );

/** Channel search id, max 61 (§2, §8). */
const channelId = text(61);
/** Group id of a group template, max 100 (§4.3). */
const groupId = text(100);
/** Template code: max 30, no spaces (§2). */
const templateCode = z
  .string()
  .check(z.regex(/^\S{1,30}$/, 'must be 1 to 30 characters without spaces'));
/** `S` one channel (the default) or `G` a channel group. */
const senderType = z._default(z.enum(['S', 'G']), 'S');
/**
 * Channel administrator number: "max 11" in `channel/token`, "11 chars" in the `tokens` of
 * `channel/create`, "11 chars" in §8. Read as at most 11 digits in both, since create must
 * accept the number the token call accepted.
 */
const adminPhone = z.string().check(z.regex(/^\d{1,11}$/, 'must be 1 to 11 digits'));

/** `YYYYMMDDHHMMSS`, 14 characters, a real date-time (read as KST). */
const compactDateTime = z.string().check(
  z.regex(/^\d{14}$/, 'expected YYYYMMDDHHMMSS'),
  z.refine((value) => parseGatewayDateTime(value) !== undefined, 'is not a real date-time'),
);

/** A rule across fields is broken: the answer names `field` (zod's own checks see one field). */
const refuse = (ctx: z.core.$RefinementCtx, field: string, message: string): void =>
  ctx.addIssue({ code: 'custom', path: [field], message });

/** A channel template names its channel, a group template its group (§4.3). */
const requireOwner =
  (typeField: 'senderType' | 'senderKeyType') =>
  (value: Readonly<Record<string, unknown>>, ctx: z.core.$RefinementCtx): void => {
    const type = value[typeField];
    const field = type === 'G' ? 'msgrGrpId' : 'msgrChId';
    if (value[field] === undefined) refuse(ctx, field, `required when ${typeField} is ${type}`);
  };

const owner = { msgrChId: z.optional(channelId), msgrGrpId: z.optional(groupId) };

// ---- §4.1 groups, §4.2 channels ----

/** `group/list`, `channel/restore`, `channel/recover`, `channel/get`. */
export const ChannelIdBody = z.strictObject({ msgrChId: channelId });

/** `group/add`, `group/remove`. */
export const GroupMemberBody = z.strictObject({
  chGrpKey: z.string().check(z.minLength(1)),
  msgrChId: channelId,
});

/** `msgrChannelList`: page and page size are optional integers, read as 1-based and positive. */
export const ChannelListBody = z.strictObject({
  standardDateTime: compactDateTime,
  page: z.optional(z.int().check(z.minimum(1))),
  pageSize: z.optional(z.int().check(z.minimum(1))),
});

/** `channel/token`. */
export const ChannelTokenBody = z.strictObject({
  phoneNumber: adminPhone,
  msgrChId: channelId,
  relay: z.string().check(z.minLength(1)),
});

/** `channel/create`: at least one relay authentication (an empty list authenticates nothing). */
export const ChannelCreateBody = z.strictObject({
  tokens: z
    .array(
      z.strictObject({
        rid: z.string().check(z.minLength(1)),
        token: z.int(),
        phoneNumber: adminPhone,
      }),
    )
    .check(z.minLength(1)),
  categoryCode: z.string().check(z.length(11, 'must be 11 characters')),
  msgrChId: channelId,
  memo: z.optional(z.string()),
});

// ---- §4.3 templates ----

/** `template/request` and `template/delete` (the same fields). */
export const TemplateActionBody = z
  .strictObject({
    ...owner,
    templateCode,
    senderKeyType: senderType,
    comment: z.optional(text(500)),
  })
  .check(z.superRefine(requireOwner('senderKeyType')));

/** `template/comment`: here the type field is `senderType` and the comment is required. */
export const TemplateCommentBody = z
  .strictObject({ ...owner, templateCode, senderType, comment: text(500) })
  .check(z.superRefine(requireOwner('senderType')));

/** `template/all`: no `updateDt` lists every template. */
export const TemplateListBody = z
  .strictObject({ ...owner, senderType, updateDt: z.optional(compactDateTime) })
  .check(z.superRefine(requireOwner('senderType')));

// ---- §4.4 template create ----

/** Highlight limits without and with the thumbnail image (`itemHighlightImage`). */
export const HIGHLIGHT_LIMITS = {
  itemHighlightTitle: { plain: 30, withThumbnail: 21 },
  itemHighlightDescription: { plain: 19, withThumbnail: 13 },
} as const;

/**
 * `reqBody` of `template/create`. The elements of `itemList` and `buttons` are not described, so
 * any object is taken. `templateAd` is "counted inside templateContent length": content plus ad
 * may not pass 1000 characters together.
 */
/** A list of objects the spec does not describe further: `itemList`, `buttons`. */
const objects = z.array(z.record(z.string(), z.unknown()));
/** A string the spec sets no rule on: `templateTitle`, `templateSubtitle`. */
const anyText = z.optional(z.string());

export const TemplateCreateBody = z
  .strictObject({
    ...owner,
    senderType,
    templateCode: z.optional(templateCode),
    templateName: text(200),
    templateContent: text(1000),
    categoryCode: text(6),
    templateMessageType: z.enum(['BA', 'EX', 'AD', 'MI']),
    templateExtra: z.optional(text(500)),
    templateAd: z.optional(text(1000)),
    templateEmphasizeType: z.enum(['NONE', 'TEXT', 'IMAGE', 'ITEM_LIST']),
    itemHeader: z.optional(text(16)),
    itemHighlightTitle: z.optional(text(HIGHLIGHT_LIMITS.itemHighlightTitle.plain)),
    itemHighlightDescription: z.optional(text(HIGHLIGHT_LIMITS.itemHighlightDescription.plain)),
    itemList: z.optional(objects.check(z.minLength(2), z.maxLength(10))),
    itemSummaryTitle: z.optional(text(6)),
    itemSummaryDescription: z.optional(text(14)),
    templateTitle: anyText,
    templateSubtitle: anyText,
    securityFlag: z.optional(z.boolean()),
    buttons: z.optional(objects.check(z.maxLength(5))),
    templatePreviewMessage: z.optional(text(40)),
  })
  .check(
    z.superRefine((value, ctx) => {
      requireOwner('senderType')(value, ctx);
      const total = characters(value.templateContent) + characters(value.templateAd ?? '');
      if (total > 1000) {
        refuse(
          ctx,
          'templateAd',
          `templateContent and templateAd are ${total} characters together; max 1000`,
        );
      }
      if (value.itemHighlightTitle !== undefined && value.itemHighlightDescription === undefined) {
        refuse(ctx, 'itemHighlightDescription', 'required when itemHighlightTitle is set');
      }
    }),
  );
export type TemplateCreateFields = z.output<typeof TemplateCreateBody>;

// ---- §4.5 statistics ----

/** `yyyyMMdd`, a real calendar date. */
const compactDate = z.string().check(
  z.regex(/^\d{8}$/, 'expected yyyyMMdd'),
  z.refine(
    (value) => parseGatewayDateTime(`${value}000000`) !== undefined,
    'is not a real calendar date',
  ),
);

/**
 * The statistics query. Only the three named parameters are read; another parameter is ignored,
 * as query strings commonly carry extras. `elapsedDay` is a String on the wire: `0`, `1` or `2`.
 */
export const StatsQuery = z.object({
  msgrChId: channelId,
  date: compactDate,
  elapsedDay: z.enum(['0', '1', '2'], 'must be 0, 1 or 2'),
});

/** The first issue as the answer's message: `path: problem` (`(body)` for the whole body). */
export const firstIssue = (error: z.core.$ZodError): string => {
  const [issue] = error.issues;
  const path = issue?.path.join('.') || '(body)';
  return `${path}: ${issue?.message ?? 'invalid'}`;
};
