import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiPassword, newRandomStr } from '../../protocol/api-password.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { normaliseAddress } from '../../simulator/router.ts';
import {
  API_KEY,
  API_PASSWORD,
  bearerCall,
  refresh,
  sim,
  useAuthSimulator,
} from '../support/auth-simulator.ts';
import { authenticate, callGateway } from '../support/simulator-http.ts';

useAuthSimulator();

describe('source address', () => {
  it('normalises IPv4-mapped and long IPv6 spellings', () => {
    // Act
    const read = ['::ffff:127.0.0.1', '::FFFF:10.1.2.3', '0:0:0:0:0:0:0:1', '127.0.0.2', undefined];

    // Assess
    expect(read.map(normaliseAddress)).toEqual(['127.0.0.1', '10.1.2.3', '::1', '127.0.0.2', '']);
  });

  it('reads an IPv4 caller of a dual-stack listener as its IPv4 address', async () => {
    // Prepare: on `::` the socket reports `::ffff:127.0.0.1`; the allowlist names `127.0.0.1`.
    const dual = await startSimulator({
      apiKey: API_KEY,
      apiPassword: API_PASSWORD,
      host: '::',
      allowedIps: ['127.0.0.1'],
    });
    const origin = { url: dual.url.replace('[::1]', '127.0.0.1') };

    try {
      // Act
      const tokens = await authenticate(origin, { apiKey: API_KEY, apiPassword: API_PASSWORD });
      const outside = await callGateway(origin, {
        method: 'POST',
        path: `/auth/v1/${newRandomStr()}`,
        body: { apiKey: API_KEY, apiPwd: 'x' },
        localAddress: '127.0.0.2',
      });

      // Assess
      expect(tokens.token).toMatch(/\./);
      expect(outside).toMatchObject({ status: 401, body: { code: '20001' } });
    } finally {
      await dual.close();
    }
  });
});

describe('source allowlist', () => {
  const ALLOWED = '127.0.0.2';
  let listed: Simulator;
  const allowedLogin = () =>
    authenticate(listed, { apiKey: API_KEY, apiPassword: API_PASSWORD }, { localAddress: ALLOWED });
  const statusQuery = (token: string, localAddress?: string) =>
    callGateway(listed, {
      method: 'POST',
      path: '/msg/v1/sent',
      token,
      body: { cliKeyLst: [{ cliKey: 'nobody', reqDt: '2026-01-01' }] },
      ...(localAddress === undefined ? {} : { localAddress }),
    });

  beforeAll(async () => {
    listed = await startSimulator({
      apiKey: API_KEY,
      apiPassword: API_PASSWORD,
      clock: 'manual',
      allowedIps: [ALLOWED],
    });
  });

  afterAll(async () => {
    await listed.close();
  });

  it('issues tokens to an allowed address and answers 20001 to any other', async () => {
    // Prepare
    const randomStr = newRandomStr();
    const body = { apiKey: API_KEY, apiPwd: hashApiPassword(API_PASSWORD, randomStr) };
    const before = listed.snapshot().authentications;

    // Act
    const outside = await callGateway(listed, {
      method: 'POST',
      path: `/auth/v1/${randomStr}`,
      body,
    });
    const inside = await callGateway(listed, {
      method: 'POST',
      path: `/auth/v1/${randomStr}`,
      body,
      localAddress: ALLOWED,
    });

    // Assess
    expect(outside.status).toBe(401);
    expect(outside.body).toMatchObject({
      code: '20001',
      message: expect.stringContaining('127.0.0.1'),
    });
    expect(inside).toMatchObject({ status: 200, body: { code: '10000' } });
    expect(listed.snapshot().authentications).toBe(before + 1);
  });

  it('checks the allowlist before the credentials', async () => {
    // Act
    const answer = await callGateway(listed, {
      method: 'POST',
      path: `/auth/v1/${newRandomStr()}`,
      body: { apiKey: 'someone-else', apiPwd: 'wrong' },
    });

    // Assess
    expect(answer).toMatchObject({ status: 401, body: { code: '20001' } });
  });

  it('answers 29025 to a bearer call with a valid token from an address off the allowlist', async () => {
    // Prepare
    const { token } = await allowedLogin();

    // Act
    const outside = await statusQuery(token);
    const inside = await statusQuery(token, ALLOWED);

    // Assess
    expect(outside.status).toBe(401);
    expect(outside.body).toMatchObject({ code: '29025' });
    expect(inside).toMatchObject({ status: 200, body: { code: '10000' } });
  });

  it('answers 29025 on the send path too, and accepts nothing', async () => {
    // Prepare
    const { token } = await allowedLogin();
    const before = listed.acceptances().length;

    // Act
    const answer = await callGateway(listed, {
      method: 'POST',
      path: '/xms/sms/v1',
      token,
      body: {
        callback: '0212345678',
        msg: 'hi',
        recvInfoLst: [{ cliKey: 'ip-1', phone: '01012345678' }],
      },
    });

    // Assess
    expect(answer).toMatchObject({ status: 401, body: { code: '29025' } });
    expect(listed.acceptances().length).toBe(before);
  });

  it('answers 20001 to a refresh from an address off the allowlist', async () => {
    // Prepare
    const { refreshToken } = await allowedLogin();

    // Act
    const outside = await callGateway(listed, {
      method: 'PUT',
      path: '/auth/v1/refresh',
      token: refreshToken,
    });
    const inside = await callGateway(listed, {
      method: 'PUT',
      path: '/auth/v1/refresh',
      token: refreshToken,
      localAddress: ALLOWED,
    });

    // Assess
    expect(outside).toMatchObject({ status: 401, body: { code: '20001' } });
    expect(inside).toMatchObject({ status: 200, body: { code: '10000' } });
  });

  it('answers 29025 on the apiKey-header opt-out endpoints from an address off the allowlist', async () => {
    // Prepare
    const call = (localAddress?: string) =>
      callGateway(listed, {
        method: 'POST',
        path: '/client/v1.2/080/ars080RejectList?listCnt=10&pageIdx=1',
        headers: { apiKey: API_KEY },
        ...(localAddress === undefined ? {} : { localAddress }),
      });

    // Act
    const outside = await call();
    const inside = await call(ALLOWED);

    // Assess
    expect(outside).toMatchObject({ status: 401, body: { code: '29025' } });
    expect(inside).toMatchObject({ status: 200, body: { code: '10000' } });
  });

  it('never filters the control endpoints', async () => {
    // Act
    const state = await callGateway(listed, { method: 'GET', path: '/_sim/state' });

    // Assess
    expect(state).toMatchObject({ status: 200, body: { code: '10000' } });
  });
});

describe("the refresh token's same-address rule", () => {
  it('refuses a refresh from another address than the token was issued to with 20001', async () => {
    // Prepare: no allowlist; the pair is issued to 127.0.0.2.
    const { token, refreshToken } = await authenticate(
      sim,
      { apiKey: API_KEY, apiPassword: API_PASSWORD },
      { localAddress: '127.0.0.2' },
    );
    const before = sim.snapshot().refreshes;

    // Act
    const elsewhere = await refresh(refreshToken);
    const same = await callGateway(sim, {
      method: 'PUT',
      path: '/auth/v1/refresh',
      token: refreshToken,
      localAddress: '127.0.0.2',
    });

    // Assess
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body).toMatchObject({
      code: '20001',
      message: expect.stringMatching(/127\.0\.0\.2.*127\.0\.0\.1/),
    });
    expect(same).toMatchObject({ status: 200, body: { code: '10000' } });
    expect(sim.snapshot().refreshes).toBe(before + 1);
    // The rule is the refresh token's only: the access token works from any address.
    expect((await bearerCall(token)).status).toBe(200);
  });
});
