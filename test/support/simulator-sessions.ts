/** A simulator for the management clients: manual clock, day-long access tokens, and a session token provider on it. */

import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import type { SimulatorOptionsInput } from '../../simulator/options.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';

export interface SimulatorSessions {
  readonly sim: Simulator;
  readonly sessions: SessionTokenProvider;
}

export const startWithSessions = async (
  credentials: { readonly apiKey: string; readonly apiPassword: string },
  options: Partial<SimulatorOptionsInput> = {},
): Promise<SimulatorSessions> => {
  const sim = await startSimulator({
    ...credentials,
    port: 0,
    clock: 'manual',
    accessTokenTtlSeconds: 86_400,
    ...options,
  });
  const sessions = new SessionTokenProvider({
    auth: new GatewayAuthApi({ hosts: sim.hosts }),
    credentials: () => credentials,
    now: () => sim.clock.now(),
  });
  return { sim, sessions };
};
