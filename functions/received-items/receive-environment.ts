import type { Logger } from '@aws-lambda-powertools/logger';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { DynamoDbEventStore } from '../event-table/dynamodb-event-store.ts';
import { S3PayloadStore } from '../event-table/s3-payload-store.ts';
import type { ReceiveDeps } from './receive-items.ts';

/**
 * What the receiving use cases need to store reports and inbound messages, from the environment:
 * EVENT_TABLE_NAME, PAYLOAD_BUCKET (where bodies too large for one item or one event are kept,
 * below `payloads/`), EVENT_RETENTION_DAYS (default 35, at least 8: the gateway's 7-day MO
 * window), STORE_CONCURRENCY (default 16). Used by the webhook receivers, `poll-reports` and
 * `reconcile-status`, so every path stores items alike. `env` and `clients` are the local run's
 * (its tables and bucket, its DynamoDB and S3 endpoints); a Lambda keeps the defaults.
 */
export const receiveDepsFromEnvironment = (
  logger: Logger,
  env: Environment = process.env,
  clients: { readonly documents?: DynamoDBDocumentClient; readonly s3?: S3Client } = {},
) =>
  ({
    store: new DynamoDbEventStore(requiredEnv('EVENT_TABLE_NAME', env), clients.documents),
    payloads: new S3PayloadStore(requiredEnv('PAYLOAD_BUCKET', env), clients.s3),
    now: () => new Date(),
    retentionDays: integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }, env),
    concurrency: integerEnv('STORE_CONCURRENCY', 16, { min: 1, max: 100 }, env),
    onStoreFailure: (record: { pk: string; sk: string }, error: unknown) =>
      logger.error('store failed', {
        // A refused key can be kilobytes long; its start is enough to find it.
        pk: record.pk.slice(0, 200),
        sk: record.sk.slice(0, 200),
        error: error instanceof Error ? { name: error.name, message: error.message } : error,
      }),
  }) satisfies ReceiveDeps;
