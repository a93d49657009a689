import { createHash, timingSafeEqual } from 'node:crypto';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { getJsonSecret } from '../commons/clients/secrets.ts';
import { type Environment, requiredEnv } from '../commons/environment.ts';

/**
 * The webhook path secret, rotatable: the current value and, during a rotation, the previous one.
 * Stored in Secrets Manager as `{"current": "...", "previous": "..."}`.
 */
export const WebhookSecretValueSchema = z.strictObject({
  current: z.string().check(z.minLength(16, 'the webhook secret must be at least 16 characters')),
  previous: z.optional(z.string().check(z.minLength(16))),
});
export type WebhookSecretValue = z.infer<typeof WebhookSecretValueSchema>;

export type WebhookSecretSource = () => Promise<WebhookSecretValue>;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * True when `candidate` equals the current or the previous secret. Both comparisons always run, in
 * constant time over fixed-length digests, so timing reveals neither the value nor which matched.
 */
export const matchesWebhookSecret = (
  candidate: string | undefined,
  secret: WebhookSecretValue,
): boolean => {
  const given = digest(candidate ?? '');
  const current = timingSafeEqual(given, digest(secret.current));
  const previous = timingSafeEqual(given, digest(secret.previous ?? `\u0000${secret.current}`));
  return candidate !== undefined && candidate !== '' && (current || previous);
};

/** Reads the secret from Secrets Manager (cached by Powertools for `maxAgeSeconds`). */
export const secretsManagerWebhookSecret =
  (secretId: string, maxAgeSeconds = 300, client?: SecretsManagerClient): WebhookSecretSource =>
  async () =>
    WebhookSecretValueSchema.parse(await getJsonSecret(secretId, maxAgeSeconds, client));

/** The secret source from `WEBHOOK_SECRET_ARN`, read on `client` or the container's own. */
export const webhookSecretFromEnvironment = (
  env: Environment = process.env,
  client?: SecretsManagerClient,
): WebhookSecretSource =>
  secretsManagerWebhookSecret(requiredEnv('WEBHOOK_SECRET_ARN', env), 300, client);
