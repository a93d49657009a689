import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { DynamoDbEventStore } from '../commons/adapters/dynamodb-event-store.ts';
import { integerEnv, requiredEnv } from '../commons/environment.ts';
import { createLogger, createMetrics } from '../commons/observability.ts';
import { webhookSecretFromEnvironment } from '../commons/webhook-secret.ts';
import type { WebhookKind } from './receive-webhook.ts';
import { createWebhookHandler } from './webhook-handler.ts';

/**
 * Wires a webhook receiver from its environment (read once, at cold start):
 * `EVENT_TABLE_NAME`; `WEBHOOK_SECRET_ARN` (or `WEBHOOK_SECRET` locally); `EVENT_RETENTION_DAYS`
 * (default 35, at least 8 so duplicates are recognised through the gateway's 7-day MO window);
 * `STORE_CONCURRENCY` (default 16 conditional puts in flight).
 */
export const webhookLambda = (kind: WebhookKind, serviceName: string) => {
  const logger = createLogger(serviceName);
  const metrics = createMetrics(serviceName);
  const handler = createWebhookHandler({
    kind,
    secret: webhookSecretFromEnvironment(),
    receive: {
      store: new DynamoDbEventStore(requiredEnv('EVENT_TABLE_NAME')),
      now: () => new Date(),
      retentionDays: integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }),
      concurrency: integerEnv('STORE_CONCURRENCY', 16, { min: 1, max: 100 }),
      onStoreFailure: (record, error) =>
        logger.error('store failed', { pk: record.pk, sk: record.sk, error }),
    },
    logger,
    metrics,
  });
  return middy(handler)
    .use(injectLambdaContext(logger))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
};
