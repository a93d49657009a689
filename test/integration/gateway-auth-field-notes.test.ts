/**
 * The bridge against the gateway's authentication behaviours from the field notes, each made by
 * the simulator: a source address off the allowlist (`20001` on the token endpoints, `29025` on
 * every other call), the refresh token's same-address rule (spec 01 §5 item 4), and the token
 * creation error `20003`. The rule for all of them: get a fresh token once, then fail loudly.
 *
 * A second source address is a client socket bound to 127.0.0.2 (all of 127/8 is loopback on
 * Linux) calling a simulator on 127.0.0.1.
 */
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import type { Lease } from '../../functions/commons/lease.ts';
import { StateTableTokenProvider } from '../../functions/gateway-access/adapters/state-table-token-provider.ts';
import type { StoredToken } from '../../functions/gateway-access/token-state.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { RateLimiter } from '../../functions/sending/rate-limiter.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import { refreshToken } from '../../functions/tokens/refresh-use-case.ts';
import { jwtExpiry } from '../../gateway/bearer/token-provider.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayAuthenticationError } from '../../gateway/errors.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import {
  type HttpAnswer,
  type HttpCall,
  type HttpTransport,
  nodeTransport,
} from '../../gateway/transport.ts';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { FakeSendStore } from '../support/fake-send-store.ts';
import { FakeTokenStore } from '../support/fake-token-store.ts';
import { simulatorTokens } from '../support/simulator-gateway-client.ts';
import { authenticate, boundAgent, callGateway } from '../support/simulator-http.ts';

const credentials = { apiKey: 'field-notes-key', apiPassword: '필드-노트-password' };
const ALLOWED = '127.0.0.2';
const MINUTE = 60_000;

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * A transport that writes `METHOD /path` of every call to `log`, sends from `from()` (the
 * system's choice, 127.0.0.1, when it answers `undefined`) and hands each answer to `onAnswer`.
 */
const transport = (options: {
  readonly log: string[];
  readonly from?: () => string | undefined;
  readonly onAnswer?: (call: HttpCall, answer: HttpAnswer) => void;
}): HttpTransport => {
  return async (call) => {
    options.log.push(`${call.method} ${new URL(call.url).pathname}`);
    const localAddress = options.from?.();
    const answer =
      localAddress === undefined ? await nodeTransport(call) : await bound(call, localAddress);
    options.onAnswer?.(call, answer);
    return answer;
  };
};

const bound = async (call: HttpCall, localAddress: string): Promise<HttpAnswer> => {
  const response = await request(call.url, {
    method: call.method,
    headers: call.headers,
    // Token and send calls carry JSON text, never a form.
    body: typeof call.body === 'string' ? call.body : undefined,
    dispatcher: boundAgent(localAddress),
    headersTimeout: call.timeoutMs,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === 'string') headers[name] = value;
  }
  return { status: response.statusCode, headers, text: await response.body.text() };
};

const issuances = (log: readonly string[]) =>
  log.filter((line) => /^POST \/auth\/v1\/(?!refresh)/.test(line));
const smsSends = (log: readonly string[]) => log.filter((line) => line === 'POST /xms/sms/v1');

/** One lease in memory, as the state table holds it. */
class MemoryLease implements Lease {
  heldBy: string | undefined;
  async acquire(_name: string, owner: string): Promise<boolean> {
    if (this.heldBy !== undefined && this.heldBy !== owner) return false;
    this.heldBy = owner;
    return true;
  }
  async renew(): Promise<boolean> {
    return false;
  }
  async release(_name: string, owner: string): Promise<void> {
    if (this.heldBy === owner) this.heldBy = undefined;
  }
}

/** The stored item for a token pair obtained by hand, its access token due for renewal. */
const storedPair = (
  sim: Simulator,
  pair: { token: string; refreshToken: string },
  accessMinutesLeft: number,
): StoredToken => ({
  token: pair.token,
  accessExpiresAt: sim.clock.now() + accessMinutesLeft * MINUTE,
  refreshToken: pair.refreshToken,
  refreshExpiresAt: (jwtExpiry(pair.refreshToken) ?? 0) * 1000,
  version: 1,
  updatedAt: sim.clock.now(),
});

const queryStatus = (client: GatewayClient, sim: Simulator) =>
  client.queryStatus([{ cliKey: 'never-sent', reqDt: formatKst(sim.clock.now(), 'YYYY-MM-DD') }]);

describe('a source address off the allowlist', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({
      ...credentials,
      clock: 'manual',
      failureRate: 0,
      allowedIps: [ALLOWED],
    });
  });

  afterAll(async () => {
    await sim.close();
  });

  describe('20001 on token issuance', () => {
    it('fails the token refresh job loudly with the code, after one request, storing nothing', async () => {
      // Prepare
      const log: string[] = [];
      const store = new FakeTokenStore();
      const auth = new GatewayAuthApi({ hosts: sim.hosts, transport: transport({ log }) });

      // Act
      const error = await refreshToken({
        store,
        auth,
        credentials: () => credentials,
        now: () => sim.clock.now(),
        logger: silent,
      }).catch((thrown: unknown) => thrown);

      // Assess
      expect(error).toBeInstanceOf(GatewayAuthenticationError);
      expect(error).toMatchObject({ code: '20001', httpStatus: 401 });
      expect(String((error as Error).message)).toContain(
        '20001: IP not allowed: register this egress address in the gateway console',
      );
      expect(issuances(log)).toHaveLength(1);
      expect(log).toHaveLength(1);
      expect(store.writes).toEqual([]);
    });

    it('fails a client call through the session token provider without calling the endpoint', async () => {
      // Prepare
      const log: string[] = [];
      const tokens = simulatorTokens(sim, credentials, transport({ log }));
      const client = new GatewayClient({ hosts: sim.hosts, tokens, transport: transport({ log }) });

      // Act
      const error = await queryStatus(client, sim).catch((thrown: unknown) => thrown);

      // Assess
      expect(error).toBeInstanceOf(GatewayAuthenticationError);
      expect(error).toMatchObject({ code: '20001' });
      expect(log).toEqual([expect.stringMatching(/^POST \/auth\/v1\//)]);
    });

    it("fails the Lambdas' state-table token provider loudly and gives the lease back", async () => {
      // Prepare
      const log: string[] = [];
      const store = new FakeTokenStore();
      const lease = new MemoryLease();
      const tokens = new StateTableTokenProvider({
        store,
        lease,
        auth: new GatewayAuthApi({ hosts: sim.hosts, transport: transport({ log }) }),
        credentials: () => credentials,
        logger: silent,
        now: () => sim.clock.now(),
        authTimeoutMs: 2_000,
      });

      // Act
      const error = await tokens.getToken().catch((thrown: unknown) => thrown);

      // Assess
      expect(error).toMatchObject({ name: 'GatewayAuthenticationError', code: '20001' });
      expect(issuances(log)).toHaveLength(1);
      expect(store.writes).toEqual([]);
      expect(lease.heldBy).toBeUndefined();
    });
  });

  describe('29025 on a bearer call', () => {
    /** Tokens are issued to the allowed address; the calls leave from 127.0.0.1. */
    const outsideClient = (log: string[]) => {
      const tokens = simulatorTokens(sim, credentials, transport({ log, from: () => ALLOWED }));
      return new GatewayClient({ hosts: sim.hosts, tokens, transport: transport({ log }) });
    };

    it('re-authenticates once, then fails the send loudly; nothing is accepted', async () => {
      // Prepare
      const log: string[] = [];
      const client = outsideClient(log);
      const accepted = sim.acceptances().length;

      // Act
      const error = await client.sendSms(smsBody(2)).catch((thrown: unknown) => thrown);

      // Assess
      expect(error).toBeInstanceOf(GatewayAuthenticationError);
      expect(error).toMatchObject({ code: '29025', httpStatus: 401 });
      expect(String((error as Error).message)).toContain(
        '29025: source IP not on the allowlist: register this egress address',
      );
      expect(smsSends(log)).toHaveLength(2);
      expect(issuances(log)).toHaveLength(2);
      expect(sim.acceptances()).toHaveLength(accepted);
    });

    it('keeps a queued send bounded: a retry on a middle delivery, rejected with 29025 on the last', async () => {
      // Prepare
      const log: string[] = [];
      const sender = new GatewaySender(outsideClient(log));
      const limiter: RateLimiter = {
        acquire: async (recipients) => ({
          waitedMs: 0,
          window: 0,
          fullWindows: 0,
          reserved: recipients,
        }),
      };
      const store = new FakeSendStore();
      const body = JSON.stringify({ channel: 'sms', ...smsBody(2) });
      const deliver = (receiveCount: number) =>
        sendQueuedMessage(
          { body, messageId: 'allowlist-1', sentAt: new Date(), receiveCount, maxReceiveCount: 3 },
          {
            store,
            awaiting: store,
            acceptedEvents: true,
            gateway: sender,
            rateLimiter: limiter,
            now: () => new Date(),
            retentionDays: 35,
            claimLeaseMs: 30_000,
            deadline: Date.now() + 20_000,
          },
        );
      const accepted = sim.acceptances().length;

      // Act
      const middle = await deliver(2);
      const last = await deliver(3);

      // Assess
      expect(middle).toMatchObject({ kind: 'retry', reason: expect.stringContaining('29025') });
      expect(last).toMatchObject({ kind: 'done', accepted: 0, rejected: 2 });
      const outcomes = store
        .details('Message Rejected')
        .map((detail) => JSON.stringify(detail))
        .join('\n');
      expect(outcomes).toContain('29025');
      expect(outcomes).toContain('retries-exhausted');
      // Two deliveries, each one request and one resend with a fresh token: four, not more.
      expect(smsSends(log)).toHaveLength(4);
      expect(sim.acceptances()).toHaveLength(accepted);
    });
  });
});

describe("the refresh token's same-address rule", () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ ...credentials, clock: 'manual', failureRate: 0 });
  });

  afterAll(async () => {
    await sim.close();
  });

  it('makes the token refresh job fall back to a full authentication, which succeeds', async () => {
    // Prepare: the stored pair was issued to 127.0.0.2; the job runs from 127.0.0.1.
    const pair = await authenticate(sim, credentials, { localAddress: ALLOWED });
    const store = new FakeTokenStore(storedPair(sim, pair, 5));
    const log: string[] = [];
    const warnings: unknown[] = [];
    const before = sim.snapshot();

    // Act
    const result = await refreshToken({
      store,
      auth: new GatewayAuthApi({ hosts: sim.hosts, transport: transport({ log }) }),
      credentials: () => credentials,
      now: () => sim.clock.now(),
      logger: { info: () => {}, warn: (...line: unknown[]) => warnings.push(line) },
    });

    // Assess
    expect(result).toMatchObject({ outcome: 'reauthenticated', version: 2 });
    expect(log).toEqual(['PUT /auth/v1/refresh', expect.stringMatching(/^POST \/auth\/v1\//)]);
    expect(JSON.stringify(warnings)).toContain('20001');
    const after = sim.snapshot();
    expect(after.refreshes).toBe(before.refreshes);
    expect(after.authentications).toBe(before.authentications + 1);
    const stored = store.item;
    expect(stored?.refreshToken).not.toBe(pair.refreshToken);
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sent',
      token: stored?.token ?? '',
      body: { cliKeyLst: [{ cliKey: 'never-sent', reqDt: '2026-01-01' }] },
    });
    expect(answer).toMatchObject({ status: 200, body: { code: '10000' } });
  });

  it('makes the session token provider authenticate again when its egress address changed', async () => {
    // Prepare: the session starts from 127.0.0.2, then the egress moves to 127.0.0.1.
    let egress: string | undefined = ALLOWED;
    const log: string[] = [];
    const tokens = simulatorTokens(sim, credentials, transport({ log, from: () => egress }));
    const client = new GatewayClient({
      hosts: sim.hosts,
      tokens,
      transport: transport({ log: [] }),
    });
    const first = await tokens.getToken();
    await sim.advance(55 * MINUTE); // the access token is due for renewal
    egress = undefined;

    // Act
    const second = await tokens.getToken();
    const answer = await queryStatus(client, sim).then(
      () => 'answered',
      (error: unknown) => error,
    );

    // Assess
    expect(second).not.toBe(first);
    expect(log).toEqual([
      expect.stringMatching(/^POST \/auth\/v1\//),
      'PUT /auth/v1/refresh',
      expect.stringMatching(/^POST \/auth\/v1\//),
    ]);
    expect(answer).toBe('answered');
  });
});

describe('20003: the gateway could not create a token', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ ...credentials, clock: 'manual', failureRate: 0 });
  });

  // A test that failed midway must not leave the fault on for the next one.
  afterEach(() => {
    sim.setFaults({ tokenErrorRate: 0 });
  });

  afterAll(async () => {
    await sim.close();
  });

  /** Refuses token calls with 20003 until `refusals` token answers have been given. */
  const refusing = (log: string[], refusals: number): HttpTransport => {
    let left = refusals;
    sim.setFaults({ tokenErrorRate: left > 0 ? 1 : 0 });
    return transport({
      log,
      onAnswer: (call) => {
        if (!new URL(call.url).pathname.startsWith('/auth/v1/')) return;
        left -= 1;
        if (left <= 0) sim.setFaults({ tokenErrorRate: 0 });
      },
    });
  };

  const jobWith = (store: FakeTokenStore, log: string[], refusals: number) =>
    refreshToken({
      store,
      auth: new GatewayAuthApi({ hosts: sim.hosts, transport: refusing(log, refusals) }),
      credentials: () => credentials,
      now: () => sim.clock.now(),
      logger: silent,
    });

  it('has the token refresh job authenticate once more, and store the second issuance', async () => {
    // Prepare
    const log: string[] = [];
    const store = new FakeTokenStore();

    // Act
    const result = await jobWith(store, log, 1);

    // Assess
    expect(result).toMatchObject({ outcome: 'reauthenticated', version: 1 });
    expect(issuances(log)).toHaveLength(2);
    expect(store.item?.token).toMatch(/\./);
  });

  it('fails the job loudly with 20003 when the second issuance is refused too', async () => {
    // Prepare
    const log: string[] = [];
    const store = new FakeTokenStore();

    // Act
    const error = await jobWith(store, log, 2).catch((thrown: unknown) => thrown);

    // Assess
    expect(error).toBeInstanceOf(GatewayAuthenticationError);
    expect(error).toMatchObject({ code: '20003' });
    expect(String((error as Error).message)).toContain('the gateway could not create a token');
    expect(issuances(log)).toHaveLength(2);
    expect(store.writes).toEqual([]);
  });

  it('has a refresh refused with 20003 fall back to one authentication', async () => {
    // Prepare
    const pair = await authenticate(sim, credentials);
    const store = new FakeTokenStore(storedPair(sim, pair, 5));
    const log: string[] = [];

    // Act
    const result = await jobWith(store, log, 1);

    // Assess
    expect(result).toMatchObject({ outcome: 'reauthenticated', version: 2 });
    expect(log).toEqual(['PUT /auth/v1/refresh', expect.stringMatching(/^POST \/auth\/v1\//)]);
  });

  it('lets a send through the session token provider go out once after one refused issuance', async () => {
    // Prepare
    const log: string[] = [];
    const tokens = simulatorTokens(sim, credentials, refusing(log, 1));
    const client = new GatewayClient({ hosts: sim.hosts, tokens, transport: transport({ log }) });
    const accepted = sim.acceptances().length;

    // Act
    const outcome = await client.sendSms(smsBody(1));

    // Assess
    expect(outcome).toMatchObject({ kind: 'immediate', results: [{ code: '10000' }] });
    expect(issuances(log)).toHaveLength(2);
    expect(smsSends(log)).toHaveLength(1);
    expect(sim.acceptances()).toHaveLength(accepted + 1);
  });
});
