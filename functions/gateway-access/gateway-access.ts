import type { Logger } from '@aws-lambda-powertools/logger';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { stateTableTokenProvider } from './adapters/state-table-token-provider.ts';
import {
  gatewayCredentialsFromEnvironment,
  gatewayHostsFromEnvironment,
} from './gateway-credentials.ts';

export interface GatewayFromEnvironmentOptions {
  /** The largest GATEWAY_TIMEOUT_MS the function accepts. @default 60 000 */
  readonly maxTimeoutMs?: number;
  /** Where the variables are read. @default process.env */
  readonly env?: Environment;
  /** The state table's client (the local run's endpoint). @default the shared document client */
  readonly documents?: DynamoDBDocumentClient | undefined;
  /** The credentials secret's client (the local run's endpoint). @default the container's own */
  readonly secrets?: SecretsManagerClient | undefined;
}

/**
 * What every Lambda that calls the gateway reads from its environment (once, at cold start):
 * GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (default 10 s),
 * GATEWAY_CREDENTIALS_SECRET_ARN and STATE_TABLE_NAME, where the shared token lives: the hosts, the
 * time limit, the authentication API and the token provider a gateway client is made of. It belongs
 * to the tokens slice because every such client shares the token that slice keeps.
 */
export const gatewayAccessFromEnvironment = (
  logger: Logger,
  options: GatewayFromEnvironmentOptions = {},
) => {
  const env = options.env ?? process.env;
  const hosts = gatewayHostsFromEnvironment(env);
  const timeoutMs = integerEnv(
    'GATEWAY_TIMEOUT_MS',
    10_000,
    { min: 100, max: options.maxTimeoutMs ?? 60_000 },
    env,
  );
  const auth = new GatewayAuthApi({ hosts, timeoutMs });
  // The shared token kept by refresh-token; a crowd of containers re-authenticates once.
  const tokens = stateTableTokenProvider(requiredEnv('STATE_TABLE_NAME', env), {
    auth,
    credentials: gatewayCredentialsFromEnvironment(env, options.secrets),
    logger,
    // The re-authentication lease outlasts one authentication call at this timeout.
    authTimeoutMs: timeoutMs,
    client: options.documents,
  });
  return { hosts, timeoutMs, auth, tokens };
};
