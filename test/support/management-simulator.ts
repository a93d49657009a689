/** One simulator per test file with the management client on it, and the channel and template steps the tests share. */
import { afterAll, beforeAll, expect } from 'vitest';
import type { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import type { TokenProvider } from '../../gateway/bearer/token-provider.ts';
import { GatewayManagementClient } from '../../gateway/management/messenger-client.ts';
import { simulatedChannelToken } from '../../simulator/messenger-seeds.ts';
import type { Simulator } from '../../simulator/server.ts';
import { asObject, callGateway } from './simulator-http.ts';
import { startWithSessions } from './simulator-sessions.ts';

export const credentials = { apiKey: 'mgmt-key', apiPassword: 'mgmt-secret' };

export const ADMIN = '01012345678';

export const CATEGORY = '00100010001';

export let sim: Simulator;

export let sessions: SessionTokenProvider;

export let client: GatewayManagementClient;

/** Every token the client asked for: one per gateway call (no authentication retries here). */
export let tokenRequests = 0;

/** The error a call failed with; fails the test when the call succeeds. */
export const failureOf = async (call: Promise<unknown>): Promise<unknown> => {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
};

export const rejectedWith = (code: string) =>
  expect.objectContaining({ name: 'GatewayRejectedError', code });

/** Registers a channel through `on` the way an operator does: token to the administrator, then create. */
export const registerChannel = async (msgrChId: string, on: GatewayManagementClient = client) => {
  await on.requestChannelToken({ phoneNumber: ADMIN, msgrChId, relay: 'r01' });
  await on.createChannel({
    msgrChId,
    categoryCode: CATEGORY,
    tokens: [
      { rid: 'r01', phoneNumber: ADMIN, token: simulatedChannelToken(msgrChId, ADMIN, 'r01') },
    ],
  });
};

export const templateBody = (msgrChId: string, templateCode: string) => ({
  msgrChId,
  templateCode,
  templateName: 'Order shipped',
  templateContent: 'Hello #{name}, your order #{order} has shipped.',
  categoryCode: '002001',
  templateMessageType: 'BA' as const,
  templateEmphasizeType: 'NONE' as const,
});

/** Moves a channel to `stat` (P dormant, D deleted) the way the platform would. */
export const setChannelStat = (msgrChId: string, stat: 'P' | 'D') =>
  callGateway(sim, {
    method: 'POST',
    path: `/_sim/messenger/channels/${msgrChId}/stat`,
    body: { stat },
  });

/** Moves a template through the platform's review by hand (the spec gives it no trigger). */
export const setTemplateStatus = async (templateKey: string, status: string, target = sim) => {
  const answer = await callGateway(target, {
    method: 'POST',
    path: `/_sim/messenger/templates/${templateKey}/status`,
    body: { status },
  });
  expect(answer.body).toMatchObject({ code: '10000' });
};

/** What the simulator (`target`) holds for a template (`GET /_sim/messenger/templates/{templateKey}`). */
export const simTemplate = async (templateKey: string, target = sim) => {
  const answer = await callGateway(target, {
    method: 'GET',
    path: `/_sim/messenger/templates/${templateKey}`,
  });
  return asObject(asObject(answer.body).data);
};

/** Starts the file's simulator and client before its tests and closes the simulator after them. */
export const useManagementSimulator = (): void => {
  beforeAll(async () => {
    ({ sim, sessions } = await startWithSessions(credentials));
    const counting: TokenProvider = {
      getToken: () => {
        tokenRequests += 1;
        return sessions.getToken();
      },
      invalidate: (token) => sessions.invalidate(token),
    };
    client = new GatewayManagementClient({ hosts: sim.hosts, tokens: counting, timeoutMs: 2_000 });
  });

  afterAll(async () => {
    await sim.close();
  });
};
