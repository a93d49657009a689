import type { GatewayRcsManagementClient } from '../../gateway/management/rcs-client.ts';
import {
  RCS_LIST_LIMIT_DEFAULT,
  RCS_LIST_LIMIT_MAX,
  type RcsBrand,
  type RcsBrandRegisterRequest,
  type RcsBrandUpdateRequest,
  type RcsChatbot,
  type RcsChatbotRegisterRequest,
} from '../../gateway/schemas/index.ts';
import { OperationError } from '../../ops/errors.ts';
import { UsageError } from '../errors.ts';
import {
  type CommandContext,
  type CommandSpec,
  type GroupSpec,
  readJsonFile,
  valueOptions,
} from '../framework.ts';
import { type Column, columns, gatewayTimes } from '../output.ts';

/*
 * `msgbridge rcs brands|chatbots|templates …`: RCS brands, chatbots (sender numbers) and the
 * message-template catalogue (spec 03), one command per method of the RCS management client.
 */

export const RCS_API_ID_ENV = 'MSGBRIDGE_RCS_API_ID';
export const RCS_API_SECRET_ENV = 'MSGBRIDGE_RCS_API_SECRET';

const PORTAL_OPTIONS = valueOptions('api-id', 'api-secret');
const PORTAL_USAGE = `Brand portal account (sent as the apiId/apiSecret headers of every brand call):
  --api-id ID          default: $${RCS_API_ID_ENV}
  --api-secret SECRET  default: $${RCS_API_SECRET_ENV} (prefer the variable: a flag is
                       visible to other users in the process list)`;

/**
 * The RCS client for a brand command, with the brand portal account from the flags or the
 * environment. A missing account is a usage error naming both ways to give it; the secret is
 * never printed.
 */
const brandClient = async (context: CommandContext): Promise<GatewayRcsManagementClient> => {
  const apiId = context.string('api-id') ?? process.env[RCS_API_ID_ENV];
  const apiSecret = context.string('api-secret') ?? process.env[RCS_API_SECRET_ENV];
  const missing = [
    ...(apiId ? [] : [`--api-id or $${RCS_API_ID_ENV}`]),
    ...(apiSecret ? [] : [`--api-secret or $${RCS_API_SECRET_ENV}`]),
  ];
  if (missing.length > 0 || !apiId || !apiSecret) {
    throw new UsageError(`the brand portal account is missing: give ${missing.join(' and ')}`);
  }
  return (await context.target()).gateway().rcs({ apiId, apiSecret });
};

/** The RCS client for chatbot and catalogue commands, which need no portal account. */
const rcsClient = async (context: CommandContext): Promise<GatewayRcsManagementClient> =>
  (await context.target()).gateway().rcs();

/** A brand command: the portal options and usage are added to every one. */
const brandCommand = (spec: CommandSpec): CommandSpec => ({
  ...spec,
  usage: `${spec.usage.trimEnd()}\n\n${PORTAL_USAGE}`,
  options: { ...PORTAL_OPTIONS, ...spec.options },
});

const PAGE_OPTIONS = valueOptions('offset', 'limit');
const PAGE_USAGE = `  --offset N           skip N entries (default 0)
  --limit N            at most N entries, up to ${RCS_LIST_LIMIT_MAX} (default ${RCS_LIST_LIMIT_DEFAULT})`;
const pageOf = (context: CommandContext) => ({
  offset: context.integer('offset', 0, { min: 0 }),
  limit: context.integer('limit', RCS_LIST_LIMIT_DEFAULT, { min: 1, max: RCS_LIST_LIMIT_MAX }),
});

/** A page of a list: with --json the gateway's answer, otherwise its table and `N of TOTAL`. */
const emitPage = <Row>(
  context: CommandContext,
  page: {
    readonly result: readonly Row[];
    readonly pagination?: { total?: number | null | undefined } | null | undefined;
  },
  columns: readonly Column<Row>[],
  empty: string,
) => {
  context.out.emit(page, () => {
    context.out.table(page.result, columns, empty);
    const total = page.pagination?.total;
    if (total !== undefined && total !== null) {
      context.out.line(`${page.result.length} of ${total}`);
    }
  });
};

const requestFile = async <T>(context: CommandContext): Promise<T> =>
  // The client validates the request against its schema before any call.
  (await readJsonFile(context.io, context.required('file'))) as T;

const BRAND_COLUMNS: Column<RcsBrand>[] = gatewayTimes(
  columns({
    BRAND: 'brandId',
    KEY: 'brandKey',
    NAME: (row) => row.name ?? row.brandName,
    STATUS: (row) => row.approvalStatus ?? row.status,
    REGISTERED: (row) => row.registerDate ?? row.regDt,
  }),
  'REGISTERED',
);

// --- Brands ----------------------------------------------------------------------------------

const brandsList = brandCommand({
  summary: 'brands of the portal account',
  usage: `msgbridge rcs brands list [--offset N] [--limit N]

Lists the brands of the brand portal account with their approval status.
${PAGE_USAGE}`,
  options: PAGE_OPTIONS,
  run: async (context) => {
    const page = pageOf(context);
    const list = await (await brandClient(context)).listBrands(page);
    emitPage(context, list, BRAND_COLUMNS, '(no brands)');
    return 0;
  },
});

const brandsGet = brandCommand({
  summary: 'one brand, with its brandKey',
  usage: `msgbridge rcs brands get BRAND_ID

Shows the brand: its brandKey (which the chatbot commands need), approval status, category and
contact details.`,
  positionals: { min: 1, max: 1, name: 'BRAND_ID' },
  run: async (context) => {
    const [brandId = ''] = context.positionals;
    const brand = await (await brandClient(context)).getBrand(brandId);
    if (brand === undefined) throw new OperationError(`the gateway returned no brand ${brandId}`);
    context.out.emit(brand, () => {
      context.out.table(
        [brand],
        [
          ...BRAND_COLUMNS,
          { header: 'CATEGORY', value: (row) => row.subCategoryName ?? row.categoryName },
          { header: 'TEL', key: 'tel' },
        ],
      );
      if (brand.approvalReason) context.out.line(`reason: ${brand.approvalReason}`);
    });
    return 0;
  },
});

const brandsCategories = brandCommand({
  summary: 'brand categories and subcategories',
  usage: `msgbridge rcs brands categories

Lists the brand categories and their subcategories (categoryId and subCategoryId of a brand
register or update request).`,
  run: async (context) => {
    const categories = await (await brandClient(context)).listBrandCategories();
    type Sub = (typeof categories)[number]['subCategories'][number];
    const rows = categories.flatMap((category) =>
      (category.subCategories.length === 0 ? [undefined] : category.subCategories).map(
        (sub: Sub | undefined) => ({ category, sub }),
      ),
    );
    context.out.emit(categories, () =>
      context.out.table(rows, [
        { header: 'CATEGORY', value: (row) => row.category.categoryId },
        { header: 'NAME', value: (row) => row.category.categoryName },
        { header: 'SUBCATEGORY', value: (row) => row.sub?.subCategoryId },
        { header: 'NAME', value: (row) => row.sub?.subCategoryName },
      ]),
    );
    return 0;
  },
});

const brandsRegister = brandCommand({
  summary: 'register a brand with its chatbots',
  usage: `msgbridge rcs brands register --file REQUEST.json

Registers a brand from REQUEST.json (spec 03 §4.1: regBrand, mainMdn, profileImgFilePath,
bgImgFilePath, certiFilePath, chatbots; mainMdn must be one of the chatbots' mdn). Prints the
new brandId; the brand waits for the brand portal's approval.`,
  options: { file: { type: 'string' } },
  run: async (context) => {
    const request = await requestFile<RcsBrandRegisterRequest>(context);
    const brandId = await (await brandClient(context)).registerBrand(request);
    context.out.emit({ brandId }, () => context.out.line(`registered brand ${brandId}`));
    return 0;
  },
});

const brandsUpdate = brandCommand({
  summary: 'update a brand',
  usage: `msgbridge rcs brands update BRAND_ID --file REQUEST.json

Updates the brand from REQUEST.json (spec 03 §4.1: regBrand, mainMdn, profileImgFilePath,
bgImgFilePath; no chatbots or certificate).`,
  positionals: { min: 1, max: 1, name: 'BRAND_ID' },
  options: { file: { type: 'string' } },
  run: async (context) => {
    const [brandId = ''] = context.positionals;
    const request = await requestFile<RcsBrandUpdateRequest>(context);
    await (await brandClient(context)).updateBrand(brandId, request);
    context.out.emit({ brandId, updated: true }, () =>
      context.out.line(`updated brand ${brandId}`),
    );
    return 0;
  },
});

const brandsDelete = brandCommand({
  summary: 'delete a brand',
  usage: `msgbridge rcs brands delete BRAND_ID

Deletes the brand.`,
  positionals: { min: 1, max: 1, name: 'BRAND_ID' },
  run: async (context) => {
    const [brandId = ''] = context.positionals;
    await (await brandClient(context)).deleteBrand(brandId);
    context.out.emit({ brandId, deleted: true }, () =>
      context.out.line(`deleted brand ${brandId}`),
    );
    return 0;
  },
});

// --- Chatbots --------------------------------------------------------------------------------

const BRAND_KEY_USAGE =
  "  --brand-key KEY      the brand's brandKey (see `msgbridge rcs brands get BRAND_ID`)";
const brandKeyOf = (context: CommandContext) => context.required('brand-key');

const CHATBOT_COLUMNS: Column<RcsChatbot>[] = gatewayTimes(
  columns({
    CHATBOT: 'chatbotId',
    NUMBER: 'subNum',
    NAME: 'subTitle',
    MAIN: 'isMainNum',
    SERVICE: 'service',
    APPROVAL: (row) => row.approvalResult ?? row.status,
    REGISTERED: 'registerDate',
  }),
  'REGISTERED',
);

const chatbotsTable = (context: CommandContext, rows: readonly RcsChatbot[]) =>
  context.out.table(rows, CHATBOT_COLUMNS, '(no chatbots)');

const chatbotsList: CommandSpec = {
  summary: 'chatbots of a brand',
  usage: `msgbridge rcs chatbots list BRAND_ID --brand-key KEY [--offset N] [--limit N]

Lists the chatbots (sender numbers) of the brand with their approval result.
${BRAND_KEY_USAGE}
${PAGE_USAGE}`,
  positionals: { min: 1, max: 1, name: 'BRAND_ID' },
  options: { 'brand-key': { type: 'string' }, ...PAGE_OPTIONS },
  run: async (context) => {
    const [brandId = ''] = context.positionals;
    const brandKey = brandKeyOf(context);
    const page = pageOf(context);
    const list = await (await rcsClient(context)).listChatbots(brandId, brandKey, page);
    emitPage(context, list, CHATBOT_COLUMNS, '(no chatbots)');
    return 0;
  },
};

const CHATBOT_POSITIONALS = {
  min: 2,
  max: 2,
  name: 'argument',
  missing: 'needs BRAND_ID and CHATBOT_ID',
} as const;

/** Which chatbot a chatbot command is about. */
interface ChatbotAddress {
  readonly brandId: string;
  readonly chatbotId: string;
  readonly brandKey: string;
}

/** A command on one chatbot: `BRAND_ID CHATBOT_ID --brand-key KEY`, its usage added. */
const chatbotCommand = (
  spec: Omit<CommandSpec, 'positionals' | 'run'> & {
    readonly run: (context: CommandContext, chatbot: ChatbotAddress) => Promise<number>;
  },
): CommandSpec => ({
  ...spec,
  usage: `${spec.usage}\n${BRAND_KEY_USAGE}`,
  positionals: CHATBOT_POSITIONALS,
  options: { 'brand-key': { type: 'string' }, ...spec.options },
  run: async (context) => {
    const [brandId = '', chatbotId = ''] = context.positionals;
    return spec.run(context, { brandId, chatbotId, brandKey: brandKeyOf(context) });
  },
});

const chatbotsGet = chatbotCommand({
  summary: 'one chatbot',
  usage: `msgbridge rcs chatbots get BRAND_ID CHATBOT_ID --brand-key KEY

Shows the chatbot, with the reason when its approval was refused.`,
  run: async (context, { brandId, chatbotId, brandKey }) => {
    const chatbot = await (await rcsClient(context)).getChatbot(brandId, chatbotId, brandKey);
    if (chatbot === undefined) {
      throw new OperationError(`the gateway returned no chatbot ${chatbotId} of brand ${brandId}`);
    }
    context.out.emit(chatbot, () => {
      chatbotsTable(context, [chatbot]);
      if (chatbot.approvalReason) context.out.line(`reason: ${chatbot.approvalReason}`);
    });
    return 0;
  },
});

const chatbotsRegister: CommandSpec = {
  summary: 'register chatbots under a brand',
  usage: `msgbridge rcs chatbots register BRAND_ID --brand-key KEY --file REQUEST.json

Registers the chatbots of REQUEST.json (spec 03 §4.2: subNumCertificate and chatbots, each
{mdn, rcsReply, subTitle, service, display}). They wait for the brand portal's approval.
${BRAND_KEY_USAGE}`,
  positionals: { min: 1, max: 1, name: 'BRAND_ID' },
  options: { 'brand-key': { type: 'string' }, file: { type: 'string' } },
  run: async (context) => {
    const [brandId = ''] = context.positionals;
    const brandKey = brandKeyOf(context);
    const request = await requestFile<RcsChatbotRegisterRequest>(context);
    const chatbots = await (await rcsClient(context)).registerChatbots(brandId, brandKey, request);
    context.out.emit(chatbots, () => chatbotsTable(context, chatbots));
    return 0;
  },
};

const chatbotsUpdate = chatbotCommand({
  summary: 'update a chatbot',
  usage: `msgbridge rcs chatbots update BRAND_ID CHATBOT_ID --brand-key KEY --file REQUEST.json

Updates the chatbot from REQUEST.json (as for register). Whether the gateway accepts it depends
on the chatbot's approval status.`,
  options: { file: { type: 'string' } },
  run: async (context, { brandId, chatbotId, brandKey }) => {
    const request = await requestFile<RcsChatbotRegisterRequest>(context);
    const chatbots = await (await rcsClient(context)).updateChatbot(
      brandId,
      chatbotId,
      brandKey,
      request,
    );
    context.out.emit(chatbots, () => chatbotsTable(context, chatbots));
    return 0;
  },
});

const chatbotsDelete = chatbotCommand({
  summary: 'delete a chatbot',
  usage: `msgbridge rcs chatbots delete BRAND_ID CHATBOT_ID --brand-key KEY

Deletes the chatbot. Whether the gateway accepts it depends on the chatbot's approval status.`,
  run: async (context, { brandId, chatbotId, brandKey }) => {
    await (await rcsClient(context)).deleteChatbot(brandId, chatbotId, brandKey);
    context.out.emit({ brandId, chatbotId, deleted: true }, () =>
      context.out.line(`deleted chatbot ${chatbotId} of brand ${brandId}`),
    );
    return 0;
  },
});

const chatbotsCheck: CommandSpec = {
  summary: 'whether a chat-room id can be registered',
  usage: `msgbridge rcs chatbots check-chatroom CHATBOT_ID

Asks whether the chat-room id can be registered. An id with an invalid format or already
registered is refused with 21399 and the upstream reason (printed as "nested: CODE MESSAGE").`,
  positionals: { min: 1, max: 1, name: 'CHATBOT_ID' },
  run: async (context) => {
    const [chatbotId = ''] = context.positionals;
    const data = await (await rcsClient(context)).checkChatbotId(chatbotId);
    context.out.emit(data, () =>
      context.out.line(`chat-room id ${data.result?.chatbotId ?? chatbotId} can be registered`),
    );
    return 0;
  },
};

// --- Template catalogue ----------------------------------------------------------------------

const formsList: CommandSpec = {
  summary: 'message template forms',
  usage: `msgbridge rcs templates forms [--offset N] [--limit N]

Lists the template forms (messagebaseformId, card type, business category and service).
${PAGE_USAGE}`,
  options: PAGE_OPTIONS,
  run: async (context) => {
    const page = pageOf(context);
    const list = await (await rcsClient(context)).listTemplateForms(page);
    emitPage(
      context,
      list,
      columns({
        FORM: 'messagebaseformId',
        NAME: 'formName',
        CARD: 'cardType',
        CATEGORY: 'bizCategory',
        SERVICE: 'bizService',
      }),
      '(no forms)',
    );
    return 0;
  },
};

const formGet: CommandSpec = {
  summary: 'one template form with its layout guide',
  usage: `msgbridge rcs templates form FORM_ID

Shows the template form: product code, spec and its layout guide (guideInfo).`,
  positionals: { min: 1, max: 1, name: 'FORM_ID' },
  run: async (context) => {
    const [formId = ''] = context.positionals;
    const form = await (await rcsClient(context)).getTemplateForm(formId);
    if (form === undefined) throw new OperationError(`the gateway returned no form ${formId}`);
    context.out.emit(form, () =>
      context.out.table(
        [form],
        columns({
          FORM: 'messagebaseformId',
          NAME: 'formName',
          CARD: 'cardType',
          PRODUCT: 'productCode',
          SPEC: 'spec',
          GUIDE: 'guideInfo',
        }),
      ),
    );
    return 0;
  },
};

const DEFAULT_TEMPLATE_COLUMNS: Column<{
  messagebaseId?: string | null | undefined;
  tmpltName?: string | null | undefined;
  messagebaseformId?: string | null | undefined;
  cardType?: string | null | undefined;
  status?: string | null | undefined;
}>[] = columns({
  TEMPLATE: 'messagebaseId',
  NAME: 'tmpltName',
  FORM: 'messagebaseformId',
  CARD: 'cardType',
  STATUS: 'status',
});

const defaultsList: CommandSpec = {
  summary: 'the carrier-provided default templates of a form',
  usage: `msgbridge rcs templates defaults FORM_ID [--offset N] [--limit N]

Lists the default templates the carriers provide for the form FORM_ID.
${PAGE_USAGE}`,
  positionals: { min: 1, max: 1, name: 'FORM_ID' },
  options: PAGE_OPTIONS,
  run: async (context) => {
    const [formId = ''] = context.positionals;
    const page = pageOf(context);
    const list = await (await rcsClient(context)).listDefaultTemplates(formId, page);
    emitPage(context, list, DEFAULT_TEMPLATE_COLUMNS, '(no default templates)');
    return 0;
  },
};

const defaultGet: CommandSpec = {
  summary: 'one default template',
  usage: `msgbridge rcs templates default TEMPLATE_ID

Shows the default template TEMPLATE_ID (messagebaseId) with its layout guide.`,
  positionals: { min: 1, max: 1, name: 'TEMPLATE_ID' },
  run: async (context) => {
    const [messagebaseId = ''] = context.positionals;
    const template = await (await rcsClient(context)).getDefaultTemplate(messagebaseId);
    if (template === undefined) {
      throw new OperationError(`the gateway returned no default template ${messagebaseId}`);
    }
    context.out.emit(template, () =>
      context.out.table(
        [template],
        [...DEFAULT_TEMPLATE_COLUMNS, { header: 'GUIDE', value: (row) => row.guideInfo }],
      ),
    );
    return 0;
  },
};

export const rcsCommands: GroupSpec = {
  summary: 'RCS brands, chatbots and the template catalogue (spec 03)',
  description: `RCS brands, chatbots (sender numbers) and the message-template catalogue (spec 03). The brand
commands need the brand portal account: --api-id/--api-secret or $${RCS_API_ID_ENV} and
$${RCS_API_SECRET_ENV}.`,
  commands: {
    brands: {
      summary: 'brands: list, get, categories, register, update, delete',
      commands: {
        list: brandsList,
        get: brandsGet,
        categories: brandsCategories,
        register: brandsRegister,
        update: brandsUpdate,
        delete: brandsDelete,
      },
    },
    chatbots: {
      summary: 'chatbots: list, get, register, update, delete, check-chatroom',
      commands: {
        list: chatbotsList,
        get: chatbotsGet,
        register: chatbotsRegister,
        update: chatbotsUpdate,
        delete: chatbotsDelete,
        'check-chatroom': chatbotsCheck,
      },
    },
    templates: {
      summary: 'template catalogue: forms, form, defaults, default',
      commands: {
        forms: formsList,
        form: formGet,
        defaults: defaultsList,
        default: defaultGet,
      },
    },
  },
};
