import * as z from './zod.ts';

/*
 * What the simulated gateway accepts on the RCS brand, chatbot and template-catalogue endpoints,
 * written from spec 03 alone (never from the bridge's schemas, so that a misreading of the spec
 * on one side shows up as a disagreement). Where the spec is silent the choice is named in a
 * comment and in the simulator README.
 */

/** Spec 03 §2 and §8. */
export const RCS_LIMITS = {
  apiId: 20,
  apiSecret: 18,
  brandKey: 18,
  brandIdInChatbotPath: 13,
  brandName: 20,
  brandDescription: 150,
  brandTel: 12,
  menus: 3,
  menuButtonType: 20,
  menuWeblink: 128,
  mdn: 40,
  chatbotName: 20,
  serviceType: 4,
  listLimitDefault: 100,
  listLimitMax: 1000,
} as const;

/** Outer code of an unusable chat-room id; the upstream reason is nested in `data` (spec 03 §4.2). */
export const RCS_CHATBOT_ID_UNUSABLE = '21399';

/** Spec 03 §4: every endpoint, on {mnt_url}. */
export const RCS_ROUTES = {
  brandCategories: 'GET /rcs/v1/brand/categories',
  listBrands: 'GET /rcs/v1/brand',
  registerBrand: 'POST /rcs/v1/brand',
  getBrand: 'GET /rcs/v1/brand/{brandId}',
  updateBrand: 'PUT /rcs/v1/brand/{brandId}',
  deleteBrand: 'DELETE /rcs/v1/brand/{brandId}',
  listChatbots: 'GET /rcs/v1/brand/{brandId}/chatbot',
  registerChatbots: 'POST /rcs/v1/brand/{brandId}/chatbot',
  getChatbot: 'GET /rcs/v1/brand/{brandId}/chatbot/{chatbotId}',
  updateChatbot: 'PUT /rcs/v1/brand/{brandId}/chatbot/{chatbotId}',
  deleteChatbot: 'DELETE /rcs/v1/brand/{brandId}/chatbot/{chatbotId}',
  checkChatbotId: 'GET /rcs/v1/usableQuery/chatbotId/{chatbotId}',
  listForms: 'GET /rcs/v1/messagebase/messagebaseform',
  getForm: 'GET /rcs/v1/messagebase/messagebaseform/{messagebaseformId}',
  listDefaultTemplates: 'GET /rcs/v1/messagebase/common',
  getDefaultTemplate: 'GET /rcs/v1/messagebase/common/{messagebaseId}',
} as const;
export type RcsPathName = keyof typeof RCS_ROUTES;

/*
 * The simulator's reference data: the categories a brand may name (others answer 22807), and the
 * template forms and carrier default templates of the catalogue (spec 03 §4.3). The spec shows
 * the fields, not the values; these are invented.
 */

export const SIM_RCS_CATEGORIES = [
  {
    categoryId: '001',
    categoryName: 'Shopping',
    subCategories: [{ subCategoryId: '001001', subCategoryName: 'Online mall' }],
  },
  {
    categoryId: '002',
    categoryName: 'Finance',
    subCategories: [{ subCategoryId: '002001', subCategoryName: 'Bank' }],
  },
] as const;

export const SIM_RCS_FORMS = [
  {
    messagebaseformId: 'SS000000',
    formName: 'Description (free text)',
    cardType: 'free',
    bizCondition: [],
    bizCategory: 'general',
    bizService: 'notice',
    productCode: 'des',
    spec: 'description',
    mediaUrl: [],
    guideInfo: { maxLineCount: 30, maxDisplayText: 1300 },
  },
  {
    messagebaseformId: 'SS000001',
    formName: 'Cell (title + text)',
    cardType: 'cell',
    bizCondition: [],
    bizCategory: 'general',
    bizService: 'notice',
    productCode: 'cell',
    spec: 'cell',
    mediaUrl: [],
    guideInfo: { maxLineCount: 10, maxDescriptionSize: 400 },
  },
] as const;

export const SIM_RCS_DEFAULT_TEMPLATES = [
  {
    messagebaseId: 'CMN-0001',
    tmpltName: 'Delivery notice',
    messagebaseformId: 'SS000001',
    productCode: 'cell',
    cardType: 'cell',
  },
  {
    messagebaseId: 'CMN-0002',
    tmpltName: 'Free notice',
    messagebaseformId: 'SS000000',
    productCode: 'des',
    cardType: 'free',
  },
] as const;

/** A required, non-empty string. */
const required = z.string().check(z.minLength(1, 'is required'));

/** A required string of at most `max` characters, counted as code points as a reader would. */
const text = (max: number) =>
  required.check(z.refine((value) => [...value].length <= max, `at most ${max} characters`));

/** Headers `apiId` / `apiSecret` of the brand endpoints (spec 03 §2). */
export const PortalHeadersSchema = z.object({
  apiId: text(RCS_LIMITS.apiId),
  apiSecret: text(RCS_LIMITS.apiSecret),
});

/** One `regBrand.menus` element. Silent in the spec: buttonType required, feedinfoYn `Y`/`N`. */
const MenuSchema = z.strictObject({
  buttonType: text(RCS_LIMITS.menuButtonType),
  weblink: z.optional(
    text(RCS_LIMITS.menuWeblink).check(
      z.refine((value) => /^https?:\/\//.test(value), 'must start with http:// or https://'),
    ),
  ),
  feedinfoYn: z.optional(z.enum(['Y', 'N'])),
});

const optionalText = z.optional(z.string());

/** `regBrand` of brand register and update (spec 03 §4.1). */
const RegBrandSchema = z.strictObject({
  name: text(RCS_LIMITS.brandName),
  description: text(RCS_LIMITS.brandDescription),
  tel: text(RCS_LIMITS.brandTel),
  menus: z.optional(
    z
      .array(MenuSchema)
      .check(
        z.maxLength(
          RCS_LIMITS.menus,
          `at most ${RCS_LIMITS.menus} menus (chat is added by default)`,
        ),
      ),
  ),
  categoryId: required,
  subCategoryId: required,
  categoryOpt: optionalText,
  zipCode: optionalText,
  roadAddress: optionalText,
  detailAddress: optionalText,
  email: optionalText,
  webSiteUrl: optionalText,
});

/**
 * A chatbot input object (spec 03 §2). `service` is `A2P` or `CHAT`; the spec has seen `a2p`
 * on the wire, so the simulator compares without regard to case.
 */
const ChatbotInputSchema = z.strictObject({
  mdn: text(RCS_LIMITS.mdn),
  rcsReply: z.enum(['0', '1']),
  subTitle: text(RCS_LIMITS.chatbotName),
  service: z.string().check(
    z.maxLength(RCS_LIMITS.serviceType),
    z.refine((value) => ['A2P', 'CHAT'].includes(value.toUpperCase()), 'must be A2P or CHAT'),
  ),
  display: z.optional(z.enum(['00', '01'])),
});
export type SimChatbotInput = z.infer<typeof ChatbotInputSchema>;

const brandShape = {
  regBrand: RegBrandSchema,
  mainMdn: text(RCS_LIMITS.mdn),
  profileImgFilePath: required,
  bgImgFilePath: z.optional(z.string()),
};

/** Body of `POST /rcs/v1/brand`: `mainMdn` must be one of `chatbots` (spec 03 §4.1). */
export const BrandRegisterSchema = z
  .strictObject({
    ...brandShape,
    certiFilePath: z.optional(z.string()),
    chatbots: z.array(ChatbotInputSchema).check(z.minLength(1, 'at least one chatbot')),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (!body.chatbots.some((chatbot) => chatbot.mdn === body.mainMdn)) {
        ctx.addIssue({
          code: 'custom',
          path: ['mainMdn'],
          message: 'must be the mdn of one of the chatbots',
        });
      }
    }),
  );

/** Body of `PUT /rcs/v1/brand/{brandId}`: no chatbots, no certificate (spec 03 §4.1). */
export const BrandUpdateSchema = z.strictObject(brandShape);
export type SimBrandBody = z.infer<typeof BrandUpdateSchema>;

/** Body of chatbot register and update (spec 03 §4.2). */
export const ChatbotRegisterSchema = z.strictObject({
  subNumCertificate: required,
  chatbots: z.array(ChatbotInputSchema).check(z.minLength(1, 'at least one chatbot')),
});

/** A refused field: where, and why. */
export interface FieldProblem {
  readonly field: string;
  readonly reason: string;
}

export const firstProblem = (error: z.core.$ZodError): FieldProblem => {
  const [issue] = error.issues;
  return {
    field: issue?.path.join('.') || '(body)',
    reason: issue?.message ?? 'invalid',
  };
};

/**
 * `offset` / `limit` of every list: strings of digits, defaults 0 and 100, limit 1..1000
 * (spec 03 §4.1). An empty parameter reads as absent; a limit of 0 is refused (silent in the spec).
 */
export const readPage = (
  query: URLSearchParams,
): { offset: number; limit: number } | FieldProblem => {
  const read = (name: string, fallback: number): number | FieldProblem => {
    const raw = query.get(name);
    if (raw === null || raw === '') return fallback;
    return /^\d+$/.test(raw) ? Number(raw) : { field: name, reason: 'must be a whole number' };
  };
  const offset = read('offset', 0);
  if (typeof offset !== 'number') return offset;
  const limit = read('limit', RCS_LIMITS.listLimitDefault);
  if (typeof limit !== 'number') return limit;
  if (limit < 1 || limit > RCS_LIMITS.listLimitMax) {
    return { field: 'limit', reason: `must be 1 to ${RCS_LIMITS.listLimitMax}` };
  }
  return { offset, limit };
};
