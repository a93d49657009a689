import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { createLogger, createMetrics } from '../commons/observability.ts';
import { webhookSecretFromEnvironment } from '../commons/webhook-secret.ts';
import { receiveDepsFromEnvironment } from './receive-environment.ts';
import type { WebhookKind } from './receive-webhook.ts';
import { createWebhookHandler } from './webhook-handler.ts';

/**
 * Wires a webhook receiver from its environment (read once, at cold start):
 * `EVENT_TABLE_NAME`; `PAYLOAD_BUCKET` (bodies too large for one item or one event); `WEBHOOK_SECRET_ARN` (or `WEBHOOK_SECRET` locally); `EVENT_RETENTION_DAYS`
 * (default 35, at least 8 so duplicates are recognised through the gateway's 7-day MO window);
 * `STORE_CONCURRENCY` (default 16 conditional puts in flight).
 */
export const webhookLambda = (kind: WebhookKind, serviceName: string) => {
  const logger = createLogger(serviceName);
  const metrics = createMetrics(serviceName);
  const handler = createWebhookHandler({
    kind,
    secret: webhookSecretFromEnvironment(),
    receive: receiveDepsFromEnvironment(logger),
    logger,
    metrics,
  });
  return middy(handler)
    .use(injectLambdaContext(logger))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
};
