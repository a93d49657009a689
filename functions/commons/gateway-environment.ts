import type { Logger } from '@aws-lambda-powertools/logger';
import { stateTableTokenProvider } from '../tokens/adapters/state-table-token-provider.ts';
import { integerEnv, requiredEnv } from './environment.ts';
import { GatewayAuthApi } from './gateway/gateway-auth.ts';
import { GatewayClient } from './gateway/gateway-client.ts';
import {
  gatewayCredentialsFromEnvironment,
  gatewayHostsFromEnvironment,
} from './gateway-credentials.ts';

/**
 * The gateway client of a Lambda that calls the gateway, from its environment (read once, at cold
 * start): GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (default 10 s),
 * GATEWAY_CREDENTIALS_SECRET_ARN and STATE_TABLE_NAME, where the shared token lives.
 */
export const gatewayFromEnvironment = (
  logger: Logger,
  options: { readonly maxTimeoutMs?: number } = {},
) => {
  const hosts = gatewayHostsFromEnvironment();
  const timeoutMs = integerEnv('GATEWAY_TIMEOUT_MS', 10_000, {
    min: 100,
    max: options.maxTimeoutMs ?? 60_000,
  });
  const auth = new GatewayAuthApi({ hosts, timeoutMs });
  // The shared token kept by refresh-token; a crowd of containers re-authenticates once.
  const tokens = stateTableTokenProvider(requiredEnv('STATE_TABLE_NAME'), {
    auth,
    credentials: gatewayCredentialsFromEnvironment(),
    logger,
    // The re-authentication lease outlasts one authentication call at this timeout.
    authTimeoutMs: timeoutMs,
  });
  return {
    hosts,
    timeoutMs,
    auth,
    tokens,
    client: new GatewayClient({ hosts, tokens, timeoutMs }),
  };
};
