import { describe, expect, it } from 'vitest';
import { hashApiPassword, newRandomStr } from '../../protocol/api-password.ts';
import { SimulatorOptionsError, startSimulator } from '../../simulator/index.ts';
import {
  ACCESS_TTL_S,
  API_KEY,
  API_PASSWORD,
  bearerCall,
  REFRESH_TTL_S,
  refresh,
  sim,
  useAuthSimulator,
} from '../support/auth-simulator.ts';
import { asObject, authenticate, callGateway, type Tokens } from '../support/simulator-http.ts';

useAuthSimulator();

const login = () => authenticate(sim, { apiKey: API_KEY, apiPassword: API_PASSWORD });

const issueWith = (apiKey: string, apiPwd: string, randomStr = newRandomStr()) =>
  callGateway(sim, { method: 'POST', path: `/auth/v1/${randomStr}`, body: { apiKey, apiPwd } });

/** `call` in the last second of a lifetime of `seconds` from now, and again when it has ended. */
const aroundTheEnd = async <T>(seconds: number, call: () => Promise<T>) => {
  await sim.advance(seconds * 1000 - 1000);
  const lastSecond = await call();
  await sim.advance(1000);
  return { lastSecond, expired: await call() };
};

describe('token issuance', () => {
  it('issues an access and a refresh token for the right password hash', async () => {
    // Prepare
    const randomStr = newRandomStr();

    // Act
    const answer = await issueWith(API_KEY, hashApiPassword(API_PASSWORD, randomStr), randomStr);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      code: '10000',
      data: {
        token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        refreshToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      },
    });
  });

  it('accepts the issued access token on bearer endpoints', async () => {
    // Prepare
    const { token } = await login();

    // Act
    const answer = await bearerCall(token);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: '10000' });
  });

  it.each([
    [
      'answers 20002 when the hash was made with another password',
      () => {
        const randomStr = newRandomStr();
        return issueWith(API_KEY, hashApiPassword('not-the-password', randomStr), randomStr);
      },
      401,
      '20002',
    ],
    [
      'answers 20002 when the hash was made for another randomStr',
      () =>
        issueWith(
          API_KEY,
          hashApiPassword(API_PASSWORD, 'some-other-random'),
          'the-random-in-path',
        ),
      401,
      '20002',
    ],
    [
      'answers 20000 for an unknown API key',
      () => {
        const randomStr = newRandomStr();
        return issueWith('someone-else', hashApiPassword(API_PASSWORD, randomStr), randomStr);
      },
      401,
      '20000',
    ],
    [
      'refuses a randomStr longer than 20 characters',
      () => {
        const randomStr = 'a'.repeat(21);
        return issueWith(API_KEY, hashApiPassword(API_PASSWORD, randomStr), randomStr);
      },
      400,
      '21001',
    ],
  ])('%s', async (_, issue, status, code) => {
    // Act
    const answer = await issue();

    // Assess
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ code });
  });
});

describe('bearer checks', () => {
  it.each([
    ['answers 20004 without an Authorization header', () => bearerCall(), '20004'],
    [
      'answers 20004 for a header that is not "Bearer <token>"',
      async () => bearerCall(undefined, { authorization: `Basic ${(await login()).token}` }),
      '20004',
    ],
    [
      'answers 29011 for a token whose signature does not match',
      async () => {
        const [header, payload] = (await login()).token.split('.');
        return bearerCall(`${header}.${payload}.${'A'.repeat(43)}`);
      },
      '29011',
    ],
    [
      'answers 29011 when a refresh token is used as the access token',
      async () => bearerCall((await login()).refreshToken),
      '29011',
    ],
  ])('%s', async (_, call, code) => {
    // Act
    const answer = await call();

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code });
  });
});

describe('token lifetime', () => {
  it.each([
    [
      'keeps the access token valid until its lifetime ends, then answers 29011',
      ACCESS_TTL_S,
      ({ token }: Tokens) => bearerCall(token),
    ],
    [
      'lets the refresh token expire at its own lifetime even after refreshes',
      REFRESH_TTL_S,
      ({ refreshToken }: Tokens) => refresh(refreshToken),
    ],
  ])('%s', async (_, lifetimeS, call) => {
    // Prepare
    const tokens = await login();

    // Act
    const { lastSecond, expired } = await aroundTheEnd(lifetimeS, () => call(tokens));

    // Assess
    expect(lastSecond.status).toBe(200);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ code: '29011' });
  });

  it('refreshes the access token without renewing the refresh token', async () => {
    // Prepare
    const { token, refreshToken } = await login();
    await sim.advance(ACCESS_TTL_S * 1000);

    // Act
    const refreshed = await refresh(refreshToken);

    // Assess
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ code: '10000', data: { token: expect.any(String) } });
    const data = (refreshed.body as { data: Record<string, unknown> }).data;
    expect(data).not.toHaveProperty('refreshToken');
    expect(data.token).not.toBe(token);
    expect((await bearerCall(String(data.token))).status).toBe(200);
    expect((await bearerCall(token)).status).toBe(401);
  });

  it('refuses an access token on the refresh endpoint with 29011', async () => {
    // Prepare
    const { token } = await login();

    // Act
    const answer = await refresh(token);

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '29011' });
  });
});

describe('revocation', () => {
  it('revokes every token issued so far and keeps issuing new ones', async () => {
    // Prepare
    const before = await login();

    // Act
    sim.revokeTokens();
    const after = await login();

    // Assess
    expect(await bearerCall(before.token)).toMatchObject({ status: 401, body: { code: '29011' } });
    expect(await refresh(before.refreshToken)).toMatchObject({
      status: 401,
      body: { code: '29011' },
    });
    expect((await bearerCall(after.token)).status).toBe(200);
  });

  it('revokes through the control endpoint too', async () => {
    // Prepare
    const { token } = await login();

    // Act
    const control = await callGateway(sim, { method: 'POST', path: '/_sim/tokens/revoke' });

    // Assess
    expect(control.status).toBe(200);
    expect(await bearerCall(token)).toMatchObject({ status: 401, body: { code: '29011' } });
  });

  it('counts issued tokens in the snapshot', async () => {
    // Prepare
    const before = sim.snapshot().tokensIssued;

    // Act
    await login();

    // Assess
    expect(sim.snapshot().tokensIssued).toBe(before + 1);
  });
});

describe('simulator options', () => {
  it('lists every problem of invalid options in one error', async () => {
    // Act
    const error: unknown = await startSimulator({
      apiKey: '',
      apiPassword: 'x',
      port: 70_000,
      faults: { errorRate: 2 },
    }).catch((thrown: unknown) => thrown);

    // Assess
    expect(error).toBeInstanceOf(SimulatorOptionsError);
    expect(error).toMatchObject({
      problems: expect.arrayContaining([
        expect.stringMatching(/^apiKey: /),
        expect.stringMatching(/^port: /),
        expect.stringMatching(/^faults\.errorRate: /),
      ]),
    });
  });
});

describe('tokenErrorRate', () => {
  it('answers 20003 to every issuance and refresh at rate 1, and issues again at rate 0', async () => {
    // Prepare
    const { refreshToken } = await login();
    const before = sim.snapshot();
    sim.setFaults({ tokenErrorRate: 1 });

    try {
      // Act
      const issued = await issueWith(API_KEY, hashApiPassword(API_PASSWORD, 'r1'), 'r1');
      const refreshed = await refresh(refreshToken);

      // Assess
      expect(issued).toMatchObject({ status: 401, body: { code: '20003' } });
      expect(refreshed).toMatchObject({ status: 401, body: { code: '20003' } });
      expect(sim.snapshot().tokensIssued).toBe(before.tokensIssued);
    } finally {
      sim.setFaults({ tokenErrorRate: 0 });
    }
    expect((await refresh(refreshToken)).status).toBe(200);
    expect((await login()).token).toMatch(/\./);
  });

  it('draws the refusals from the seed: the same seed refuses the same issuances', async () => {
    // Prepare
    const run = async (): Promise<string[]> => {
      const seeded = await startSimulator({
        apiKey: API_KEY,
        apiPassword: API_PASSWORD,
        seed: 7,
        faults: { tokenErrorRate: 0.5 },
      });
      try {
        const codes: string[] = [];
        for (let i = 0; i < 16; i += 1) {
          const answer = await callGateway(seeded, {
            method: 'POST',
            path: `/auth/v1/r${i}`,
            body: { apiKey: API_KEY, apiPwd: hashApiPassword(API_PASSWORD, `r${i}`) },
          });
          codes.push(String(asObject(answer.body).code));
        }
        return codes;
      } finally {
        await seeded.close();
      }
    };

    // Act
    const first = await run();
    const second = await run();

    // Assess
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set(['10000', '20003']));
  });

  it('is set through the control endpoint like the other faults', async () => {
    // Act
    const set = await callGateway(sim, {
      method: 'POST',
      path: '/_sim/faults',
      body: { tokenErrorRate: 1 },
    });
    const refused = await issueWith(API_KEY, hashApiPassword(API_PASSWORD, 'r2'), 'r2');
    sim.setFaults({ tokenErrorRate: 0 });

    // Assess
    expect(set).toMatchObject({ status: 200, body: { data: { tokenErrorRate: 1 } } });
    expect(refused).toMatchObject({ status: 401, body: { code: '20003' } });
  });
});
