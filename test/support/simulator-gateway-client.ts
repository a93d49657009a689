/** The bridge's gateway client against a simulator: session tokens issued by it, on its clock. */
import {
  GatewayAuthApi,
  type GatewayCredentials,
} from '../../functions/commons/gateway/gateway-auth.ts';
import {
  GatewayClient,
  type GatewayClientOptions,
} from '../../functions/commons/gateway/gateway-client.ts';
import type { HttpTransport } from '../../functions/commons/gateway/http.ts';
import { SessionTokenProvider } from '../../functions/commons/gateway/session-token-provider.ts';
import type { Simulator } from '../../simulator/index.ts';

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
