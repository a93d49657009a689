import type { Logger } from '@aws-lambda-powertools/logger';
import { GatewayClient } from '../../gateway/client.ts';
import {
  type GatewayFromEnvironmentOptions,
  gatewayAccessFromEnvironment,
} from './gateway-access.ts';

export type { GatewayFromEnvironmentOptions } from './gateway-access.ts';

/**
 * The gateway client of a Lambda that calls the gateway, with what it is made of, from its
 * environment ({@link gatewayAccessFromEnvironment}).
 */
export const gatewayFromEnvironment = (
  logger: Logger,
  options: GatewayFromEnvironmentOptions = {},
) => {
  const access = gatewayAccessFromEnvironment(logger, options);
  const { hosts, tokens, timeoutMs } = access;
  return { ...access, client: new GatewayClient({ hosts, tokens, timeoutMs }) };
};
