/** The bridge's gateway client against a simulator: session tokens issued by it, on its clock. */

import { afterAll, beforeAll } from 'vitest';
import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import { GatewayClient, type GatewayClientOptions } from '../../gateway/client.ts';
import { GatewayAuthApi, type GatewayCredentials } from '../../gateway/token-api.ts';
import type { HttpTransport } from '../../gateway/transport.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';

/** Session tokens from `sim` for `credentials`, renewed as of the simulator's clock. */
export const simulatorTokens = (
  sim: Simulator,
  credentials: GatewayCredentials,
  authTransport?: HttpTransport,
): SessionTokenProvider =>
  new SessionTokenProvider({
    auth: new GatewayAuthApi({ hosts: sim.hosts, transport: authTransport }),
    credentials: () => credentials,
    now: () => sim.clock.now(),
  });

/** The typed gateway client on `sim`'s hosts, with {@link simulatorTokens}. */
export const simulatorClient = (
  sim: Simulator,
  credentials: GatewayCredentials,
  options: Partial<Omit<GatewayClientOptions, 'hosts' | 'tokens'>> = {},
): GatewayClient =>
  new GatewayClient({ hosts: sim.hosts, tokens: simulatorTokens(sim, credentials), ...options });

/**
 * The simulator as the reconciliation tests run it (a manual clock, reports by polling, a quota
 * of 1,000) and the gateway client on it.
 */
export const startPollingSimulator = async (credentials: GatewayCredentials) => {
  const sim = await startSimulator({
    ...credentials,
    clock: 'manual',
    reportDelivery: 'polling',
    tpsQuota: 1_000,
  });
  return { sim, client: simulatorClient(sim, credentials, { timeoutMs: 2_000 }) };
};

/**
 * A simulator with a TPS quota and no injected failures, and a gateway client on it holding its
 * token already: deployed senders read a token the refresher keeps current.
 */
export const startQuotaSimulator = async (credentials: GatewayCredentials, tpsQuota: number) => {
  const sim = await startSimulator({ ...credentials, tpsQuota, failureRate: 0 });
  const tokens = simulatorTokens(sim, credentials);
  const gateway = new GatewayClient({
    hosts: sim.hosts,
    tokens,
    apiKey: credentials.apiKey,
    timeoutMs: 2_000,
  });
  await tokens.getToken();
  return { sim, gateway };
};

/**
 * {@link startQuotaSimulator} for the tests of one file: started before them, closed after them.
 * The simulator and its client are read through the answer once the tests run.
 */
export const useQuotaSimulator = (credentials: GatewayCredentials, tpsQuota: number) => {
  let started: Awaited<ReturnType<typeof startQuotaSimulator>> | undefined;
  beforeAll(async () => {
    started = await startQuotaSimulator(credentials, tpsQuota);
  });
  afterAll(async () => {
    await started?.sim.close();
  });
  const get = () => {
    if (started === undefined) throw new Error('the quota simulator starts before the tests');
    return started;
  };
  return {
    get sim() {
      return get().sim;
    },
    get gateway() {
      return get().gateway;
    },
  };
};
