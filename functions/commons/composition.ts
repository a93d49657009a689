import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLogger, createMetrics } from './observability.ts';

/**
 * What a caller other than the Lambda (the local run, a test) may give a job's composition
 * instead of what it builds itself. Each left out is the Lambda's own: a Powertools logger and
 * metrics named after the function, the shared clients of `commons/clients/`.
 */
export interface CompositionOverrides {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** The DynamoDB document client (the local run's endpoint). */
  readonly documents?: DynamoDBDocumentClient;
  /** The S3 client (the local run's endpoint). */
  readonly s3?: S3Client;
  /** The SQS client (the local run's endpoint). */
  readonly sqs?: SQSClient;
  /** The Secrets Manager client the credentials and the webhook secret are read with. */
  readonly secrets?: SecretsManagerClient;
  /** The EventBridge client events are put with. */
  readonly eventBridge?: EventBridgeClient;
}

/** What a composition hands its handler: the use case's dependencies, its logger and metrics. */
export interface HandlerDeps<Deps> {
  readonly deps: Deps;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** The logger and metrics of `serviceName`, unless the caller brought its own. */
export const observabilityOf = (
  serviceName: string,
  overrides: Pick<CompositionOverrides, 'logger' | 'metrics'>,
): { readonly logger: Logger; readonly metrics: Metrics } => ({
  logger: overrides.logger ?? createLogger(serviceName),
  metrics: overrides.metrics ?? createMetrics(serviceName),
});
