import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from '../../gateway/schemas/zod.ts';
import type { GatewayCredentials } from '../../gateway/token-api.ts';
import { type Environment, requiredEnv } from '../commons/environment.ts';

/** The gateway API key and password, as stored in Secrets Manager. */
export const GatewayCredentialsSchema = z.strictObject({
  apiKey: z.string().check(z.minLength(1), z.maxLength(20)),
  apiPassword: z.string().check(z.minLength(1)),
});

/**
 * The credentials secret does not hold `{"apiKey": "...", "apiPassword": "..."}` (yet): the stack
 * creates it with a random value for the operator to replace. Nothing can authenticate until then,
 * and retrying does not help; the message says how to fill it in.
 */
export class GatewayCredentialsNotSetError extends Error {
  override readonly name = 'GatewayCredentialsNotSetError';
  constructor(readonly secretArn: string) {
    super(
      `the gateway credentials secret does not hold {"apiKey": "...", "apiPassword": "..."}: put the API key and password from the gateway console there (aws secretsmanager put-secret-value --secret-id ${secretArn} --secret-string '{"apiKey":"…","apiPassword":"…"}'; docs/operations.md, "Gateway credentials")`,
    );
  }
}

/** Whether `error` is the credentials secret not holding credentials yet. */
export const isCredentialsNotSet = (error: unknown): error is GatewayCredentialsNotSetError =>
  error instanceof Error && error.name === 'GatewayCredentialsNotSetError';

/**
 * Gateway credentials from `GATEWAY_CREDENTIALS_SECRET_ARN`, read with a 5-minute cache on
 * `client` (the local run's) or the container's own Secrets Manager client. A secret that does not
 * hold the credentials' JSON (the random value the stack created it with, or anything else) is
 * `GatewayCredentialsNotSetError`. The Secrets Manager client is imported by the first read, not
 * at start: a function authenticates only when the shared token is missing or refused, and the
 * bundle's code splitting leaves the client out of what a cold start reads (docs/performance.md,
 * `cold-start`).
 */
export const gatewayCredentialsFromEnvironment = (
  env: Environment = process.env,
  client?: SecretsManagerClient,
): (() => Promise<GatewayCredentials>) => {
  const arn = requiredEnv('GATEWAY_CREDENTIALS_SECRET_ARN', env);
  return async () => {
    const { getSecretText } = await import('../commons/clients/secrets.ts');
    const value = await getSecretText(arn, 300, client);
    const parsed = GatewayCredentialsSchema.safeParse(parseJson(value));
    if (!parsed.success) throw new GatewayCredentialsNotSetError(arn);
    return parsed.data;
  };
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The gateway hosts from `GATEWAY_API_URL`, `GATEWAY_SEND_URL` and `GATEWAY_MNT_URL`. */
export const gatewayHostsFromEnvironment = (env: Environment = process.env) => {
  const hosts = {
    api: env.GATEWAY_API_URL,
    send: env.GATEWAY_SEND_URL,
    mnt: env.GATEWAY_MNT_URL,
  };
  const missing = Object.entries(hosts)
    .filter(([, value]) => !value)
    .map(([name]) => `GATEWAY_${name.toUpperCase()}_URL`);
  if (missing.length > 0)
    throw new Error(`environment variables ${missing.join(', ')} are required`);
  return z.strictObject({ api: z.url(), send: z.url(), mnt: z.url() }).parse(hosts);
};
