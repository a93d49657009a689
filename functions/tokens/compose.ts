import { GatewayAuthApi, type GatewayCredentials } from '../../gateway/token-api.ts';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { DynamoDbTokenStore } from '../gateway-access/adapters/dynamodb-token-store.ts';
import {
  gatewayCredentialsFromEnvironment,
  gatewayHostsFromEnvironment,
} from '../gateway-access/gateway-credentials.ts';
import { createRefreshTokenHandler } from './handler.ts';
import type { RefreshTokenDeps } from './refresh-use-case.ts';

export interface RefreshTokenOverrides extends CompositionOverrides {
  /** The gateway's authentication API; the `GATEWAY_*_URL` variables are then not read. */
  readonly auth?: GatewayAuthApi;
  /** The gateway credentials; GATEWAY_CREDENTIALS_SECRET_ARN is then not read. */
  readonly credentials?: () => Promise<GatewayCredentials>;
}

/**
 * Composes `refresh-token` (keeps the one shared gateway token in the state table current) from
 * its environment, read once, at cold start: STATE_TABLE_NAME, GATEWAY_API_URL, GATEWAY_SEND_URL,
 * GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (default 10 000), GATEWAY_CREDENTIALS_SECRET_ARN.
 *
 * Its handler (the Lambda entry's and the local run's) is `createRefreshTokenHandler`'s.
 */
export const composeRefreshToken = (
  env: Environment = process.env,
  overrides: RefreshTokenOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('refresh-token', overrides);
  const auth =
    overrides.auth ??
    new GatewayAuthApi({
      hosts: gatewayHostsFromEnvironment(env),
      timeoutMs: integerEnv('GATEWAY_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }, env),
    });
  const deps: RefreshTokenDeps = {
    store: new DynamoDbTokenStore(requiredEnv('STATE_TABLE_NAME', env), {
      logger,
      client: overrides.documents,
    }),
    auth,
    credentials: overrides.credentials ?? gatewayCredentialsFromEnvironment(env, overrides.secrets),
    now: Date.now,
    logger,
  };
  const handler = createRefreshTokenHandler({ deps, logger, metrics });
  return { logger, metrics, deps, handler };
};
