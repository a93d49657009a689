/** One simulator per test file for the authentication tests, and its bearer and refresh calls. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { callGateway } from './simulator-http.ts';

export const API_KEY = 'auth-test-key';

export const API_PASSWORD = randomUUID();

export const ACCESS_TTL_S = 600;

export const REFRESH_TTL_S = 3_600;

export let sim: Simulator;

/** A cheap bearer call: the status query for a key nobody sent. */
export const bearerCall = (token?: string, headers?: Record<string, string>) =>
  callGateway(sim, {
    method: 'POST',
    path: '/msg/v1/sent',
    ...(token === undefined ? {} : { token }),
    ...(headers === undefined ? {} : { headers }),
    body: { cliKeyLst: [{ cliKey: 'nobody', reqDt: '2026-01-01' }] },
  });

export const refresh = (refreshToken: string) =>
  callGateway(sim, { method: 'PUT', path: '/auth/v1/refresh', token: refreshToken });

/** Starts the file's simulator before its tests and closes it after them. */
export const useAuthSimulator = (): void => {
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
};
