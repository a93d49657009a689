import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiPassword, newRandomStr } from '../../protocol/api-password.ts';
import { type Simulator, SimulatorOptionsError, startSimulator } from '../../simulator/index.ts';
import { FaultsSchema, SimulatorOptionsSchema } from '../../simulator/options.ts';
import { normaliseAddress } from '../../simulator/router.ts';
import { asObject, authenticate, callGateway } from '../support/simulator-http.ts';

const API_KEY = 'auth-test-key';
const API_PASSWORD = randomUUID();
const ACCESS_TTL_S = 600;
const REFRESH_TTL_S = 3_600;

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    apiKey: API_KEY,
    apiPassword: API_PASSWORD,
    clock: 'manual',
    accessTokenTtlSeconds: ACCESS_TTL_S,
    refreshTokenTtlSeconds: REFRESH_TTL_S,
  });
});

afterAll(async () => {
  await sim.close();
});

const login = () => authenticate(sim, { apiKey: API_KEY, apiPassword: API_PASSWORD });

/** A cheap bearer call: the status query for a key nobody sent. */
const bearerCall = (token?: string, headers?: Record<string, string>) =>
  callGateway(sim, {
    method: 'POST',
    path: '/msg/v1/sent',
    ...(token === undefined ? {} : { token }),
    ...(headers === undefined ? {} : { headers }),
    body: { cliKeyLst: [{ cliKey: 'nobody', reqDt: '2026-01-01' }] },
  });

const refresh = (refreshToken: string) =>
  callGateway(sim, { method: 'PUT', path: '/auth/v1/refresh', token: refreshToken });

const issueWith = (apiKey: string, apiPwd: string, randomStr = newRandomStr()) =>
  callGateway(sim, { method: 'POST', path: `/auth/v1/${randomStr}`, body: { apiKey, apiPwd } });

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

  it('answers 20002 when the hash was made with another password', async () => {
    // Prepare
    const randomStr = newRandomStr();

    // Act
    const answer = await issueWith(
      API_KEY,
      hashApiPassword('not-the-password', randomStr),
      randomStr,
    );

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20002' });
  });

  it('answers 20002 when the hash was made for another randomStr', async () => {
    // Prepare
    const apiPwd = hashApiPassword(API_PASSWORD, 'some-other-random');

    // Act
    const answer = await issueWith(API_KEY, apiPwd, 'the-random-in-path');

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20002' });
  });

  it('answers 20000 for an unknown API key', async () => {
    // Prepare
    const randomStr = newRandomStr();

    // Act
    const answer = await issueWith(
      'someone-else',
      hashApiPassword(API_PASSWORD, randomStr),
      randomStr,
    );

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20000' });
  });

  it('refuses a randomStr longer than 20 characters', async () => {
    // Prepare
    const randomStr = 'a'.repeat(21);

    // Act
    const answer = await issueWith(API_KEY, hashApiPassword(API_PASSWORD, randomStr), randomStr);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21001' });
  });
});

describe('bearer checks', () => {
  it('answers 20004 without an Authorization header', async () => {
    // Act
    const answer = await bearerCall();

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20004' });
  });

  it('answers 20004 for a header that is not "Bearer <token>"', async () => {
    // Prepare
    const { token } = await login();

    // Act
    const answer = await bearerCall(undefined, { authorization: `Basic ${token}` });

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20004' });
  });

  it('answers 29011 for a token whose signature does not match', async () => {
    // Prepare
    const { token } = await login();
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(43)}`;

    // Act
    const answer = await bearerCall(forged);

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '29011' });
  });

  it('answers 29011 when a refresh token is used as the access token', async () => {
    // Prepare
    const { refreshToken } = await login();

    // Act
    const answer = await bearerCall(refreshToken);

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '29011' });
  });
});

describe('token lifetime', () => {
  it('keeps the access token valid until its lifetime ends, then answers 29011', async () => {
    // Prepare
    const { token } = await login();

    // Act
    await sim.advance(ACCESS_TTL_S * 1000 - 1000);
    const lastSecond = await bearerCall(token);
    await sim.advance(1000);
    const expired = await bearerCall(token);

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

  it('lets the refresh token expire at its own lifetime even after refreshes', async () => {
    // Prepare
    const { refreshToken } = await login();
    await sim.advance(REFRESH_TTL_S * 1000 - 1000);
    const beforeEnd = await refresh(refreshToken);

    // Act
    await sim.advance(1000);
    const afterEnd = await refresh(refreshToken);

    // Assess
    expect(beforeEnd.status).toBe(200);
    expect(afterEnd.status).toBe(401);
    expect(afterEnd.body).toMatchObject({ code: '29011' });
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

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const CLI_ENV = { ...process.env, SIMULATOR_API_PASSWORD: '' };

const runCli = (args: readonly string[]): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'simulator/cli.ts', ...args], {
      cwd: process.cwd(),
      env: CLI_ENV,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

/** The flag of an option key: kebab-case, except the two webhook URLs named as in the brief. */
const RENAMED_FLAGS: Record<string, string> = {
  reportWebhookUrl: 'report-webhook',
  moWebhookUrl: 'mo-webhook',
};
const flagOf = (key: string): string =>
  RENAMED_FLAGS[key] ?? key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

describe('simulator CLI', () => {
  it('--help exits 0 and lists a flag for every option', async () => {
    // Prepare
    const keys = [
      ...Object.keys(SimulatorOptionsSchema.shape).filter((key) => key !== 'faults'),
      ...Object.keys(FaultsSchema.shape),
    ];

    // Act
    const run = await runCli(['--help']);

    // Assess
    expect(run.code).toBe(0);
    for (const key of keys) expect(run.stdout).toContain(`--${flagOf(key)}`);
  });

  it('exits 2 and names every bad flag at once', async () => {
    // Act
    const run = await runCli(['--port', 'abc', '--bogus', '--error-rate', '2', 'stray']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port');
    expect(run.stderr).toContain('--bogus');
    expect(run.stderr).toContain('--error-rate');
    expect(run.stderr).toContain('stray');
  });

  it('starts with no password, prints the generated one and the hosts, and stops on SIGTERM', async () => {
    // Prepare: node directly (not npx), so the signal reaches the simulator's own process.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'simulator/cli.ts', '--port', '0', '--api-key', 'cli-key'],
      { cwd: process.cwd(), env: CLI_ENV },
    );
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const started = new Promise<{ url: string; password: string }>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const url = /listening on (\S+)/.exec(stdout)?.[1];
        const password = /password\s+(\S+)\s+\(generated/.exec(stdout)?.[1];
        if (url && password && stdout.includes('send_url')) resolve({ url, password });
      });
      child.on('close', () => reject(new Error(`CLI exited early:\n${stdout}`)));
    });

    try {
      // Act
      const { url, password } = await started;
      const tokens = await authenticate({ url }, { apiKey: 'cli-key', apiPassword: password });
      child.kill('SIGTERM');

      // Assess
      expect(tokens.token).toMatch(/\./);
      expect(stdout).toContain(`api_url   ${url}`);
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

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
