import { formatKst } from '../protocol/kst.ts';
import type { SimContext } from './context.ts';
import { envelope, ok } from './context.ts';
import {
  BrandRegisterSchema,
  BrandUpdateSchema,
  ChatbotRegisterSchema,
  type FieldProblem,
  firstProblem,
  PortalHeadersSchema,
  RCS_CHATBOT_ID_UNUSABLE,
  RCS_LIMITS,
  RCS_ROUTES,
  type RcsPathName,
  readPage,
  SIM_RCS_CATEGORIES,
  SIM_RCS_DEFAULT_TEMPLATES,
  SIM_RCS_FORMS,
  type SimBrandBody,
  type SimChatbotInput,
} from './rcs-rules.ts';
import type { Router, SimHandler, SimRequest, SimResponse } from './router.ts';
import type * as z from './zod.ts';

/**
 * RCS brands, chatbots and the template catalogue, spec 03. All on the bearer token; brand
 * endpoints also need the portal headers, chatbot endpoints the brand's `brandKey`. What a request
 * must look like is in `rcs-rules.ts`; choices (the spec leaves them open) are listed in
 * `simulator/README.md`.
 */
export const RCS_CODES = {
  invalidField: '21001',
  portalRefused: '22801',
  unknownBrand: '22802',
  brandHasChatbots: '22803',
  unknownChatbot: '22804',
  badBrandKey: '22805',
  chatbotUnderReview: '22806',
  unknownCategory: '22807',
  mdnTaken: '22808',
  unknownForm: '22809',
  unknownTemplate: '22810',
  chatbotIdUnusable: RCS_CHATBOT_ID_UNUSABLE,
  /** Nested in `21399`: the chat-room id has an invalid format. */
  nestedInvalidId: '40001',
  /** Nested in `21399`: the chat-room id is already registered. */
  nestedIdTaken: '40002',
} as const;

/** The brand-portal account the simulator knows (headers `apiId` / `apiSecret`). */
export const SIM_RCS_PORTAL = { apiId: 'sim-portal', apiSecret: 'sim-portal-secret' } as const;

/** Approval states, as the gateway's localized text. */
export const RCS_APPROVAL = {
  pending: '승인대기',
  approved: '승인',
  rejected: '반려',
} as const;
const APPROVAL_TEXTS = new Set<string>(Object.values(RCS_APPROVAL));

interface Chatbot {
  readonly chatbotId: string;
  readonly brandId: string;
  input: SimChatbotInput;
  isMainNum: boolean;
  approvalResult: string;
  readonly registeredAt: number;
  updatedAt: number | undefined;
}

interface Brand {
  readonly brandId: string;
  readonly brandKey: string;
  body: SimBrandBody;
  approvalStatus: string;
  readonly registeredAt: number;
  updatedAt: number | undefined;
}

const dateTime = (instant: number | undefined): string | null =>
  instant === undefined ? null : formatKst(instant, 'YYYY-MM-DD HH:mm:ss');

/** Chat-room ids the check accepts: digits only, at most 40 (the mdn limit). */
const CHATBOT_ID_PATTERN = /^\d{1,40}$/;

export const createRcs = (ctx: SimContext) => {
  const brands = new Map<string, Brand>();
  const chatbots = new Map<string, Chatbot>();
  let nextBrand = 1;

  const fail = (code: string, message: string, status = 400, data?: unknown): SimResponse =>
    envelope(code, message, data, status);

  const invalid = ({ field, reason }: FieldProblem): SimResponse =>
    fail(RCS_CODES.invalidField, `${field}: ${reason}`);

  const header = (request: SimRequest, name: string): string | undefined => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };

  /** Bearer, then the portal headers (present, within limits, the known account). */
  const requirePortal = (request: SimRequest): SimResponse | undefined => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    const parsed = PortalHeadersSchema.safeParse({
      apiId: header(request, 'apiId'),
      apiSecret: header(request, 'apiSecret'),
    });
    if (!parsed.success) return invalid(firstProblem(parsed.error));
    if (
      parsed.data.apiId !== SIM_RCS_PORTAL.apiId ||
      parsed.data.apiSecret !== SIM_RCS_PORTAL.apiSecret
    ) {
      return fail(RCS_CODES.portalRefused, 'apiId / apiSecret not recognised by the brand portal');
    }
    return undefined;
  };

  const parseBody = <S extends z.ZodMiniType>(
    request: SimRequest,
    schema: S,
  ): { data: z.output<S> } | { response: SimResponse } => {
    const parsed = schema.safeParse(request.json() ?? {});
    return parsed.success
      ? { data: parsed.data }
      : { response: invalid(firstProblem(parsed.error)) };
  };

  const page = (request: SimRequest): { offset: number; limit: number } | SimResponse => {
    const window = readPage(request.query);
    return 'field' in window ? invalid(window) : window;
  };

  const paginate = <T>(items: readonly T[], window: { offset: number; limit: number }) => ({
    result: items.slice(window.offset, window.offset + window.limit),
    pagination: { total: items.length, offset: window.offset, limit: window.limit },
  });

  const checkCategory = (regBrand: { categoryId: string; subCategoryId: string }) => {
    const category = SIM_RCS_CATEGORIES.find((c) => c.categoryId === regBrand.categoryId);
    const sub = category?.subCategories.find((s) => s.subCategoryId === regBrand.subCategoryId);
    return sub
      ? undefined
      : fail(
          RCS_CODES.unknownCategory,
          `no category ${regBrand.categoryId}/${regBrand.subCategoryId}`,
        );
  };

  const chatbotsOf = (brandId: string) =>
    [...chatbots.values()].filter((chatbot) => chatbot.brandId === brandId);

  const brandView = (brand: Brand) => {
    const category = SIM_RCS_CATEGORIES.find(
      (c) => c.categoryId === brand.body.regBrand.categoryId,
    );
    return {
      brandId: brand.brandId,
      brandKey: brand.brandKey,
      name: brand.body.regBrand.name,
      agencyId: null,
      approvalStatus: brand.approvalStatus,
      registerDate: dateTime(brand.registeredAt),
      updateDate: dateTime(brand.updatedAt),
      mediaUrl: [],
      menus: brand.body.regBrand.menus ?? [],
      description: brand.body.regBrand.description,
      tel: brand.body.regBrand.tel,
      categoryId: brand.body.regBrand.categoryId,
      categoryName: category?.categoryName ?? null,
      subCategoryId: brand.body.regBrand.subCategoryId,
      approvalReason: null,
    };
  };

  const brandListView = (brand: Brand) => ({
    brandId: brand.brandId,
    brandKey: brand.brandKey,
    brandName: brand.body.regBrand.name,
    status: brand.approvalStatus,
    regDt: dateTime(brand.registeredAt),
    updDt: dateTime(brand.updatedAt),
  });

  const chatbotView = (chatbot: Chatbot) => ({
    chatbotId: chatbot.chatbotId,
    brandId: chatbot.brandId,
    isMainNum: chatbot.isMainNum ? 'Y' : 'N',
    subNum: chatbot.input.mdn,
    subTitle: chatbot.input.subTitle,
    service: chatbot.input.service,
    display: chatbot.input.display ?? '01',
    rcsReply: chatbot.input.rcsReply,
    approvalResult: chatbot.approvalResult,
    registerDate: dateTime(chatbot.registeredAt),
    approvalDate: null,
    updateDate: dateTime(chatbot.updatedAt),
    registerId: SIM_RCS_PORTAL.apiId,
    updateId: null,
  });

  const addChatbots = (brandId: string, inputs: readonly SimChatbotInput[], mainMdn?: string) => {
    const now = ctx.clock.now();
    return inputs.map((input) => {
      const chatbot: Chatbot = {
        chatbotId: input.mdn,
        brandId,
        input,
        isMainNum: input.mdn === mainMdn,
        approvalResult: RCS_APPROVAL.pending,
        registeredAt: now,
        updatedAt: undefined,
      };
      chatbots.set(chatbot.chatbotId, chatbot);
      return chatbot;
    });
  };

  const takenMdn = (inputs: readonly SimChatbotInput[]) => {
    const seen = new Set<string>();
    for (const { mdn } of inputs) {
      if (chatbots.has(mdn) || seen.has(mdn)) {
        return fail(RCS_CODES.mdnTaken, `mdn ${mdn} is already registered`);
      }
      seen.add(mdn);
    }
    return undefined;
  };

  const brandOf = (request: SimRequest): { brand: Brand } | { response: SimResponse } => {
    const brandId = request.params.brandId ?? '';
    const brand = brands.get(brandId);
    return brand
      ? { brand }
      : { response: fail(RCS_CODES.unknownBrand, `no brand ${brandId}`, 404) };
  };

  /** The portal account, then the brand of the path: the brand calls of spec 03 §4.1. */
  const portalBrand = (request: SimRequest): { brand: Brand } | { response: SimResponse } => {
    const denied = requirePortal(request);
    return denied ? { response: denied } : brandOf(request);
  };

  /** Bearer, the brand, and its `brandKey` header. */
  const brandWithKey = (request: SimRequest): { brand: Brand } | { response: SimResponse } => {
    const denied = ctx.requireBearer(request);
    if (denied) return { response: denied };
    // Spec 03 §4.2 limits brandId to 13 in the chatbot paths; the brand paths state no limit.
    const brandId = request.params.brandId ?? '';
    if (brandId.length > RCS_LIMITS.brandIdInChatbotPath) {
      return {
        response: invalid({
          field: 'brandId',
          reason: `at most ${RCS_LIMITS.brandIdInChatbotPath} characters`,
        }),
      };
    }
    const found = brandOf(request);
    if ('response' in found) return found;
    const key = header(request, 'brandKey');
    if (key === undefined || key === '') {
      return { response: fail(RCS_CODES.invalidField, 'brandKey header is required') };
    }
    if ([...key].length > RCS_LIMITS.brandKey) {
      return {
        response: invalid({
          field: 'brandKey',
          reason: `at most ${RCS_LIMITS.brandKey} characters`,
        }),
      };
    }
    if (key !== found.brand.brandKey) {
      return {
        response: fail(RCS_CODES.badBrandKey, `brandKey does not match ${found.brand.brandId}`),
      };
    }
    return found;
  };

  const chatbotOf = (
    request: SimRequest,
    brand: Brand,
  ): { chatbot: Chatbot } | { response: SimResponse } => {
    const chatbotId = request.params.chatbotId ?? '';
    const chatbot = chatbots.get(chatbotId);
    return chatbot && chatbot.brandId === brand.brandId
      ? { chatbot }
      : {
          response: fail(
            RCS_CODES.unknownChatbot,
            `no chatbot ${chatbotId} in ${brand.brandId}`,
            404,
          ),
        };
  };

  const handlers: Record<RcsPathName, SimHandler> = {
    brandCategories: (request) => ctx.requireBearer(request) ?? ok(SIM_RCS_CATEGORIES),

    listBrands: (request) => {
      const denied = requirePortal(request);
      if (denied) return denied;
      const window = page(request);
      if ('status' in window) return window;
      // Spec 03 §4.1: `result` and `pagination` beside `code` and `message`, not in `data`.
      return {
        status: 200,
        body: {
          code: '10000',
          message: 'success',
          ...paginate([...brands.values()].map(brandListView), window),
        },
      };
    },

    getBrand: (request) => {
      const found = portalBrand(request);
      if ('response' in found) return found.response;
      return ok([brandView(found.brand)]);
    },

    registerBrand: (request) => {
      const denied = requirePortal(request);
      if (denied) return denied;
      const parsed = parseBody(request, BrandRegisterSchema);
      if ('response' in parsed) return parsed.response;
      const { chatbots: inputs, certiFilePath: _certificate, ...body } = parsed.data;
      const refused = checkCategory(body.regBrand) ?? takenMdn(inputs);
      if (refused) return refused;
      const serial = String(nextBrand++).padStart(5, '0');
      const brand: Brand = {
        brandId: `BR.sim${serial}`,
        brandKey: `BK.sim${serial}`,
        body,
        approvalStatus: RCS_APPROVAL.pending,
        registeredAt: ctx.clock.now(),
        updatedAt: undefined,
      };
      brands.set(brand.brandId, brand);
      addChatbots(brand.brandId, inputs, body.mainMdn);
      ctx.log(`rcs brand ${brand.brandId} registered (brandKey ${brand.brandKey})`);
      return ok({ brandId: brand.brandId });
    },

    updateBrand: (request) => {
      const found = portalBrand(request);
      if ('response' in found) return found.response;
      const own = chatbotsOf(found.brand.brandId);
      const parsed = parseBody(request, BrandUpdateSchema);
      if ('response' in parsed) return parsed.response;
      const refused = checkCategory(parsed.data.regBrand);
      if (refused) return refused;
      if (!own.some((chatbot) => chatbot.input.mdn === parsed.data.mainMdn)) {
        return fail(
          RCS_CODES.invalidField,
          `mainMdn: ${parsed.data.mainMdn} is not a chatbot of the brand`,
        );
      }
      for (const chatbot of own) chatbot.isMainNum = chatbot.input.mdn === parsed.data.mainMdn;
      found.brand.body = parsed.data;
      found.brand.updatedAt = ctx.clock.now();
      return ok();
    },

    deleteBrand: (request) => {
      const found = portalBrand(request);
      if ('response' in found) return found.response;
      const count = chatbotsOf(found.brand.brandId).length;
      if (count > 0) {
        return fail(
          RCS_CODES.brandHasChatbots,
          `brand ${found.brand.brandId} still has ${count} chatbot(s); delete them first`,
        );
      }
      brands.delete(found.brand.brandId);
      return ok();
    },

    listChatbots: (request) => {
      const found = brandWithKey(request);
      if ('response' in found) return found.response;
      const window = page(request);
      if ('status' in window) return window;
      return ok(paginate(chatbotsOf(found.brand.brandId).map(chatbotView), window));
    },

    getChatbot: (request) => {
      const found = brandWithKey(request);
      if ('response' in found) return found.response;
      const bot = chatbotOf(request, found.brand);
      if ('response' in bot) return bot.response;
      return {
        status: 200,
        body: { code: '10000', message: 'success', data: [chatbotView(bot.chatbot)], meta: {} },
      };
    },

    registerChatbots: (request) => {
      const found = brandWithKey(request);
      if ('response' in found) return found.response;
      const parsed = parseBody(request, ChatbotRegisterSchema);
      if ('response' in parsed) return parsed.response;
      const refused = takenMdn(parsed.data.chatbots);
      if (refused) return refused;
      const added = addChatbots(found.brand.brandId, parsed.data.chatbots);
      return {
        status: 200,
        body: { code: '10000', message: 'success', data: added.map(chatbotView), meta: {} },
      };
    },

    updateChatbot: (request) => {
      const found = brandWithKey(request);
      if ('response' in found) return found.response;
      const bot = chatbotOf(request, found.brand);
      if ('response' in bot) return bot.response;
      const parsed = parseBody(request, ChatbotRegisterSchema);
      if ('response' in parsed) return parsed.response;
      const { chatbot } = bot;
      if (chatbot.approvalResult === RCS_APPROVAL.pending) {
        return fail(
          RCS_CODES.chatbotUnderReview,
          `chatbot ${chatbot.chatbotId} is awaiting approval`,
        );
      }
      const [input] = parsed.data.chatbots;
      if (!input || input.mdn !== chatbot.chatbotId || parsed.data.chatbots.length !== 1) {
        return fail(
          RCS_CODES.invalidField,
          `chatbots: give exactly one entry with mdn ${chatbot.chatbotId}`,
        );
      }
      chatbot.input = input;
      chatbot.updatedAt = ctx.clock.now();
      // A changed chatbot goes back for approval.
      chatbot.approvalResult = RCS_APPROVAL.pending;
      return {
        status: 200,
        body: { code: '10000', message: 'success', data: [chatbotView(chatbot)], meta: {} },
      };
    },

    deleteChatbot: (request) => {
      const found = brandWithKey(request);
      if ('response' in found) return found.response;
      const bot = chatbotOf(request, found.brand);
      if ('response' in bot) return bot.response;
      if (bot.chatbot.approvalResult === RCS_APPROVAL.pending) {
        return fail(
          RCS_CODES.chatbotUnderReview,
          `chatbot ${bot.chatbot.chatbotId} is awaiting approval`,
        );
      }
      chatbots.delete(bot.chatbot.chatbotId);
      return ok({});
    },

    checkChatbotId: (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const chatbotId = request.params.chatbotId ?? '';
      if (!CHATBOT_ID_PATTERN.test(chatbotId)) {
        return fail(RCS_CODES.chatbotIdUnusable, 'chat room id check failed', 400, {
          code: RCS_CODES.nestedInvalidId,
          message: `invalid chat room id format: ${chatbotId}`,
        });
      }
      if (chatbots.has(chatbotId)) {
        return fail(RCS_CODES.chatbotIdUnusable, 'chat room id check failed', 400, {
          code: RCS_CODES.nestedIdTaken,
          message: `chat room id ${chatbotId} is already registered`,
        });
      }
      return ok({
        httpStatus: 200,
        status: 'OK',
        code: '200',
        error: null,
        desc: 'usable',
        result: { chatbotId },
      });
    },

    listForms: (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const window = page(request);
      if ('status' in window) return window;
      return ok(
        paginate(
          SIM_RCS_FORMS.map(
            ({ mediaUrl: _m, productCode: _p, spec: _s, guideInfo: _g, ...form }) => form,
          ),
          window,
        ),
      );
    },

    getForm: (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const window = page(request);
      if ('status' in window) return window;
      const id = request.params.messagebaseformId ?? '';
      const form = SIM_RCS_FORMS.find((f) => f.messagebaseformId === id);
      return form ? ok([form]) : fail(RCS_CODES.unknownForm, `no template form ${id}`, 404);
    },

    listDefaultTemplates: (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const window = page(request);
      if ('status' in window) return window;
      const formId = request.query.get('messagebaseformId');
      if (!formId) return fail(RCS_CODES.invalidField, 'messagebaseformId is required');
      if (!SIM_RCS_FORMS.some((f) => f.messagebaseformId === formId)) {
        return fail(RCS_CODES.unknownForm, `no template form ${formId}`, 404);
      }
      return ok(
        paginate(
          SIM_RCS_DEFAULT_TEMPLATES.filter((t) => t.messagebaseformId === formId).map(
            ({ productCode: _p, cardType: _c, ...template }) => ({
              ...template,
              status: 'ready',
              approvalResult: RCS_APPROVAL.approved,
            }),
          ),
          window,
        ),
      );
    },

    getDefaultTemplate: (request) => {
      const denied = ctx.requireBearer(request);
      if (denied) return denied;
      const id = request.params.messagebaseId ?? '';
      const template = SIM_RCS_DEFAULT_TEMPLATES.find((t) => t.messagebaseId === id);
      if (!template) return fail(RCS_CODES.unknownTemplate, `no default template ${id}`, 404);
      const form = SIM_RCS_FORMS.find((f) => f.messagebaseformId === template.messagebaseformId);
      return ok([
        {
          ...template,
          status: 'ready',
          approvalResult: RCS_APPROVAL.approved,
          spec: form?.spec ?? null,
          guideInfo: form?.guideInfo ?? null,
        },
      ]);
    },
  };

  /** `POST /_sim/rcs/{brands|chatbots}/{id}/approval` `{status}`: the brand portal's decision. */
  const setApproval =
    (kind: 'brand' | 'chatbot'): SimHandler =>
    (request) => {
      const id = request.params.id ?? '';
      const target = kind === 'brand' ? brands.get(id) : chatbots.get(id);
      if (!target) {
        return fail(
          kind === 'brand' ? RCS_CODES.unknownBrand : RCS_CODES.unknownChatbot,
          `no ${kind} ${id}`,
          404,
        );
      }
      const value = request.json();
      const status =
        value !== null && typeof value === 'object' && 'status' in value
          ? String(value.status)
          : '';
      if (!APPROVAL_TEXTS.has(status)) {
        return fail(
          RCS_CODES.invalidField,
          `status: expected one of ${[...APPROVAL_TEXTS].join(', ')}`,
        );
      }
      if ('approvalStatus' in target) target.approvalStatus = status;
      else target.approvalResult = status;
      return ok({ id, status });
    };

  return {
    register(router: Router): void {
      // Fixed segments (`brand/categories`) before `brand/{brandId}`: the first match wins.
      router.addAll(RCS_ROUTES, handlers);
      router.add('POST', '/_sim/rcs/brands/:id/approval', setApproval('brand'));
      router.add('POST', '/_sim/rcs/chatbots/:id/approval', setApproval('chatbot'));
    },
  };
};
