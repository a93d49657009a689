import { CompactDateTimeSchema, charCount, textSchema } from './common.ts';
import { GatewayIdSchema, listOrEmpty, NullableStringSchema, nullableStrings } from './lenient.ts';
import { MsgrChIdSchema } from './messenger-ids.ts';
import * as z from './zod.ts';

/*
 * Messenger channels, channel groups and notification templates, spec 02 §4.1–4.4 (the read/click
 * statistics of §4.5 are in `messenger-statistics.ts`). Everything is on {mnt_url}. Requests are strict; responses lenient (unknown fields kept, counts
 * as numbers, ids as strings, `null` lists as `[]`).
 */

// ---------------------------------------------------------------------------------------------
// Request primitives
// ---------------------------------------------------------------------------------------------

export { MSGR_CH_ID_MAX, MsgrChIdSchema } from './messenger-ids.ts';
export const MSGR_GRP_ID_MAX = 100;
/** Group id (`msgrGrpId`), max 100. */
export const MsgrGrpIdSchema = z.string().check(z.minLength(1), z.maxLength(MSGR_GRP_ID_MAX));
/** `S` one channel (the default), `G` a channel group. */
export const SenderTypeSchema = z.enum(['S', 'G']);
export type SenderType = z.infer<typeof SenderTypeSchema>;

export const TEMPLATE_CODE_MAX = 30;
export const TEMPLATE_COMMENT_MAX = 500;
export const TEMPLATE_CONTENT_MAX = 1000;
/** Template code: max 30, no spaces. */
export const TemplateCodeSchema = z
  .string()
  .check(
    z.regex(/^\S{1,30}$/, `templateCode must be 1-${TEMPLATE_CODE_MAX} characters without spaces`),
  );
/** `T` registered, `R` review requested, `Q` under review, `A` approved, `S` rejected. */
export const TemplateStatusCodeSchema = z.enum(['T', 'R', 'Q', 'A', 'S']);
export type TemplateStatusCode = z.infer<typeof TemplateStatusCodeSchema>;
/** Channel administrator number: digits, max 11. */
const AdminPhoneSchema = z.string().check(z.regex(/^\d{1,11}$/, 'phoneNumber must be 1-11 digits'));

/**
 * A template belongs to one channel (`S`: `msgrChId` required) or to a group (`G`: `msgrGrpId`
 * required). The spec lists both fields as optional and states which one each sender type needs.
 */
const checkOwner =
  (typeField: 'senderType' | 'senderKeyType') =>
  (value: Record<string, unknown>, ctx: z.core.$RefinementCtx): void => {
    const type = value[typeField] ?? 'S';
    if (type === 'S' && value.msgrChId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['msgrChId'],
        message: `required when ${typeField} is S`,
      });
    }
    if (type === 'G' && value.msgrGrpId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['msgrGrpId'],
        message: `required when ${typeField} is G`,
      });
    }
  };

const ownerShape = {
  msgrChId: z.optional(MsgrChIdSchema),
  msgrGrpId: z.optional(MsgrGrpIdSchema),
};

/** A request body about an owner's templates: the owner fields first, then `shape`. */
const ownerRequest = <
  F extends 'senderType' | 'senderKeyType',
  S extends Record<F, z.ZodMiniType> & z.core.$ZodShape,
>(
  typeField: F,
  shape: S,
) => z.strictObject({ ...ownerShape, ...shape }).check(z.superRefine(checkOwner(typeField)));

// ---------------------------------------------------------------------------------------------
// Channel categories and groups (§4.1)
// ---------------------------------------------------------------------------------------------

/** Body of `POST /msgr/v2/channel/group/list` (groups containing the channel). */
export const ChannelIdRequestSchema = z.strictObject({ msgrChId: MsgrChIdSchema });
export type ChannelIdRequest = z.infer<typeof ChannelIdRequestSchema>;

/** Body of `POST /msgr/v2/channel/group/add` and `DELETE /msgr/v2/channel/group/remove`. */
export const ChannelGroupMemberRequestSchema = z.strictObject({
  chGrpKey: z.string().check(z.minLength(1)),
  msgrChId: MsgrChIdSchema,
});
export type ChannelGroupMemberRequest = z.infer<typeof ChannelGroupMemberRequestSchema>;

/** Path parameter of `GET /msgr/v2/channel/group/{groupKey}`. */
export const ChannelGroupKeyRequestSchema = z.strictObject({
  groupKey: z.string().check(z.minLength(1)),
});

export const ChannelCategoryItemSchema = z.looseObject({
  code: z.nullish(GatewayIdSchema),
  name: NullableStringSchema,
});
export type ChannelCategoryItem = z.infer<typeof ChannelCategoryItemSchema>;
export const ChannelCategoryListDataSchema = listOrEmpty(ChannelCategoryItemSchema);

/** A template category: a code and name as a channel category has, then its group and examples. */
export const TemplateCategoryItemSchema = z.extend(ChannelCategoryItemSchema, {
  /** `iclusion`: the inclusion example; the gateway spells the field so. */
  ...nullableStrings('groupName', 'iclusion', 'exclusion'),
});
export type TemplateCategoryItem = z.infer<typeof TemplateCategoryItemSchema>;
export const TemplateCategoryListDataSchema = listOrEmpty(TemplateCategoryItemSchema);

/** A channel group as every group answer names it. */
const groupShape = { chGrpKey: z.nullish(GatewayIdSchema), chGrpName: NullableStringSchema };

/** One group containing the channel (`group/list`). */
export const ChannelGroupOfChannelItemSchema = z.looseObject({
  ...groupShape,
  regDt: NullableStringSchema,
});
export const ChannelGroupOfChannelListDataSchema = listOrEmpty(ChannelGroupOfChannelItemSchema);

/** `data` of add and remove: the group and the channel. */
export const ChannelGroupMemberDataSchema = z.looseObject({
  chGrpKey: z.nullish(GatewayIdSchema),
  msgrChId: NullableStringSchema,
});

/** One channel of a group (`GET group/{groupKey}`): the membership and when it was made. */
export const ChannelGroupMemberItemSchema = z.extend(ChannelGroupMemberDataSchema, {
  regDt: NullableStringSchema,
});
export const ChannelGroupMemberListDataSchema = listOrEmpty(ChannelGroupMemberItemSchema);

/** One group (`GET group/all`); `chGrpStatCd` is typed Number in the spec but carries letters. */
export const ChannelGroupItemSchema = z.looseObject({
  ...groupShape,
  chGrpStatCd: z.nullish(GatewayIdSchema),
  ...nullableStrings('regDt', 'updDt'),
});
export type ChannelGroupItem = z.infer<typeof ChannelGroupItemSchema>;
export const ChannelGroupListDataSchema = listOrEmpty(ChannelGroupItemSchema);

// ---------------------------------------------------------------------------------------------
// Channels (§4.2)
// ---------------------------------------------------------------------------------------------

/** Body of `POST /msgr/v2/msgrChannelList`. */
export const ChannelListRequestSchema = z.strictObject({
  standardDateTime: CompactDateTimeSchema,
  page: z.optional(z.int().check(z.minimum(1))),
  pageSize: z.optional(z.int().check(z.minimum(1))),
});
export type ChannelListRequest = z.infer<typeof ChannelListRequestSchema>;

export const ChannelListItemSchema = z.looseObject({
  /** `msgrChStat`: `A` active, `C` inactive, `B` blocked, `E` being deleted, `D` deleted. */
  ...nullableStrings('msgrChId', 'msgrChStat', 'createDate'),
  categoryCode: z.nullish(GatewayIdSchema),
});
export type ChannelListItem = z.infer<typeof ChannelListItemSchema>;
export const ChannelListDataSchema = listOrEmpty(ChannelListItemSchema);

/** Body of `POST /msgr/v2/channel/token`: sends an authentication code to the administrator. */
export const ChannelTokenRequestSchema = z.strictObject({
  phoneNumber: AdminPhoneSchema,
  msgrChId: MsgrChIdSchema,
  relay: z.string().check(z.minLength(1)),
});
export type ChannelTokenRequest = z.infer<typeof ChannelTokenRequestSchema>;

export const ChannelTokenDataSchema = z.looseObject(
  nullableStrings('phoneNumber', 'yellowId', 'msgrChId', 'relay'),
);
export type ChannelTokenData = z.infer<typeof ChannelTokenDataSchema>;

/** `data` of `POST /msgr/v2/channel/relayinfo`. */
export const RelayInfoDataSchema = z.looseObject({ relay: listOrEmpty(z.string()) });
export type RelayInfoData = z.infer<typeof RelayInfoDataSchema>;

/** `data` of `POST /msgr/v2/channel/get`. */
export const ChannelDetailDataSchema = z.looseObject({
  /** `stat`: `A` normal, `B` blocked, `P` dormant, `D` deleted. */
  ...nullableStrings('msgrChId', 'stat', 'createDate'),
  categoryCode: z.nullish(GatewayIdSchema),
});
export type ChannelDetailData = z.infer<typeof ChannelDetailDataSchema>;

/** One relay authentication of `channel/create`: the code received after `channel/token`. */
export const ChannelCreateTokenSchema = z.strictObject({
  rid: z.string().check(z.minLength(1)),
  token: z.int().check(z.nonnegative()),
  phoneNumber: AdminPhoneSchema,
});

/** Body of `POST /msgr/v2/channel/create`. */
export const ChannelCreateRequestSchema = z.strictObject({
  tokens: z.array(ChannelCreateTokenSchema).check(z.minLength(1)),
  categoryCode: z.string().check(z.length(11, 'categoryCode is 11 characters')),
  msgrChId: MsgrChIdSchema,
  memo: z.optional(z.string()),
});
export type ChannelCreateRequest = z.infer<typeof ChannelCreateRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Templates (§4.3, §4.4)
// ---------------------------------------------------------------------------------------------

/** Body of `POST /msgr/v2/channel/template/request` and `…/template/delete`. */
export const TemplateActionRequestSchema = ownerRequest('senderKeyType', {
  templateCode: TemplateCodeSchema,
  senderKeyType: z._default(SenderTypeSchema, 'S'),
  comment: z.optional(textSchema(TEMPLATE_COMMENT_MAX)),
});
export type TemplateActionRequest = z.infer<typeof TemplateActionRequestSchema>;
export type TemplateActionRequestInput = z.input<typeof TemplateActionRequestSchema>;

/** Body of `POST /msgr/v2/channel/template/comment`. */
export const TemplateCommentRequestSchema = ownerRequest('senderType', {
  templateCode: TemplateCodeSchema,
  senderType: z._default(SenderTypeSchema, 'S'),
  comment: textSchema(TEMPLATE_COMMENT_MAX),
});
export type TemplateCommentRequest = z.infer<typeof TemplateCommentRequestSchema>;

/** Body of `POST /msgr/v2/channel/template/all`; no `updateDt` = every template. */
export const TemplateListRequestSchema = ownerRequest('senderType', {
  senderType: z._default(SenderTypeSchema, 'S'),
  updateDt: z.optional(CompactDateTimeSchema),
});
export type TemplateListRequest = z.infer<typeof TemplateListRequestSchema>;

export const TemplateListItemSchema = z.looseObject({
  ...nullableStrings('msgrChId', 'templateName'),
  templateKey: z.nullish(GatewayIdSchema),
  ...nullableStrings('templateCode', 'templateStatusCode'),
});
export type TemplateListItem = z.infer<typeof TemplateListItemSchema>;
export const TemplateListDataSchema = listOrEmpty(TemplateListItemSchema);

export const TEMPLATE_MESSAGE_TYPES = ['BA', 'EX', 'AD', 'MI'] as const;
export const TEMPLATE_EMPHASIZE_TYPES = ['NONE', 'TEXT', 'IMAGE', 'ITEM_LIST'] as const;

export const ITEM_HIGHLIGHT_TITLE_MAX = 30;
export const ITEM_HIGHLIGHT_DESCRIPTION_MAX = 19;
/** With an item highlight thumbnail (`itemHighlightImage`) the highlight texts get shorter. */
export const ITEM_HIGHLIGHT_TITLE_MAX_WITH_THUMBNAIL = 21;
export const ITEM_HIGHLIGHT_DESCRIPTION_MAX_WITH_THUMBNAIL = 13;

/**
 * `reqBody` of `POST /msgr/v2/channel/template/create`, the whole body of the JSON create and the
 * `reqBody` part of the multipart create. The element fields of `itemList` and `buttons` are not
 * in the spec, so elements are objects passed through as given. `templateAd` counts inside the
 * 1000 characters of `templateContent`. The shorter highlight limits that apply with a thumbnail
 * image are checked by {@link TemplateCreateMultipartRequestSchema}, which sees the image.
 */
export const TemplateCreateRequestSchema = z
  .strictObject({
    ...ownerShape,
    senderType: z._default(SenderTypeSchema, 'S'),
    templateCode: z.optional(TemplateCodeSchema),
    templateName: textSchema(200),
    templateContent: textSchema(TEMPLATE_CONTENT_MAX),
    categoryCode: z.string().check(z.minLength(1), z.maxLength(6)),
    templateMessageType: z.enum(TEMPLATE_MESSAGE_TYPES),
    templateExtra: z.optional(textSchema(500)),
    templateAd: z.optional(textSchema(TEMPLATE_CONTENT_MAX)),
    templateEmphasizeType: z.enum(TEMPLATE_EMPHASIZE_TYPES),
    itemHeader: z.optional(textSchema(16)),
    itemHighlightTitle: z.optional(textSchema(ITEM_HIGHLIGHT_TITLE_MAX)),
    itemHighlightDescription: z.optional(textSchema(ITEM_HIGHLIGHT_DESCRIPTION_MAX)),
    itemList: z.optional(
      z.array(z.record(z.string(), z.unknown())).check(z.minLength(2), z.maxLength(10)),
    ),
    itemSummaryTitle: z.optional(textSchema(6)),
    itemSummaryDescription: z.optional(textSchema(14)),
    templateTitle: z.optional(z.string().check(z.minLength(1))),
    templateSubtitle: z.optional(z.string().check(z.minLength(1))),
    securityFlag: z.optional(z.boolean()),
    buttons: z.optional(z.array(z.record(z.string(), z.unknown())).check(z.maxLength(5))),
    templatePreviewMessage: z.optional(textSchema(40)),
  })
  .check(
    z.superRefine((value, ctx) => {
      checkOwner('senderType')(value, ctx);
      const total = charCount(value.templateContent) + charCount(value.templateAd ?? '');
      if (value.templateAd !== undefined && total > TEMPLATE_CONTENT_MAX) {
        ctx.addIssue({
          code: 'custom',
          path: ['templateAd'],
          message: `templateContent plus templateAd is ${total} characters; max ${TEMPLATE_CONTENT_MAX}`,
        });
      }
      if (value.itemHighlightTitle !== undefined && value.itemHighlightDescription === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['itemHighlightDescription'],
          message: 'required when itemHighlightTitle is set',
        });
      }
    }),
  );
export type TemplateCreateRequest = z.infer<typeof TemplateCreateRequestSchema>;
export type TemplateCreateRequestInput = z.input<typeof TemplateCreateRequestSchema>;

/*
 * Template images. Spec 02 names the multipart parts (`image`, `itemHighlightImage`, binary) but
 * no formats and no size limit, and the field notes add none. Our choice, enforced by the client
 * and the simulator alike: JPEG or PNG, at most 500 KB (512,000 bytes) each, the declared type
 * matching both the file's signature bytes and its name's extension — a mislabelled file is
 * refused before it costs a call.
 */

export const TEMPLATE_IMAGE_MAX_BYTES = 500 * 1024;
const IMAGE_FORMATS = {
  'image/jpeg': { extensions: ['jpg', 'jpeg'], signature: [0xff, 0xd8, 0xff] },
  'image/png': {
    extensions: ['png'],
    signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  },
} as const;
type TemplateImageType = keyof typeof IMAGE_FORMATS;
export const TEMPLATE_IMAGE_TYPES = Object.keys(IMAGE_FORMATS) as TemplateImageType[];
const isImageType = (value: string): value is TemplateImageType =>
  Object.hasOwn(IMAGE_FORMATS, value);

/** One image part of the multipart template create: its file name, type and bytes. */
export const TemplateImageSchema = z
  .strictObject({
    fileName: z.string().check(
      z.minLength(1),
      z.maxLength(255),
      z.refine(
        (name) => !/[\\/\r\n"]/.test(name),
        'fileName must not contain / \\ " or line breaks',
      ),
    ),
    contentType: z
      .string()
      .check(
        z.refine(isImageType, `contentType must be one of ${TEMPLATE_IMAGE_TYPES.join(', ')}`),
      ),
    data: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'data must be bytes'),
  })
  .check(
    z.superRefine((image, ctx) => {
      const size = image.data.byteLength;
      if (size === 0) ctx.addIssue({ code: 'custom', path: ['data'], message: 'image is empty' });
      if (size > TEMPLATE_IMAGE_MAX_BYTES) {
        ctx.addIssue({
          code: 'custom',
          path: ['data'],
          message: `image is ${size} bytes; max ${TEMPLATE_IMAGE_MAX_BYTES}`,
        });
      }
      if (!isImageType(image.contentType)) return;
      const { extensions, signature } = IMAGE_FORMATS[image.contentType];
      if (size > 0 && !signature.every((byte, index) => image.data[index] === byte)) {
        ctx.addIssue({
          code: 'custom',
          path: ['data'],
          message: `bytes are not ${image.contentType} (file signature does not match)`,
        });
      }
      const extension = image.fileName.toLowerCase().split('.').pop() ?? '';
      if (!(extensions as readonly string[]).includes(extension)) {
        ctx.addIssue({
          code: 'custom',
          path: ['fileName'],
          message: `fileName must end in .${extensions.join(' or .')} for ${image.contentType}`,
        });
      }
    }),
  );
export type TemplateImage = z.input<typeof TemplateImageSchema>;

/** The image parts a template create may carry; none means the JSON create. */
export interface TemplateImages {
  readonly image?: TemplateImage;
  /** The item highlight thumbnail: with it, the highlight title and description get shorter. */
  readonly itemHighlightImage?: TemplateImage;
}

/**
 * The parts of the multipart template create (`multipart/form-data`): `reqBody` and the optional
 * images. Beyond the `reqBody` rules: with an `itemHighlightImage` (the thumbnail) the highlight
 * title is at most 21 characters and its description at most 13 (spec 02 §4.4).
 */
export const TemplateCreateMultipartRequestSchema = z
  .strictObject({
    reqBody: TemplateCreateRequestSchema,
    image: z.optional(TemplateImageSchema),
    itemHighlightImage: z.optional(TemplateImageSchema),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (value.itemHighlightImage === undefined) return;
      const limits = [
        ['itemHighlightTitle', ITEM_HIGHLIGHT_TITLE_MAX_WITH_THUMBNAIL],
        ['itemHighlightDescription', ITEM_HIGHLIGHT_DESCRIPTION_MAX_WITH_THUMBNAIL],
      ] as const;
      for (const [field, max] of limits) {
        const length = charCount(value.reqBody[field] ?? '');
        if (length > max) {
          ctx.addIssue({
            code: 'custom',
            path: ['reqBody', field],
            message: `is ${length} characters; max ${max} with a thumbnail image (itemHighlightImage)`,
          });
        }
      }
    }),
  );
export type TemplateCreateMultipartRequest = z.infer<typeof TemplateCreateMultipartRequestSchema>;

export const TemplateInfoSchema = z.looseObject({
  ...nullableStrings('senderKey', 'senderType', 'templateCode', 'msgrTemplateCode'),
  ...nullableStrings('templateName', 'templateContent'),
  categoryCode: z.nullish(GatewayIdSchema),
  ...nullableStrings('templateMessageType', 'templateEmphasizeType'),
  ...nullableStrings('templateTitle', 'templateSubtitle'),
});

export const TemplateCreateDataSchema = z.looseObject({
  templateKey: z.nullish(GatewayIdSchema),
  ...nullableStrings('templateCode', 'templateName', 'msgrChId'),
  templateInfo: z.nullish(TemplateInfoSchema),
});
export type TemplateCreateData = z.infer<typeof TemplateCreateDataSchema>;

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/** Method and path of every non-statistics spec 02 endpoint (all on {mnt_url}). */
export const MESSENGER_MANAGEMENT_PATHS = {
  templateCategories: { method: 'POST', path: '/msgr/v2/channel/template/category/all' },
  channelCategories: { method: 'POST', path: '/msgr/v2/channel/category/all' },
  groupsOfChannel: { method: 'POST', path: '/msgr/v2/channel/group/list' },
  addToGroup: { method: 'POST', path: '/msgr/v2/channel/group/add' },
  groupMembers: { method: 'GET', path: '/msgr/v2/channel/group/{groupKey}' },
  allGroups: { method: 'GET', path: '/msgr/v2/channel/group/all' },
  removeFromGroup: { method: 'DELETE', path: '/msgr/v2/channel/group/remove' },
  listChannels: { method: 'POST', path: '/msgr/v2/msgrChannelList' },
  channelToken: { method: 'POST', path: '/msgr/v2/channel/token' },
  restoreChannel: { method: 'POST', path: '/msgr/v2/channel/restore' },
  relayInfo: { method: 'POST', path: '/msgr/v2/channel/relayinfo' },
  recoverChannel: { method: 'POST', path: '/msgr/v2/channel/recover' },
  getChannel: { method: 'POST', path: '/msgr/v2/channel/get' },
  createChannel: { method: 'POST', path: '/msgr/v2/channel/create' },
  requestTemplate: { method: 'POST', path: '/msgr/v2/channel/template/request' },
  deleteTemplate: { method: 'POST', path: '/msgr/v2/channel/template/delete' },
  commentTemplate: { method: 'POST', path: '/msgr/v2/channel/template/comment' },
  listTemplates: { method: 'POST', path: '/msgr/v2/channel/template/all' },
  createTemplate: { method: 'POST', path: '/msgr/v2/channel/template/create' },
} as const;
export type MessengerManagementPathName = keyof typeof MESSENGER_MANAGEMENT_PATHS;
