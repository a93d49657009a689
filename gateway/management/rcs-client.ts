import { BearerGatewayClient, type BearerGatewayClientOptions } from '../bearer/bearer-client.ts';
import { type Endpoint, type GatewayCall, GatewayHttp, parseData } from '../envelope.ts';
import { GatewayError, GatewayRejectedError } from '../errors.ts';
import { GatewayRequestInvalidError, validateRequest } from '../request-validation.ts';
import {
  RCS_CHATBOT_ID_UNUSABLE_CODE,
  RCS_MANAGEMENT_PATHS,
  RcsBrandCategoryListDataSchema,
  RcsBrandDetailDataSchema,
  RcsBrandIdSchema,
  RcsBrandKeySchema,
  RcsBrandListSchema,
  RcsBrandRegisterDataSchema,
  RcsBrandRegisterRequestSchema,
  RcsBrandUpdateRequestSchema,
  RcsChatbotArrayDataSchema,
  type RcsChatbotIdCheckData,
  RcsChatbotIdCheckDataSchema,
  RcsChatbotListDataSchema,
  RcsChatbotRegisterRequestSchema,
  RcsDefaultTemplateDetailDataSchema,
  RcsDefaultTemplateListDataSchema,
  type RcsManagementPathName,
  RcsNestedErrorDataSchema,
  type RcsPageQueryInput,
  RcsPageQuerySchema,
  type RcsPortalCredentials,
  RcsPortalCredentialsSchema,
  RcsTemplateFormDetailDataSchema,
  RcsTemplateFormListDataSchema,
} from '../schemas/index.ts';
import * as z from '../schemas/zod.ts';
import { type HttpTransport, nodeTransport } from '../transport.ts';

/**
 * The chat-room id check answered `21399`: the id has an invalid format or is already
 * registered. `code` stays the outer `21399`; `nestedCode` and `nestedMessage` are the
 * upstream reason from `data.code` / `data.message`, also written into the error message.
 */
export class RcsChatbotIdUnusableError extends GatewayRejectedError {
  constructor(
    readonly chatbotId: string,
    readonly nestedCode: string,
    readonly nestedMessage: string,
    outer: GatewayError,
  ) {
    super({
      code: outer.code,
      message: `${outer.gatewayMessage} (upstream ${nestedCode}: ${nestedMessage})`.trim(),
      endpoint: outer.endpoint,
      ...(outer.httpStatus === undefined ? {} : { httpStatus: outer.httpStatus }),
      cause: outer,
    });
  }
}

export interface GatewayRcsManagementClientOptions extends BearerGatewayClientOptions {
  /**
   * Brand-portal account sent as the `apiId` / `apiSecret` headers of the brand endpoints. Only
   * the brand calls need it; without it they refuse before any request.
   * @default - none: chatbot and template-catalogue calls only
   */
  readonly portal?: RcsPortalCredentials;
}

const endpoint = (name: RcsManagementPathName): Endpoint => ({
  host: 'mnt',
  ...RCS_MANAGEMENT_PATHS[name],
});

const BrandPathSchema = z.strictObject({ brandId: RcsBrandIdSchema });
const ChatbotPathSchema = z.strictObject({
  brandId: RcsBrandIdSchema,
  chatbotId: z.string().check(z.minLength(1)),
  brandKey: RcsBrandKeySchema,
});
const BrandKeyPathSchema = z.strictObject({
  brandId: RcsBrandIdSchema,
  brandKey: RcsBrandKeySchema,
});
const IdSchema = z.string().check(z.minLength(1));

/**
 * The typed client of the RCS management API of spec 03 (brands, chatbots, template catalogue),
 * all on {mnt_url}, on the bearer token. Brand calls add the portal account's `apiId` and
 * `apiSecret` headers; chatbot calls the brand's `brandKey`. Like {@link GatewayManagementClient}:
 * requests are validated before the call and `data` after it; calls retry once with a fresh
 * token on an authentication-family answer.
 */
export class GatewayRcsManagementClient extends BearerGatewayClient {
  private readonly options: GatewayRcsManagementClientOptions;
  private readonly portal: Readonly<Record<string, string>> | undefined;

  constructor(options: GatewayRcsManagementClientOptions) {
    super(options);
    this.options = options;
    if (options.portal !== undefined) {
      const portal = validateRequest(
        RcsPortalCredentialsSchema,
        options.portal,
        endpoint('listBrands'),
      );
      this.portal = { apiId: portal.apiId, apiSecret: portal.apiSecret };
    }
  }

  /** The `apiId`/`apiSecret` headers of a brand call; refused before the call without a portal account. */
  private portalHeaders(target: Endpoint): Readonly<Record<string, string>> {
    if (this.portal) return this.portal;
    throw new GatewayRequestInvalidError(`${target.method} ${target.path}`, [
      {
        code: 'custom',
        path: ['portal'],
        message: 'brand calls need the brand portal account (apiId and apiSecret)',
        input: undefined,
      },
    ]);
  }

  // --- Brands (spec 03 §4.1) -------------------------------------------------------------------

  async listBrands(page: RcsPageQueryInput = {}) {
    const target = endpoint('listBrands');
    const query = validateRequest(RcsPageQuerySchema, page, target);
    const envelope = await this.brandCall(target, { query });
    // The spec puts `result` and `pagination` beside `code`; `data` is read when it holds them.
    return parseData(RcsBrandListSchema, envelope.data ?? envelope, target);
  }

  /** The brand's detail; `undefined` when the gateway answers an empty list. */
  async getBrand(brandId: string) {
    const target = endpoint('getBrand');
    const pathParams = validateRequest(BrandPathSchema, { brandId }, target);
    const envelope = await this.brandCall(target, { pathParams });
    return parseData(RcsBrandDetailDataSchema, envelope.data, target)[0];
  }

  async listBrandCategories() {
    const target = endpoint('brandCategories');
    const envelope = await this.brandCall(target);
    return parseData(RcsBrandCategoryListDataSchema, envelope.data, target);
  }

  /** Registers a brand with its chatbots; answers the new `brandId`. */
  async registerBrand(request: z.input<typeof RcsBrandRegisterRequestSchema>): Promise<string> {
    const target = endpoint('registerBrand');
    const json = validateRequest(RcsBrandRegisterRequestSchema, request, target);
    const envelope = await this.brandCall(target, { json });
    return parseData(RcsBrandRegisterDataSchema, envelope.data, target).brandId;
  }

  async updateBrand(
    brandId: string,
    request: z.input<typeof RcsBrandUpdateRequestSchema>,
  ): Promise<void> {
    const target = endpoint('updateBrand');
    const pathParams = validateRequest(BrandPathSchema, { brandId }, target);
    const json = validateRequest(RcsBrandUpdateRequestSchema, request, target);
    await this.brandCall(target, { pathParams, json });
  }

  async deleteBrand(brandId: string): Promise<void> {
    const target = endpoint('deleteBrand');
    const pathParams = validateRequest(BrandPathSchema, { brandId }, target);
    await this.brandCall(target, { pathParams });
  }

  // --- Chatbots (spec 03 §4.2) -----------------------------------------------------------------

  async listChatbots(brandId: string, brandKey: string, page: RcsPageQueryInput = {}) {
    const target = endpoint('listChatbots');
    const data = await this.brandKeyCall(target, BrandKeyPathSchema, { brandId, brandKey }, () => ({
      query: validateRequest(RcsPageQuerySchema, page, target),
    }));
    return parseData(RcsChatbotListDataSchema, data, target);
  }

  /** The chatbot's detail; `undefined` when the gateway answers an empty list. */
  async getChatbot(brandId: string, chatbotId: string, brandKey: string) {
    const target = endpoint('getChatbot');
    const ids = { brandId, chatbotId, brandKey };
    const data = await this.brandKeyCall(target, ChatbotPathSchema, ids);
    return parseData(RcsChatbotArrayDataSchema, data, target)[0];
  }

  /** Registers chatbots under the brand; they wait for the brand portal's approval. */
  async registerChatbots(
    brandId: string,
    brandKey: string,
    request: z.input<typeof RcsChatbotRegisterRequestSchema>,
  ) {
    const target = endpoint('registerChatbots');
    const data = await this.brandKeyCall(target, BrandKeyPathSchema, { brandId, brandKey }, () => ({
      json: validateRequest(RcsChatbotRegisterRequestSchema, request, target),
    }));
    return parseData(RcsChatbotArrayDataSchema, data, target);
  }

  async updateChatbot(
    brandId: string,
    chatbotId: string,
    brandKey: string,
    request: z.input<typeof RcsChatbotRegisterRequestSchema>,
  ) {
    const target = endpoint('updateChatbot');
    const json = validateRequest(RcsChatbotRegisterRequestSchema, request, target);
    const ids = { brandId, chatbotId, brandKey };
    const data = await this.brandKeyCall(target, ChatbotPathSchema, ids, () => ({ json }));
    return parseData(RcsChatbotArrayDataSchema, data, target);
  }

  async deleteChatbot(brandId: string, chatbotId: string, brandKey: string): Promise<void> {
    const ids = { brandId, chatbotId, brandKey };
    await this.brandKeyCall(endpoint('deleteChatbot'), ChatbotPathSchema, ids);
  }

  /**
   * Whether a chat-room id can be registered. Answers the check's `data` when it can; throws
   * {@link RcsChatbotIdUnusableError} (outer `21399`, with the nested code and message) when
   * the id has an invalid format or is already registered.
   */
  async checkChatbotId(chatbotId: string): Promise<RcsChatbotIdCheckData> {
    const target = endpoint('checkChatbotId');
    const id = validateRequest(IdSchema, chatbotId, target);
    // A per-call wire layer whose transport keeps the answer's body: the shared one drops an
    // error body's `data`, which is where `21399` puts the reason.
    let lastBody: string | undefined;
    const base: HttpTransport = this.options.transport ?? nodeTransport;
    const http = new GatewayHttp({
      ...this.options,
      transport: async (call) => {
        const answer = await base(call);
        lastBody = answer.text;
        return answer;
      },
    });
    try {
      const envelope = await this.withToken((token) =>
        http.call({ endpoint: target, pathParams: { chatbotId: id }, auth: { bearer: token } }),
      );
      return parseData(RcsChatbotIdCheckDataSchema, envelope.data, target);
    } catch (error) {
      if (error instanceof GatewayError && error.code === RCS_CHATBOT_ID_UNUSABLE_CODE) {
        const nested = nestedError(lastBody);
        if (nested) throw new RcsChatbotIdUnusableError(id, nested.code, nested.message, error);
      }
      throw error;
    }
  }

  // --- Template catalogue (spec 03 §4.3) -------------------------------------------------------

  async listTemplateForms(page: RcsPageQueryInput = {}) {
    const target = endpoint('listForms');
    const query = validateRequest(RcsPageQuerySchema, page, target);
    const envelope = await this.withBearer({ endpoint: target, query });
    return parseData(RcsTemplateFormListDataSchema, envelope.data, target);
  }

  /** The form's detail; `undefined` when the gateway answers an empty list. */
  async getTemplateForm(messagebaseformId: string, page: RcsPageQueryInput = {}) {
    const target = endpoint('getForm');
    const id = validateRequest(IdSchema, messagebaseformId, target);
    const query = validateRequest(RcsPageQuerySchema, page, target);
    const envelope = await this.withBearer({
      endpoint: target,
      pathParams: { messagebaseformId: id },
      query,
    });
    return parseData(RcsTemplateFormDetailDataSchema, envelope.data, target)[0];
  }

  /** Carrier-provided default templates of one form. */
  async listDefaultTemplates(messagebaseformId: string, page: RcsPageQueryInput = {}) {
    const target = endpoint('listDefaultTemplates');
    const id = validateRequest(IdSchema, messagebaseformId, target);
    const query = validateRequest(RcsPageQuerySchema, page, target);
    const envelope = await this.withBearer({
      endpoint: target,
      query: { messagebaseformId: id, ...query },
    });
    return parseData(RcsDefaultTemplateListDataSchema, envelope.data, target);
  }

  /** The default template's detail; `undefined` when the gateway answers an empty list. */
  async getDefaultTemplate(messagebaseId: string) {
    const target = endpoint('getDefaultTemplate');
    const id = validateRequest(IdSchema, messagebaseId, target);
    const envelope = await this.withBearer({ endpoint: target, pathParams: { messagebaseId: id } });
    return parseData(RcsDefaultTemplateDetailDataSchema, envelope.data, target)[0];
  }

  // --- Internals -------------------------------------------------------------------------------

  /** A brand call: with the portal account's `apiId`/`apiSecret` headers, refused without them. */
  private brandCall(
    target: Endpoint,
    call: Pick<GatewayCall, 'pathParams' | 'query' | 'json'> = {},
  ) {
    return this.withBearer({ endpoint: target, ...call, headers: this.portalHeaders(target) });
  }

  /**
   * A chatbot-family call: the ids checked by `pathSchema` go into the path, the `brandKey` into
   * its header. `body` gives the call's query or JSON, checked after the ids. Answers `data`.
   */
  private async brandKeyCall(
    target: Endpoint,
    pathSchema: typeof BrandKeyPathSchema | typeof ChatbotPathSchema,
    ids: z.input<typeof ChatbotPathSchema> | z.input<typeof BrandKeyPathSchema>,
    body: () => Pick<GatewayCall, 'query' | 'json'> = () => ({}),
  ): Promise<unknown> {
    const { brandKey, ...pathParams } = validateRequest(pathSchema, ids, target);
    const envelope = await this.withBearer({
      endpoint: target,
      pathParams,
      headers: { brandKey },
      ...body(),
    });
    return envelope.data;
  }
}

/** `data.code` / `data.message` of a `21399` body, when the body has them. */
const nestedError = (text: string | undefined): { code: string; message: string } | undefined => {
  try {
    const body = JSON.parse(text ?? '') as { data?: unknown };
    const parsed = RcsNestedErrorDataSchema.safeParse(body.data);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};
