import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { refusal } from '../support/cli-command-line.ts';
import { captureIo, type GatewayScript, runScriptedCli } from '../support/cli-gateway.ts';

const SECRET = 'portal-secret-01';

const REGISTER = {
  regBrand: {
    name: 'Hanbit Shop',
    description: 'Online shop',
    tel: '0215880000',
    categoryId: '001',
    subCategoryId: '001001',
  },
  mainMdn: '0215880000',
  profileImgFilePath: '/files/profile.png',
  chatbots: [{ mdn: '0215880000', rcsReply: '0', subTitle: 'Hanbit', service: 'A2P' }],
};
const { chatbots: _chatbots, ...UPDATE } = REGISTER;
const FILES = {
  'brand.json': JSON.stringify(REGISTER),
  'update.json': JSON.stringify(UPDATE),
  'chatbots.json': JSON.stringify({
    subNumCertificate: '/files/cert.pdf',
    chatbots: [{ mdn: '0215881111', rcsReply: '1', subTitle: 'Hanbit CS', service: 'CHAT' }],
  }),
};

/** Runs `msgbridge ARGS…` against a scripted gateway; answers the output and the calls made. */
const run = (args: string[], script?: GatewayScript) =>
  runScriptedCli(args, script, { files: FILES });

const BRAND_LIST = {
  extra: {
    result: [
      {
        brandId: 'BR.00001',
        brandKey: 'BK.00001',
        brandName: 'Hanbit Shop',
        status: '승인',
        regDt: '2024-05-01 10:00:00',
      },
    ],
    pagination: { total: 1, offset: 0, limit: 100 },
  },
};

const CHATBOT = {
  chatbotId: '0215880000',
  brandId: 'BR.00001',
  subNum: '0215880000',
  subTitle: 'Hanbit',
  isMainNum: 'Y',
  service: 'a2p',
  approvalResult: '승인대기',
  registerDate: '2024-05-01 10:00:00',
};

beforeEach(() => {
  vi.stubEnv('MSGBRIDGE_RCS_API_ID', 'portal-id');
  vi.stubEnv('MSGBRIDGE_RCS_API_SECRET', SECRET);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the brand portal account', () => {
  it('is read from the environment, sent as headers and never printed', async () => {
    // Act
    const result = await run(['rcs', 'brands', 'list', '--limit', '10'], {
      'GET /rcs/v1/brand': BRAND_LIST,
    });

    // Assess
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.headers).toMatchObject({ apiId: 'portal-id', apiSecret: SECRET });
    expect(Object.fromEntries(result.calls[0]?.query ?? [])).toEqual({ offset: '0', limit: '10' });
    expect(result.out.split('\n')).toEqual([
      'BRAND     KEY       NAME         STATUS  REGISTERED',
      'BR.00001  BK.00001  Hanbit Shop  승인    2024-05-01 10:00:00 KST',
      '1 of 1',
    ]);
    expect(`${result.out}${result.err}`).not.toContain(SECRET);
  });

  it('is taken from --api-id and --api-secret before the environment', async () => {
    const result = await run(
      ['rcs', 'brands', 'list', '--api-id', 'flag-id', '--api-secret', 'flag-secret'],
      { 'GET /rcs/v1/brand': BRAND_LIST },
    );
    expect(result.calls[0]?.headers).toMatchObject({ apiId: 'flag-id', apiSecret: 'flag-secret' });
  });

  it('is a usage error when missing, naming the flag and the variable', async () => {
    vi.stubEnv('MSGBRIDGE_RCS_API_SECRET', '');
    const result = await run(['rcs', 'brands', 'categories']);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'msgbridge rcs brands categories: the brand portal account is missing: give --api-secret or $MSGBRIDGE_RCS_API_SECRET',
    );
    expect(result.err).toContain('--api-id ID');
    expect(result.calls).toEqual([]);
  });
  it('is not needed, nor sent, by the chatbot and catalogue commands', async () => {
    // Prepare
    vi.stubEnv('MSGBRIDGE_RCS_API_ID', '');
    vi.stubEnv('MSGBRIDGE_RCS_API_SECRET', '');

    // Act
    const result = await run(['rcs', 'chatbots', 'check-chatroom', '0215889999'], {
      'GET /rcs/v1/usableQuery/chatbotId/0215889999': {
        data: { httpStatus: 200, status: 'OK', code: '200', result: { chatbotId: '0215889999' } },
      },
    });

    // Assess
    expect(result.code, result.err).toBe(0);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]?.headers).not.toHaveProperty('apiId');
    expect(result.calls[0]?.headers).not.toHaveProperty('apiSecret');
  });
});

describe('msgbridge rcs brands', () => {
  it('prints the typed brand list with --json', async () => {
    const result = await run(['rcs', 'brands', 'list', '--json'], {
      'GET /rcs/v1/brand': BRAND_LIST,
    });
    expect(JSON.parse(result.out)).toMatchObject({
      result: [{ brandId: 'BR.00001', brandKey: 'BK.00001', menus: [], mediaUrl: [] }],
      pagination: { total: 1 },
    });
  });

  it('shows one brand with its brandKey', async () => {
    const result = await run(['rcs', 'brands', 'get', 'BR.00001'], {
      'GET /rcs/v1/brand/BR.00001': {
        data: [
          {
            brandId: 'BR.00001',
            brandKey: 'BK.00001',
            name: 'Hanbit Shop',
            approvalStatus: '반려',
            approvalReason: 'blurry logo',
            categoryName: 'Shopping',
            subCategoryName: 'Online mall',
            tel: '0215880000',
          },
        ],
      },
    });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(
      /^BR\.00001\s+BK\.00001\s+Hanbit Shop\s+반려\s+Online mall\s+0215880000$/m,
    );
    expect(result.out).toContain('reason: blurry logo');
  });

  it('says so when the gateway answers no brand', async () => {
    const result = await run(['rcs', 'brands', 'get', 'BR.404'], {
      'GET /rcs/v1/brand/BR.404': { data: [] },
    });
    expect(result.code).toBe(1);
    expect(result.err).toBe('msgbridge rcs brands get: the gateway returned no brand BR.404');
  });

  it('lists categories one subcategory a line', async () => {
    const result = await run(['rcs', 'brands', 'categories'], {
      'GET /rcs/v1/brand/categories': {
        data: [
          {
            categoryId: '001',
            categoryName: 'Shopping',
            subCategories: [
              { subCategoryId: '001001', subCategoryName: 'Online mall' },
              { subCategoryId: '001002', subCategoryName: 'Department store' },
            ],
          },
        ],
      },
    });
    expect(result.out.split('\n')).toEqual([
      'CATEGORY  NAME      SUBCATEGORY  NAME',
      '001       Shopping  001001       Online mall',
      '001       Shopping  001002       Department store',
    ]);
  });

  it('registers, updates and deletes a brand from request files', async () => {
    const script = {
      'POST /rcs/v1/brand': { data: { brandId: 'BR.00002' } },
      'PUT /rcs/v1/brand/BR.00002': {},
      'DELETE /rcs/v1/brand/BR.00002': {},
    };
    const registered = await run(['rcs', 'brands', 'register', '--file', 'brand.json'], script);
    const updated = await run(
      ['rcs', 'brands', 'update', 'BR.00002', '--file', 'update.json'],
      script,
    );
    const deleted = await run(['rcs', 'brands', 'delete', 'BR.00002', '--json'], script);
    expect(registered.code, registered.err).toBe(0);
    expect(registered.calls[0]?.body).toEqual(REGISTER);
    expect(registered.out).toBe('registered brand BR.00002');
    expect(updated.calls[0]?.body).toEqual(UPDATE);
    expect(updated.out).toBe('updated brand BR.00002');
    expect(JSON.parse(deleted.out)).toEqual({ brandId: 'BR.00002', deleted: true });
  });

  it('lists every problem of an invalid register request and sends nothing', async () => {
    const result = await run(['rcs', 'brands', 'update', 'BR.00002', '--file', 'brand.json']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('invalid request, nothing was sent:');
    expect(result.err).toMatch(/\(request\): Unrecognized key: "chatbots"/);
    expect(result.calls).toEqual([]);
  });
});

describe('msgbridge rcs chatbots', () => {
  it('needs --brand-key', async () => {
    const result = await run(['rcs', 'chatbots', 'list', 'BR.00001']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('msgbridge rcs chatbots list: --brand-key is required');
  });

  it('lists, shows, registers, updates and deletes with the brandKey header', async () => {
    const script = {
      'GET /rcs/v1/brand/BR.00001/chatbot': {
        data: { result: [CHATBOT], pagination: { total: 1 } },
      },
      'GET /rcs/v1/brand/BR.00001/chatbot/0215880000': { data: [CHATBOT] },
      'POST /rcs/v1/brand/BR.00001/chatbot': { data: [CHATBOT] },
      'PUT /rcs/v1/brand/BR.00001/chatbot/0215880000': { data: [CHATBOT] },
      'DELETE /rcs/v1/brand/BR.00001/chatbot/0215880000': { data: {} },
    };
    const key = ['--brand-key', 'BK.00001'];
    const listed = await run(['rcs', 'chatbots', 'list', 'BR.00001', ...key], script);
    const shown = await run(['rcs', 'chatbots', 'get', 'BR.00001', '0215880000', ...key], script);
    const registered = await run(
      ['rcs', 'chatbots', 'register', 'BR.00001', ...key, '--file', 'chatbots.json', '--json'],
      script,
    );
    const updated = await run(
      ['rcs', 'chatbots', 'update', 'BR.00001', '0215880000', ...key, '--file', 'chatbots.json'],
      script,
    );
    const deleted = await run(
      ['rcs', 'chatbots', 'delete', 'BR.00001', '0215880000', ...key],
      script,
    );

    for (const result of [listed, shown, registered, updated, deleted]) {
      expect(result.code, result.err).toBe(0);
      expect(result.calls[0]?.headers.brandKey).toBe('BK.00001');
    }
    expect(listed.out.split('\n')).toEqual([
      'CHATBOT     NUMBER      NAME    MAIN  SERVICE  APPROVAL  REGISTERED',
      '0215880000  0215880000  Hanbit  Y     a2p      승인대기  2024-05-01 10:00:00 KST',
      '1 of 1',
    ]);
    expect(shown.out).toContain('0215880000  0215880000  Hanbit');
    expect(registered.calls[0]?.body).toEqual(JSON.parse(FILES['chatbots.json']));
    expect(JSON.parse(registered.out)).toMatchObject([{ chatbotId: '0215880000' }]);
    expect(updated.calls[0]?.method).toBe('PUT');
    expect(deleted.out).toBe('deleted chatbot 0215880000 of brand BR.00001');
  });

  it('needs both ids for one chatbot', async () => {
    const result = await run(['rcs', 'chatbots', 'get', 'BR.00001', '--brand-key', 'BK.00001']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('needs BRAND_ID and CHATBOT_ID');
  });

  it('says a usable chat-room id can be registered', async () => {
    const result = await run(['rcs', 'chatbots', 'check-chatroom', '0215889999'], {
      'GET /rcs/v1/usableQuery/chatbotId/0215889999': {
        data: { httpStatus: 200, status: 'OK', code: '200', result: { chatbotId: '0215889999' } },
      },
    });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toBe('chat-room id 0215889999 can be registered');
  });

  it('prints the 21399 refusal with the nested code and exits 1', async () => {
    // Act
    const result = await run(['rcs', 'chatbots', 'check-chatroom', '0215880000'], {
      'GET /rcs/v1/usableQuery/chatbotId/0215880000': refusal(
        '21399',
        'chat room id check failed',
        {
          code: '40002',
          message: 'chat room id 0215880000 is already registered',
        },
      ),
    });

    // Assess
    expect(result.code).toBe(1);
    expect(result.err.split('\n')).toEqual([
      'msgbridge rcs chatbots check-chatroom: the gateway refused: 21399 chat room id check failed (upstream 40002: chat room id 0215880000 is already registered)',
      'msgbridge rcs chatbots check-chatroom:   nested: 40002 chat room id 0215880000 is already registered',
    ]);
  });
});

describe('msgbridge rcs templates', () => {
  it('lists forms and default templates, and shows one of each', async () => {
    const form = {
      messagebaseformId: 'SS000001',
      formName: 'Cell',
      cardType: 'cell',
      bizCategory: 'general',
      bizService: 'notice',
      guideInfo: { maxLineCount: 10 },
    };
    const template = {
      messagebaseId: 'CMN-0001',
      tmpltName: 'Delivery notice',
      messagebaseformId: 'SS000001',
      cardType: 'cell',
      status: 'ready',
    };
    const script = {
      'GET /rcs/v1/messagebase/messagebaseform': { data: { result: [form] } },
      'GET /rcs/v1/messagebase/messagebaseform/SS000001': { data: [form] },
      'GET /rcs/v1/messagebase/common': { data: { result: [template], pagination: { total: 1 } } },
      'GET /rcs/v1/messagebase/common/CMN-0001': { data: [template] },
    };
    const forms = await run(['rcs', 'templates', 'forms'], script);
    const oneForm = await run(['rcs', 'templates', 'form', 'SS000001'], script);
    const defaults = await run(
      ['rcs', 'templates', 'defaults', 'SS000001', '--limit', '5'],
      script,
    );
    const oneDefault = await run(['rcs', 'templates', 'default', 'CMN-0001', '--json'], script);

    expect(forms.out).toMatch(/^SS000001\s+Cell\s+cell\s+general\s+notice$/m);
    expect(oneForm.out).toMatch(/\{"maxLineCount":10\}$/m);
    expect(Object.fromEntries(defaults.calls[0]?.query ?? [])).toEqual({
      messagebaseformId: 'SS000001',
      offset: '0',
      limit: '5',
    });
    expect(defaults.out.split('\n')).toEqual([
      'TEMPLATE  NAME             FORM      CARD  STATUS',
      'CMN-0001  Delivery notice  SS000001  cell  ready',
      '1 of 1',
    ]);
    expect(JSON.parse(oneDefault.out)).toMatchObject(template);
  });

  it('refuses a --limit above 1000', async () => {
    const result = await run(['rcs', 'templates', 'forms', '--limit', '1001']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--limit must be a whole number from 1 to 1000');
  });
});

describe('the rcs command tree', () => {
  it('lists the three groups, and each group its commands', async () => {
    const top = captureIo();
    const chatbots = captureIo();
    const unknown = captureIo();
    expect(await main(['rcs', '--help'], top.io)).toBe(0);
    expect(await main(['rcs', 'chatbots', '--help'], chatbots.io)).toBe(0);
    expect(await main(['rcs', 'brands', 'frobnicate'], unknown.io)).toBe(2);
    expect(top.stdout()).toMatch(/^ {2}brands {5}brands: list, get/m);
    expect(top.stdout()).toMatch(/^ {2}templates {2}template catalogue/m);
    expect(chatbots.stdout()).toMatch(
      /^ {2}check-chatroom {2}whether a chat-room id can be registered$/m,
    );
    expect(unknown.stderr()).toContain('msgbridge rcs brands: unknown command "frobnicate"');
  });
});
