import { textSchema } from './common.ts';
import {
  codeAndMessageShape,
  GatewayIdSchema,
  listOrEmpty,
  NullableStringSchema,
  NumericSchema,
  nullableStrings,
  nullishCounts,
  nullishIds,
} from './lenient.ts';
import * as z from './zod.ts';

/*
 * RCS brands, chatbots (sender numbers) and the template catalogue, spec 03. Everything is on
 * {mnt_url}. Requests are strict; responses lenient (unknown fields kept, ids as strings, `null`
 * lists as `[]`, approval states as the gateway's localized text).
 */

// ---------------------------------------------------------------------------------------------
// Limits (spec 03 §8) and headers (§2)
// ---------------------------------------------------------------------------------------------

export const RCS_API_ID_MAX = 20;
export const RCS_API_SECRET_MAX = 18;
export const RCS_BRAND_KEY_MAX = 18;
export const RCS_BRAND_ID_MAX = 13;
export const RCS_BRAND_NAME_MAX = 20;
export const RCS_BRAND_DESCRIPTION_MAX = 150;
export const RCS_BRAND_TEL_MAX = 12;
export const RCS_MENUS_MAX = 3;
export const RCS_MENU_BUTTON_TYPE_MAX = 20;
export const RCS_MENU_WEBLINK_MAX = 128;
export const RCS_MDN_MAX = 40;
export const RCS_CHATBOT_NAME_MAX = 20;
export const RCS_LIST_LIMIT_DEFAULT = 100;
export const RCS_LIST_LIMIT_MAX = 1000;
/** Outer code of the chat-room id check when the id is unusable; the reason is nested in data. */
export const RCS_CHATBOT_ID_UNUSABLE_CODE = '21399';

/** Headers of the brand endpoints: the brand-portal account. */
export const RcsPortalCredentialsSchema = z.strictObject({
  apiId: z.string().check(z.minLength(1), z.maxLength(RCS_API_ID_MAX)),
  apiSecret: z.string().check(z.minLength(1), z.maxLength(RCS_API_SECRET_MAX)),
});
export type RcsPortalCredentials = z.infer<typeof RcsPortalCredentialsSchema>;

export const RcsBrandKeySchema = z.string().check(z.minLength(1), z.maxLength(RCS_BRAND_KEY_MAX));
export const RcsBrandIdSchema = z.string().check(z.minLength(1), z.maxLength(RCS_BRAND_ID_MAX));

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/**
 * `offset` / `limit` of every list (sent as strings). Defaults 0 and 100; limit at most 1000.
 * The output is the query the gateway receives.
 */
export const RcsPageQuerySchema = z.pipe(
  z.strictObject({
    offset: z._default(z.int().check(z.minimum(0)), 0),
    limit: z._default(
      z.int().check(z.minimum(1), z.maximum(RCS_LIST_LIMIT_MAX)),
      RCS_LIST_LIMIT_DEFAULT,
    ),
  }),
  z.transform(({ offset, limit }) => ({ offset: String(offset), limit: String(limit) })),
);
export type RcsPageQueryInput = z.input<typeof RcsPageQuerySchema>;

const WeblinkSchema = z
  .string()
  .check(
    z.maxLength(RCS_MENU_WEBLINK_MAX),
    z.regex(/^https?:\/\//, 'weblink must start with http:// or https://'),
  );

export const RcsBrandMenuSchema = z.strictObject({
  buttonType: z.string().check(z.minLength(1), z.maxLength(RCS_MENU_BUTTON_TYPE_MAX)),
  weblink: z.optional(WeblinkSchema),
  feedinfoYn: z.optional(z.enum(['Y', 'N'])),
});

/** `regBrand` of register and update. */
export const RcsRegBrandSchema = z.strictObject({
  name: textSchema(RCS_BRAND_NAME_MAX),
  description: textSchema(RCS_BRAND_DESCRIPTION_MAX),
  tel: z.string().check(z.minLength(1), z.maxLength(RCS_BRAND_TEL_MAX)),
  menus: z.optional(
    z
      .array(RcsBrandMenuSchema)
      .check(
        z.maxLength(RCS_MENUS_MAX, `at most ${RCS_MENUS_MAX} menus (chat is added by default)`),
      ),
  ),
  categoryId: z.string().check(z.minLength(1)),
  subCategoryId: z.string().check(z.minLength(1)),
  categoryOpt: z.optional(z.string()),
  zipCode: z.optional(z.string()),
  roadAddress: z.optional(z.string()),
  detailAddress: z.optional(z.string()),
  email: z.optional(z.string()),
  webSiteUrl: z.optional(z.string()),
});
export type RcsRegBrand = z.infer<typeof RcsRegBrandSchema>;

/** One chatbot to register (`chatbots` element). */
export const RcsChatbotInputSchema = z.strictObject({
  mdn: z.string().check(z.minLength(1), z.maxLength(RCS_MDN_MAX)),
  /** `0` receive SMS MO, `1` receive RCS postback. */
  rcsReply: z.enum(['0', '1']),
  subTitle: textSchema(RCS_CHATBOT_NAME_MAX),
  /** `A2P` or `CHAT`; the lowercase form seen on the wire is accepted too. */
  service: z.enum(['A2P', 'CHAT', 'a2p', 'chat']),
  /** Default `01`; `00` hidden from brand home and search. */
  display: z.optional(z.enum(['00', '01'])),
});
export type RcsChatbotInput = z.infer<typeof RcsChatbotInputSchema>;

const checkMainMdn = (
  value: { mainMdn: string; chatbots: readonly { mdn: string }[] },
  ctx: z.core.$RefinementCtx,
): void => {
  if (!value.chatbots.some((chatbot) => chatbot.mdn === value.mainMdn)) {
    ctx.addIssue({
      code: 'custom',
      path: ['mainMdn'],
      message: 'mainMdn must be the mdn of one of the chatbots',
    });
  }
};

/** Body of `POST /rcs/v1/brand`: `mainMdn` must be one of the chatbots. */
export const RcsBrandRegisterRequestSchema = z
  .strictObject({
    regBrand: RcsRegBrandSchema,
    mainMdn: z.string().check(z.minLength(1), z.maxLength(RCS_MDN_MAX)),
    profileImgFilePath: z.string().check(z.minLength(1)),
    bgImgFilePath: z.optional(z.string().check(z.minLength(1))),
    certiFilePath: z.optional(z.string().check(z.minLength(1))),
    chatbots: z
      .array(RcsChatbotInputSchema)
      .check(z.minLength(1, 'at least one chatbot is required')),
  })
  .check(z.superRefine(checkMainMdn));
export type RcsBrandRegisterRequest = z.infer<typeof RcsBrandRegisterRequestSchema>;

/** Body of `PUT /rcs/v1/brand/{brandId}`: no chatbots, no certificate. */
export const RcsBrandUpdateRequestSchema = z.strictObject({
  regBrand: RcsRegBrandSchema,
  mainMdn: z.string().check(z.minLength(1), z.maxLength(RCS_MDN_MAX)),
  profileImgFilePath: z.string().check(z.minLength(1)),
  bgImgFilePath: z.optional(z.string().check(z.minLength(1))),
});
export type RcsBrandUpdateRequest = z.infer<typeof RcsBrandUpdateRequestSchema>;

/** Body of chatbot register and update. */
export const RcsChatbotRegisterRequestSchema = z.strictObject({
  subNumCertificate: z.string().check(z.minLength(1)),
  chatbots: z
    .array(RcsChatbotInputSchema)
    .check(z.minLength(1, 'at least one chatbot is required')),
});
export type RcsChatbotRegisterRequest = z.infer<typeof RcsChatbotRegisterRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

export const RcsPaginationSchema = z.looseObject(nullishCounts('total', 'offset', 'limit'));

/** One page of a list: `result` and where it stands in the whole (`pagination`). */
const pageOf = <T extends z.ZodMiniType>(item: T) =>
  z.looseObject({ result: listOrEmpty(item), pagination: z.nullish(RcsPaginationSchema) });

const MediaUrlSchema = z.looseObject({
  fileId: z.nullish(GatewayIdSchema),
  ...nullableStrings('fileName', 'url', 'typeName'),
});

/** A brand category and its sub-category, named the same in the catalogue and in a brand. */
const categoryShape = {
  categoryId: z.nullish(GatewayIdSchema),
  categoryName: NullableStringSchema,
};
const subCategoryShape = {
  subCategoryId: z.nullish(GatewayIdSchema),
  subCategoryName: NullableStringSchema,
};

export const RcsBrandCategorySchema = z.looseObject({
  ...categoryShape,
  subCategories: listOrEmpty(z.looseObject(subCategoryShape)),
});
export type RcsBrandCategory = z.infer<typeof RcsBrandCategorySchema>;
export const RcsBrandCategoryListDataSchema = listOrEmpty(RcsBrandCategorySchema);

/** A brand in list form (`brandName`, `regDt`…) or detail form (`name`, `registerDate`…). */
export const RcsBrandSchema = z.looseObject({
  brandId: z.nullish(GatewayIdSchema),
  ...nullableStrings('brandKey', 'name', 'brandName', 'agencyId', 'status', 'approvalStatus'),
  ...nullableStrings('chatbotDate', 'messagebaseDate', 'registerDate', 'regDt'),
  ...nullableStrings('updateDate', 'updDt', 'approvalDate', 'approvalDt'),
  mediaUrl: listOrEmpty(MediaUrlSchema),
  menus: listOrEmpty(z.looseObject({ buttonType: NullableStringSchema })),
  ...nullableStrings('description', 'tel'),
  ...categoryShape,
  ...subCategoryShape,
  approvalReason: NullableStringSchema,
});
export type RcsBrand = z.infer<typeof RcsBrandSchema>;

/** Brand list: `result` and `pagination` (at the top level of the body or inside `data`). */
export const RcsBrandListSchema = pageOf(RcsBrandSchema);
export type RcsBrandList = z.infer<typeof RcsBrandListSchema>;

export const RcsBrandDetailDataSchema = listOrEmpty(RcsBrandSchema);

export const RcsBrandRegisterDataSchema = z.looseObject({ brandId: GatewayIdSchema });

export const RcsChatbotSchema = z.looseObject({
  ...nullishIds('chatbotId', 'groupId', 'brandId'),
  subNum: NullableStringSchema,
  isMainNum: z.nullish(z.union([z.boolean(), z.string()])),
  ...nullableStrings('subTitle', 'service', 'display', 'approvalResult', 'approvalReason'),
  ...nullableStrings('registerDate', 'approvalDate', 'updateDate', 'status'),
  rcsReply: z.nullish(GatewayIdSchema),
});
export type RcsChatbot = z.infer<typeof RcsChatbotSchema>;

export const RcsChatbotListDataSchema = pageOf(RcsChatbotSchema);
export type RcsChatbotList = z.infer<typeof RcsChatbotListDataSchema>;
export const RcsChatbotArrayDataSchema = listOrEmpty(RcsChatbotSchema);

/** `data` of a usable chat-room id (HTTP 200). */
export const RcsChatbotIdCheckDataSchema = z.looseObject({
  httpStatus: z.nullish(NumericSchema),
  status: NullableStringSchema,
  code: z.nullish(GatewayIdSchema),
  error: z.optional(z.unknown()),
  desc: NullableStringSchema,
  result: z.nullish(z.looseObject({ chatbotId: z.nullish(GatewayIdSchema) })),
});
export type RcsChatbotIdCheckData = z.infer<typeof RcsChatbotIdCheckDataSchema>;

/** `data` of a `21399` answer: the upstream failure. */
export const RcsNestedErrorDataSchema = z.looseObject(codeAndMessageShape);

export const RcsTemplateFormSchema = z.looseObject({
  messagebaseformId: z.nullish(GatewayIdSchema),
  ...nullableStrings('formName', 'cardType'),
  bizCondition: listOrEmpty(z.unknown()),
  ...nullableStrings('bizCategory', 'bizService', 'registerDate', 'updateDate'),
  ...nullableStrings('productCode', 'spec'),
  guideInfo: z.optional(z.unknown()),
});
export type RcsTemplateForm = z.infer<typeof RcsTemplateFormSchema>;

export const RcsDefaultTemplateSchema = z.looseObject({
  ...nullishIds('groupId', 'messagebaseId'),
  tmpltName: NullableStringSchema,
  ...nullishIds('messagebaseformId', 'brandId'),
  ...nullableStrings('status', 'approvalResult', 'approvalReason', 'registerDate'),
  ...nullableStrings('productCode', 'cardType'),
  guideInfo: z.optional(z.unknown()),
});
export type RcsDefaultTemplate = z.infer<typeof RcsDefaultTemplateSchema>;

export const RcsTemplateFormListDataSchema = pageOf(RcsTemplateFormSchema);
export const RcsTemplateFormDetailDataSchema = listOrEmpty(RcsTemplateFormSchema);
export const RcsDefaultTemplateListDataSchema = pageOf(RcsDefaultTemplateSchema);
export const RcsDefaultTemplateDetailDataSchema = listOrEmpty(RcsDefaultTemplateSchema);

// ---------------------------------------------------------------------------------------------
// Paths (§4)
// ---------------------------------------------------------------------------------------------

export const RCS_MANAGEMENT_PATHS = {
  brandCategories: { method: 'GET', path: '/rcs/v1/brand/categories' },
  listBrands: { method: 'GET', path: '/rcs/v1/brand' },
  registerBrand: { method: 'POST', path: '/rcs/v1/brand' },
  getBrand: { method: 'GET', path: '/rcs/v1/brand/{brandId}' },
  updateBrand: { method: 'PUT', path: '/rcs/v1/brand/{brandId}' },
  deleteBrand: { method: 'DELETE', path: '/rcs/v1/brand/{brandId}' },
  listChatbots: { method: 'GET', path: '/rcs/v1/brand/{brandId}/chatbot' },
  registerChatbots: { method: 'POST', path: '/rcs/v1/brand/{brandId}/chatbot' },
  getChatbot: { method: 'GET', path: '/rcs/v1/brand/{brandId}/chatbot/{chatbotId}' },
  updateChatbot: { method: 'PUT', path: '/rcs/v1/brand/{brandId}/chatbot/{chatbotId}' },
  deleteChatbot: { method: 'DELETE', path: '/rcs/v1/brand/{brandId}/chatbot/{chatbotId}' },
  checkChatbotId: { method: 'GET', path: '/rcs/v1/usableQuery/chatbotId/{chatbotId}' },
  listForms: { method: 'GET', path: '/rcs/v1/messagebase/messagebaseform' },
  getForm: { method: 'GET', path: '/rcs/v1/messagebase/messagebaseform/{messagebaseformId}' },
  listDefaultTemplates: { method: 'GET', path: '/rcs/v1/messagebase/common' },
  getDefaultTemplate: { method: 'GET', path: '/rcs/v1/messagebase/common/{messagebaseId}' },
} as const;
export type RcsManagementPathName = keyof typeof RCS_MANAGEMENT_PATHS;
