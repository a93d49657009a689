import type { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDbEventStore } from '../commons/adapters/dynamodb-event-store.ts';
import { integerEnv, requiredEnv } from '../commons/environment.ts';

/**
 * What the receiving use cases need to store reports and inbound messages, from the environment:
 * EVENT_TABLE_NAME, EVENT_RETENTION_DAYS (default 35, at least 8: the gateway's 7-day MO window),
 * STORE_CONCURRENCY (default 16).
 */
export const receiveDepsFromEnvironment = (logger: Logger) => ({
  store: new DynamoDbEventStore(requiredEnv('EVENT_TABLE_NAME')),
  now: () => new Date(),
  retentionDays: integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }),
  concurrency: integerEnv('STORE_CONCURRENCY', 16, { min: 1, max: 100 }),
  onStoreFailure: (record: { pk: string; sk: string }, error: unknown) =>
    logger.error('store failed', { pk: record.pk, sk: record.sk, error }),
});
