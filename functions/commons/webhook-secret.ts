import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { getJsonSecret } from './clients/secrets.ts';
import type { Environment } from './environment.ts';

/**
 * The webhook path secret, rotatable: the current value and, during a rotation, the previous one.
 * Stored in Secrets Manager as `{"current": "...", "previous": "..."}`.
 */
export const WebhookSecretValueSchema = z.strictObject({
  current: z.string().min(16, 'the webhook secret must be at least 16 characters'),
  previous: z.string().min(16).optional(),
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
  (secretId: string, maxAgeSeconds = 300): WebhookSecretSource =>
  async () =>
    WebhookSecretValueSchema.parse(await getJsonSecret(secretId, maxAgeSeconds));

/** A fixed secret, for the local run (from `WEBHOOK_SECRET`, optionally `WEBHOOK_SECRET_PREVIOUS`). */
export const staticWebhookSecret =
  (value: WebhookSecretValue): WebhookSecretSource =>
  async () =>
    value;

/**
 * The secret source from the environment: `WEBHOOK_SECRET_ARN` (deployed) or `WEBHOOK_SECRET`
 * (local run). Exactly one must be set.
 */
export const webhookSecretFromEnvironment = (
  env: Environment = process.env,
): WebhookSecretSource => {
  const arn = env.WEBHOOK_SECRET_ARN;
  const local = env.WEBHOOK_SECRET;
  if (arn && local) throw new Error('set either WEBHOOK_SECRET_ARN or WEBHOOK_SECRET, not both');
  if (arn) return secretsManagerWebhookSecret(arn);
  if (local) {
    const previous = env.WEBHOOK_SECRET_PREVIOUS;
    return staticWebhookSecret(
      WebhookSecretValueSchema.parse({ current: local, ...(previous ? { previous } : {}) }),
    );
  }
  throw new Error(
    'environment variable WEBHOOK_SECRET_ARN (or WEBHOOK_SECRET for the local run) is required',
  );
};
