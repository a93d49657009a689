import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';
import {
  asList,
  asObject,
  authenticate,
  callGateway,
  type Json,
} from '../support/simulator-http.ts';

/*
 * The RCS management and status-query rules the simulator enforces by itself (spec 03, spec 01
 * §4.13), called over HTTP with raw bodies so that no bridge schema stands in between. The codes
 * and the portal account are written out here rather than imported, so a change in the simulator
 * shows up as a failing test.
 */

const CREDENTIALS = { apiKey: 'rules-key', apiPassword: 'rules-secret' };
const PORTAL = { apiId: 'sim-portal', apiSecret: 'sim-portal-secret' };
const DAY = 86_400_000;

let sim: Simulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({
    ...CREDENTIALS,
    port: 0,
    clock: 'manual',
    accessTokenTtlSeconds: 86_400,
  });
  ({ token } = await authenticate(sim, CREDENTIALS));
});

afterAll(async () => {
  await sim.close();
});

const call = async (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) => {
  const answer = await callGateway(sim, { method, path, token, ...options });
  return { status: answer.status, body: asObject(answer.body) };
};

describe('the simulator owns its request rules', () => {
  it('imports nothing from the bridge in the RCS, tracking-URL, opt-out and status modules', () => {
    // Prepare
    const modules = [
      'rcs',
      'rcs-rules',
      'tracking-urls',
      'tracking-urls-rules',
      'opt-out',
      'opt-out-rules',
      'status',
    ];

    // Act
    const offenders = modules.filter((name) => {
      const source = readFileSync(new URL(`../../simulator/${name}.ts`, import.meta.url), 'utf8');
      return /from\s+'[^']*functions\//.test(source);
    });

    // Assess
    expect(offenders).toEqual([]);
  });
});

// ---- RCS brands and chatbots (spec 03) ----

let serial = 0;
/** A fresh sender number per call: registered mdns stay taken for the whole file. */
const mdn = () => `0101555${String(++serial).padStart(4, '0')}`;

const chatbot = (number: string, extra: Json = {}) => ({
  mdn: number,
  rcsReply: '1',
  subTitle: 'Shop bot',
  service: 'A2P',
  ...extra,
});

const regBrand = (extra: Json = {}) => ({
  name: 'Sim shop',
  description: 'A shop that exists only in the simulator',
  tel: '0212345678',
  categoryId: '001',
  subCategoryId: '001001',
  ...extra,
});

const brandBody = (extra: Json = {}) => {
  const main = mdn();
  return {
    regBrand: regBrand(),
    mainMdn: main,
    profileImgFilePath: '/files/profile.png',
    chatbots: [chatbot(main)],
    ...extra,
  };
};

const registerBrand = (body: unknown, headers: Record<string, string> = PORTAL) =>
  call('POST', '/rcs/v1/brand', { body, headers });

describe('simulator RCS brand and chatbot rules (spec 03)', () => {
  it('refuses a brand register body that breaks a spec 03 rule with 21001, naming the field', async () => {
    // Prepare
    const cases: Array<[string, Json, string]> = [
      ['missing regBrand.tel', { regBrand: regBrand({ tel: undefined }) }, 'regBrand.tel'],
      ['tel over 12', { regBrand: regBrand({ tel: '0212345678901' }) }, 'regBrand.tel'],
      ['name over 20', { regBrand: regBrand({ name: 'x'.repeat(21) }) }, 'regBrand.name'],
      [
        'description over 150',
        { regBrand: regBrand({ description: 'd'.repeat(151) }) },
        'regBrand.description',
      ],
      [
        'four menus',
        { regBrand: regBrand({ menus: Array(4).fill({ buttonType: 'weblink' }) }) },
        'regBrand.menus',
      ],
      [
        'weblink without http(s)',
        { regBrand: regBrand({ menus: [{ buttonType: 'w', weblink: 'shop.example' }] }) },
        'regBrand.menus.0.weblink',
      ],
      ['missing profileImgFilePath', { profileImgFilePath: undefined }, 'profileImgFilePath'],
      ['mainMdn not a chatbot', { mainMdn: '0109999999' }, 'mainMdn'],
      ['no chatbots', { chatbots: [] }, 'chatbots'],
      ['rcsReply 2', { chatbots: [chatbot('01055500001', { rcsReply: '2' })] }, 'chatbots.0'],
      ['service SMS', { chatbots: [chatbot('01055500002', { service: 'SMS' })] }, 'chatbots.0'],
      ['display 02', { chatbots: [chatbot('01055500003', { display: '02' })] }, 'chatbots.0'],
      [
        'mdn over 40',
        { chatbots: [chatbot('01055500004'), chatbot('1'.repeat(41))] },
        'chatbots.1.mdn',
      ],
      ['unknown field', { brandColor: 'red' }, ''],
    ];

    // Act
    const answers = await Promise.all(
      cases.map(async ([label, extra, field]) => {
        // A case that brings its own chatbot names it as mainMdn, so only its rule is broken.
        const [own] = Array.isArray(extra.chatbots) ? extra.chatbots : [];
        const mainMdn = own === undefined ? {} : { mainMdn: asObject(own).mdn };
        const answer = await registerBrand({ ...brandBody(), ...mainMdn, ...extra });
        return { label, field, ...answer };
      }),
    );

    // Assess
    for (const answer of answers) {
      expect(answer, answer.label).toMatchObject({ status: 400, body: { code: '21001' } });
      expect(String(answer.body.message), answer.label).toContain(answer.field);
    }
  });

  it('accepts what spec 03 allows: 20 Hangul characters, 3 menus, lowercase a2p, display 00', async () => {
    // Prepare
    const main = mdn();
    const body = {
      regBrand: regBrand({
        name: '가'.repeat(20),
        menus: Array(3).fill({ buttonType: 'weblink', weblink: 'https://shop.example' }),
      }),
      mainMdn: main,
      profileImgFilePath: '/files/profile.png',
      certiFilePath: '/files/cert.pdf',
      chatbots: [
        chatbot(main, { service: 'a2p', display: '00' }),
        chatbot(mdn(), { service: 'CHAT' }),
      ],
    };

    // Act
    const answer = await registerBrand(body);

    // Assess
    expect(answer.body.code).toBe('10000');
    expect(asObject(answer.body.data).brandId).toEqual(expect.any(String));
  });

  it('checks the portal headers before the body: missing or over-long 21001, unknown 22801', async () => {
    // Act
    const missing = await registerBrand(brandBody(), { apiId: PORTAL.apiId });
    const longId = await registerBrand(brandBody(), { ...PORTAL, apiId: 'i'.repeat(21) });
    const longSecret = await registerBrand(brandBody(), { ...PORTAL, apiSecret: 's'.repeat(19) });
    const unknown = await registerBrand(brandBody(), { ...PORTAL, apiSecret: 'wrong' });

    // Assess
    expect(missing).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(String(missing.body.message)).toContain('apiSecret');
    expect(longId.body.code).toBe('21001');
    expect(longSecret.body.code).toBe('21001');
    expect(unknown.body.code).toBe('22801');
  });

  it('refuses an update with chatbots or certiFilePath, which only register takes', async () => {
    // Prepare
    const created = await registerBrand(brandBody());
    const brandId = String(asObject(created.body.data).brandId);
    const { chatbots: _c, ...update } = brandBody();

    // Act
    const withCertificate = await call('PUT', `/rcs/v1/brand/${brandId}`, {
      body: { ...update, certiFilePath: '/files/cert.pdf' },
      headers: PORTAL,
    });

    // Assess
    expect(withCertificate).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(String(withCertificate.body.message)).toContain('certiFilePath');
  });

  it('enforces the list window: limit 1..1000, offset a whole number', async () => {
    // Act
    const max = await call('GET', '/rcs/v1/brand?offset=0&limit=1000', { headers: PORTAL });
    const over = await call('GET', '/rcs/v1/brand?limit=1001', { headers: PORTAL });
    const negative = await call('GET', '/rcs/v1/brand?offset=-1', { headers: PORTAL });
    const defaults = await call('GET', '/rcs/v1/messagebase/messagebaseform');

    // Assess
    expect(max.body.code).toBe('10000');
    expect(over).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(negative.body.code).toBe('21001');
    expect(asObject(asObject(defaults.body.data).pagination)).toMatchObject({
      offset: 0,
      limit: 100,
    });
  });

  it('limits brandKey to 18 and the chatbot path brandId to 13 with 21001, and needs subNumCertificate', async () => {
    // Prepare
    const created = await registerBrand(brandBody());
    const brandId = String(asObject(created.body.data).brandId);
    const detail = await call('GET', `/rcs/v1/brand/${brandId}`, { headers: PORTAL });
    const brandKey = String(asList(detail.body.data)[0]?.brandKey);

    // Act
    const longKey = await call('GET', `/rcs/v1/brand/${brandId}/chatbot`, {
      headers: { brandKey: 'k'.repeat(19) },
    });
    const wrongKey = await call('GET', `/rcs/v1/brand/${brandId}/chatbot`, {
      headers: { brandKey: 'k'.repeat(18) },
    });
    const longBrandId = await call('GET', `/rcs/v1/brand/${'B'.repeat(14)}/chatbot`, {
      headers: { brandKey },
    });
    const noCertificate = await call('POST', `/rcs/v1/brand/${brandId}/chatbot`, {
      headers: { brandKey },
      body: { chatbots: [chatbot(mdn())] },
    });

    // Assess
    expect(longKey).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(wrongKey.body.code).toBe('22805');
    expect(longBrandId).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(noCertificate).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(String(noCertificate.body.message)).toContain('subNumCertificate');
  });

  it('answers an unusable chat-room id with HTTP 400, outer 21399 and the nested reason', async () => {
    // Prepare
    const body = brandBody();
    await registerBrand(body);

    // Act
    const free = await call('GET', `/rcs/v1/usableQuery/chatbotId/${mdn()}`);
    const malformed = await call('GET', '/rcs/v1/usableQuery/chatbotId/not-a-number');
    const taken = await call('GET', `/rcs/v1/usableQuery/chatbotId/${body.mainMdn}`);

    // Assess
    expect(free).toMatchObject({ status: 200, body: { code: '10000' } });
    expect(malformed).toMatchObject({
      status: 400,
      body: { code: '21399', data: { code: '40001' } },
    });
    expect(taken).toMatchObject({ status: 400, body: { code: '21399', data: { code: '40002' } } });
  });
});

// ---- status query (spec 01 §4.13) ----

const kstDate = (instant: number) => formatKst(instant, 'YYYY-MM-DD');
const query = (body: unknown) => call('POST', '/msg/v1/sent', { body });
const entries = (count: number, reqDt = kstDate(sim.clock.now())) =>
  Array.from({ length: count }, (_, i) => ({ cliKey: `status-${i}`, reqDt }));

describe('simulator status query rules (spec 01 §4.13)', () => {
  it('takes at most 10 cliKeys per call and refuses 11 with 21001', async () => {
    // Act
    const ten = await query({ cliKeyLst: entries(10) });
    const eleven = await query({ cliKeyLst: entries(11) });
    const none = await query({ cliKeyLst: [] });

    // Assess
    expect(ten.body.code).toBe('10000');
    expect(asList(asObject(ten.body.data).cliKeyLst)).toHaveLength(10);
    expect(eleven).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(none.body.code).toBe('21001');
  });

  it('refuses a reqDt that is not a real YYYY-MM-DD, or a missing field, with 21001', async () => {
    // Prepare
    const bad = ['2025/01/01', '20250101', '2025-02-30', '2025-1-1', '2025-01-01 00:00:00'];

    // Act
    const answers = await Promise.all(
      bad.map((reqDt) => query({ cliKeyLst: [{ cliKey: 'k', reqDt }] })),
    );
    const noReqDt = await query({ cliKeyLst: [{ cliKey: 'k' }] });
    const noCliKey = await query({ cliKeyLst: [{ reqDt: kstDate(sim.clock.now()) }] });

    // Assess
    for (const [index, answer] of answers.entries()) {
      expect(answer, bad[index]).toMatchObject({ status: 400, body: { code: '21001' } });
    }
    expect(noReqDt.body.code).toBe('21001');
    expect(noCliKey.body.code).toBe('21001');
  });

  it('answers OVER_DATE beyond 90 days back and INVALID_KEY for an unknown or malformed key', async () => {
    // Prepare
    const now = sim.clock.now();

    // Act
    const answer = await query({
      cliKeyLst: [
        { cliKey: 'never-sent', reqDt: kstDate(now - 90 * DAY) },
        { cliKey: 'never-sent', reqDt: kstDate(now - 91 * DAY) },
        { cliKey: 'not a valid key!', reqDt: kstDate(now) },
      ],
    });

    // Assess
    expect(answer.body.code).toBe('10000');
    expect(asList(asObject(answer.body.data).cliKeyLst).map((item) => item.status)).toEqual([
      'INVALID_KEY',
      'OVER_DATE',
      'INVALID_KEY',
    ]);
  });
});
