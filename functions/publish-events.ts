import { setTimeout as sleep } from 'node:timers/promises';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { integerEnv, requiredEnv } from './commons/environment.ts';
import { createLogger, createMetrics } from './commons/observability.ts';
import { DynamoDbPublishLedger } from './events/dynamodb-publish-ledger.ts';
import { EventBridgeBus } from './events/eventbridge-bus.ts';
import { PUT_EVENTS_MAX_BYTES } from './events/publish.ts';
import { createPublishHandler } from './events/stream-batch-handler.ts';

const logger = createLogger('publish-events');
const metrics = createMetrics('publish-events');

/**
 * The event table's stream (INSERTs of event items only, filtered by the event source mapping)
 * → EventBridge. Environment: `EVENT_BUS_NAME`, `STATE_TABLE_NAME` (the publish markers, see
 * events/publish.ts), `EVENT_SOURCE` (default `msgbridge`), `PUBLISH_MAX_ATTEMPTS` (default 4).
 */
export const handler = middy(
  createPublishHandler({
    bus: new EventBridgeBus(requiredEnv('EVENT_BUS_NAME')),
    ledger: new DynamoDbPublishLedger(requiredEnv('STATE_TABLE_NAME')),
    source: process.env.EVENT_SOURCE ?? 'msgbridge',
    maxAttempts: integerEnv('PUBLISH_MAX_ATTEMPTS', 4, { min: 1, max: 10 }),
    backoffMs: (attempt) => Math.min(2_000, 100 * 2 ** (attempt - 2)) * (0.5 + Math.random() / 2),
    sleep: (ms) => sleep(ms),
    maxBatchBytes: PUT_EVENTS_MAX_BYTES,
    logger,
    metrics,
  }),
)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
