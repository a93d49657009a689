import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import { GatewayRequestInvalidError } from '../../gateway/client.ts';
import {
  GatewayRcsManagementClient,
  RcsChatbotIdUnusableError,
} from '../../gateway/management/rcs-client.ts';
import { RCS_APPROVAL, RCS_CODES, SIM_RCS_PORTAL } from '../../simulator/rcs.ts';
import type { Simulator } from '../../simulator/server.ts';
import { callGateway } from '../support/simulator-http.ts';
import { startWithSessions } from '../support/simulator-sessions.ts';

const credentials = { apiKey: 'rcs-key', apiPassword: 'rcs-secret' };

let sim: Simulator;
let sessions: SessionTokenProvider;
let client: GatewayRcsManagementClient;

/** The error a call failed with; fails the test when the call succeeds. */
const failureOf = async (call: Promise<unknown>): Promise<unknown> => {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
};

const rejectedWith = (code: string) =>
  expect.objectContaining({ name: 'GatewayRejectedError', code });

const regBrand = {
  name: 'Sim shop',
  description: 'A shop that exists only in the simulator',
  tel: '0212345678',
  categoryId: '001',
  subCategoryId: '001001',
  menus: [{ buttonType: 'weblink', weblink: 'https://shop.example' }],
};

const chatbot = (mdn: string, subTitle = 'Shop bot') => ({
  mdn,
  rcsReply: '1' as const,
  subTitle,
  service: 'a2p' as const,
});

const registerBrand = (mdns: readonly string[]) => {
  const [mainMdn = ''] = mdns;
  return client.registerBrand({
    regBrand,
    mainMdn,
    profileImgFilePath: '/files/profile.png',
    chatbots: mdns.map((mdn) => chatbot(mdn)),
  });
};

const approveChatbot = (chatbotId: string) =>
  callGateway(sim, {
    method: 'POST',
    path: `/_sim/rcs/chatbots/${chatbotId}/approval`,
    body: { status: RCS_APPROVAL.approved },
  });

beforeAll(async () => {
  ({ sim, sessions } = await startWithSessions(credentials));
  client = new GatewayRcsManagementClient({
    hosts: sim.hosts,
    tokens: sessions,
    timeoutMs: 2_000,
    portal: SIM_RCS_PORTAL,
  });
});

afterAll(async () => {
  await sim.close();
});

describe('brands', () => {
  it('lists categories, registers, reads, lists, updates and deletes a brand', async () => {
    // Act
    const categories = await client.listBrandCategories();
    const brandId = await registerBrand(['0215880001']);
    const detail = await client.getBrand(brandId);
    const list = await client.listBrands({ offset: 0, limit: 10 });
    await client.updateBrand(brandId, {
      regBrand: { ...regBrand, name: 'Sim shop 2' },
      mainMdn: '0215880001',
      profileImgFilePath: '/files/profile2.png',
    });
    const updated = await client.getBrand(brandId);

    // Assess
    expect(categories.map((c) => c.categoryId)).toEqual(['001', '002']);
    expect(categories[0]?.subCategories[0]?.subCategoryId).toBe('001001');
    expect(detail).toMatchObject({ brandId, name: 'Sim shop', approvalStatus: '승인대기' });
    expect(detail?.brandKey).toMatch(/^BK\./);
    expect(list.result.map((b) => b.brandId)).toContain(brandId);
    expect(list.result.find((b) => b.brandId === brandId)?.brandName).toBe('Sim shop');
    expect(list.pagination).toMatchObject({ offset: 0, limit: 10 });
    expect(updated?.name).toBe('Sim shop 2');
    expect(updated?.updateDate).toEqual(expect.any(String));
  });

  it('refuses a brand call without apiId, and one with an unknown portal account', async () => {
    // Prepare
    const token = await sessions.getToken();
    const stranger = new GatewayRcsManagementClient({
      hosts: sim.hosts,
      tokens: sessions,
      portal: { apiId: 'someone-else', apiSecret: 'nope' },
    });

    // Act
    const missing = await callGateway(sim, {
      method: 'GET',
      path: '/rcs/v1/brand',
      token,
      headers: { apiSecret: SIM_RCS_PORTAL.apiSecret },
    });
    const refused = await failureOf(stranger.listBrands());

    // Assess
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: RCS_CODES.invalidField });
    expect(String((missing.body as { message: string }).message)).toContain('apiId');
    expect(refused).toEqual(rejectedWith(RCS_CODES.portalRefused));
  });

  it('without a portal account, refuses brand calls before any request and serves the rest', async () => {
    // Prepare
    // Every gateway call starts by asking for the token, so counting those counts the calls.
    let tokenRequests = 0;
    const counted = {
      getToken: () => {
        tokenRequests += 1;
        return sessions.getToken();
      },
      invalidate: (token: string) => sessions.invalidate(token),
    };
    const noPortal = new GatewayRcsManagementClient({ hosts: sim.hosts, tokens: counted });

    // Act
    const brandCall = await noPortal.listBrands().catch((error: unknown) => error);
    const tokenRequestsOfBrandCall = tokenRequests;
    const forms = await noPortal.listTemplateForms();

    // Assess
    expect(brandCall).toBeInstanceOf(GatewayRequestInvalidError);
    expect(String(brandCall)).toContain('brand portal account');
    expect(tokenRequestsOfBrandCall).toBe(0);
    expect(tokenRequests).toBe(1);
    expect(forms.result.length).toBeGreaterThan(0);
  });

  it('refuses to delete a brand that still has chatbots, then deletes it once they are gone', async () => {
    // Prepare
    const brandId = await registerBrand(['0215880101']);
    const brandKey = (await client.getBrand(brandId))?.brandKey ?? '';
    await approveChatbot('0215880101');

    // Act
    const refused = await failureOf(client.deleteBrand(brandId));
    await client.deleteChatbot(brandId, '0215880101', brandKey);
    await client.deleteBrand(brandId);
    const gone = await failureOf(client.getBrand(brandId));

    // Assess
    expect(refused).toEqual(rejectedWith(RCS_CODES.brandHasChatbots));
    expect(gone).toEqual(rejectedWith(RCS_CODES.unknownBrand));
  });

  it('checks the register body before the call: mainMdn must be one of the chatbots', async () => {
    // Act
    const error = await failureOf(
      client.registerBrand({
        regBrand,
        mainMdn: '0299999999',
        profileImgFilePath: '/p.png',
        chatbots: [chatbot('0215880201')],
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(GatewayRequestInvalidError);
  });
});

describe('chatbots', () => {
  it('registers, lists, reads, updates and deletes chatbots with the brandKey header', async () => {
    // Prepare
    const brandId = await registerBrand(['0215880301']);
    const brandKey = (await client.getBrand(brandId))?.brandKey ?? '';

    // Act
    const added = await client.registerChatbots(brandId, brandKey, {
      subNumCertificate: '/files/cert.pdf',
      chatbots: [chatbot('0215880302', 'Second bot')],
    });
    const list = await client.listChatbots(brandId, brandKey);
    const underReview = await failureOf(
      client.updateChatbot(brandId, '0215880302', brandKey, {
        subNumCertificate: '/files/cert.pdf',
        chatbots: [chatbot('0215880302', 'Renamed')],
      }),
    );
    await approveChatbot('0215880302');
    const updated = await client.updateChatbot(brandId, '0215880302', brandKey, {
      subNumCertificate: '/files/cert.pdf',
      chatbots: [chatbot('0215880302', 'Renamed')],
    });
    const detail = await client.getChatbot(brandId, '0215880302', brandKey);
    await approveChatbot('0215880302');
    await client.deleteChatbot(brandId, '0215880302', brandKey);
    const after = await client.listChatbots(brandId, brandKey, { offset: 0, limit: 5 });

    // Assess
    expect(added).toEqual([
      expect.objectContaining({ chatbotId: '0215880302', approvalResult: '승인대기' }),
    ]);
    expect(list.result.map((c) => [c.chatbotId, c.isMainNum])).toEqual([
      ['0215880301', 'Y'],
      ['0215880302', 'N'],
    ]);
    expect(list.pagination).toMatchObject({ total: 2, offset: 0, limit: 100 });
    expect(underReview).toEqual(rejectedWith(RCS_CODES.chatbotUnderReview));
    expect(updated[0]?.subTitle).toBe('Renamed');
    expect(detail).toMatchObject({ subTitle: 'Renamed', approvalResult: '승인대기' });
    expect(after.result.map((c) => c.chatbotId)).toEqual(['0215880301']);
  });

  it('refuses a wrong brandKey, an unknown brand, and a chatbot on a taken number', async () => {
    // Prepare
    const brandId = await registerBrand(['0215880401']);
    const brandKey = (await client.getBrand(brandId))?.brandKey ?? '';

    // Act
    const wrongKey = await failureOf(client.listChatbots(brandId, 'BK.wrong'));
    const noBrand = await failureOf(client.listChatbots('BR.none', brandKey));
    const taken = await failureOf(
      client.registerChatbots(brandId, brandKey, {
        subNumCertificate: '/c.pdf',
        chatbots: [chatbot('0215880401')],
      }),
    );

    // Assess
    expect(wrongKey).toEqual(rejectedWith(RCS_CODES.badBrandKey));
    expect(noBrand).toEqual(rejectedWith(RCS_CODES.unknownBrand));
    expect(taken).toEqual(rejectedWith(RCS_CODES.mdnTaken));
  });

  it('checks a chat-room id and surfaces the nested code of a 21399 answer', async () => {
    // Prepare
    await registerBrand(['0215880501']);

    // Act
    const usable = await client.checkChatbotId('0215889999');
    const taken = await failureOf(client.checkChatbotId('0215880501'));
    const malformed = await failureOf(client.checkChatbotId('not-a-number'));

    // Assess
    expect(usable.result?.chatbotId).toBe('0215889999');
    expect(taken).toBeInstanceOf(RcsChatbotIdUnusableError);
    expect(taken).toMatchObject({
      code: '21399',
      httpStatus: 400,
      nestedCode: RCS_CODES.nestedIdTaken,
      nestedMessage: 'chat room id 0215880501 is already registered',
    });
    expect((taken as Error).message).toContain(RCS_CODES.nestedIdTaken);
    expect(malformed).toMatchObject({ code: '21399', nestedCode: RCS_CODES.nestedInvalidId });
  });
});

describe('template catalogue', () => {
  it('lists and reads template forms and default templates', async () => {
    // Act
    const forms = await client.listTemplateForms();
    const form = await client.getTemplateForm('SS000001');
    const defaults = await client.listDefaultTemplates('SS000001');
    const template = await client.getDefaultTemplate('CMN-0001');
    const unknown = await failureOf(client.getDefaultTemplate('CMN-9999'));

    // Assess
    expect(forms.result.map((f) => f.messagebaseformId)).toEqual(['SS000000', 'SS000001']);
    expect(forms.pagination).toMatchObject({ total: 2 });
    expect(form).toMatchObject({ cardType: 'cell', productCode: 'cell' });
    expect(defaults.result).toEqual([
      expect.objectContaining({ messagebaseId: 'CMN-0001', status: 'ready' }),
    ]);
    expect(template).toMatchObject({ messagebaseId: 'CMN-0001', cardType: 'cell' });
    expect(unknown).toEqual(rejectedWith(RCS_CODES.unknownTemplate));
  });

  it('checks the page before the call: limit at most 1000', async () => {
    // Act
    const error = await failureOf(client.listTemplateForms({ limit: 1001 }));

    // Assess
    expect(error).toBeInstanceOf(GatewayRequestInvalidError);
  });
});
