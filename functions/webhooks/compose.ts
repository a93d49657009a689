import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv } from '../commons/environment.ts';
import type { EventStore } from '../event-table/ports.ts';
import { receiveDepsFromEnvironment } from '../received-items/receive-environment.ts';
import type { ReceiveDeps, WebhookKind } from '../received-items/receive-items.ts';
import { createWebhookHandler, LAMBDA_PAYLOAD_BYTES } from './handler.ts';
import { sourceAllowlistFromEnvironment } from './source-allowlist.ts';
import { webhookSecretFromEnvironment } from './webhook-secret.ts';

/** What the local run supplies instead of a Lambda's own. */
export interface ReceiverOverrides extends CompositionOverrides {
  /** Wraps the event store (the local run's injected write failures). */
  readonly wrapStore?: (store: EventStore) => EventStore;
}

/**
 * Composes a webhook receiver (`receive-reports` or `receive-inbound`) from its environment, read
 * once, at cold start: `EVENT_TABLE_NAME`; `PAYLOAD_BUCKET` (bodies too large for one item or one
 * event); `WEBHOOK_SECRET_ARN`; `EVENT_RETENTION_DAYS` (default 35,
 * at least 8 so duplicates are recognised through the gateway's 7-day MO window);
 * `STORE_CONCURRENCY` (default 16 conditional puts in flight); `ALLOWED_SOURCE_CIDRS` (default:
 * any source; set for the function-URL front, which has no resource policy); `MAX_BODY_BYTES`
 * (default: no limit of its own below Lambda's 6 MB payload limit). The Lambda entry wraps the handler in middy; the local
 * run serves it from its webhook server.
 */
export const composeReceiver = (
  kind: WebhookKind,
  env: Environment = process.env,
  overrides: ReceiverOverrides = {},
) => {
  const { logger, metrics } =
    kind === 'report'
      ? observabilityOf('receive-reports', overrides)
      : observabilityOf('receive-inbound', overrides);
  const secret = webhookSecretFromEnvironment(env, overrides.secrets);
  const allowedSources = sourceAllowlistFromEnvironment(env);
  const maxBodyBytes = integerEnv(
    'MAX_BODY_BYTES',
    Number.POSITIVE_INFINITY,
    { min: 1, max: LAMBDA_PAYLOAD_BYTES },
    env,
  );
  const stored = receiveDepsFromEnvironment(logger, env, overrides);
  const receive: ReceiveDeps = overrides.wrapStore
    ? { ...stored, store: overrides.wrapStore(stored.store) }
    : stored;
  return {
    handler: createWebhookHandler({
      kind,
      secret,
      receive,
      logger,
      metrics,
      allowedSources,
      maxBodyBytes,
    }),
    receive,
    logger,
    metrics,
  };
};
