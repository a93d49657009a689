import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type PublishDeps, publishRecords } from './publish.ts';

/** The primary adapter of `publish-events`: stream batch in, partial batch response out. */
export const createPublishHandler =
  (deps: PublishDeps & { readonly logger: Logger; readonly metrics: Metrics }) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const { logger, metrics } = deps;
    const outcome = await publishRecords(event.Records, {
      ...deps,
      onPoison: (record, reason) => {
        metrics.addMetric('PoisonRecords', MetricUnit.Count, 1);
        logger.error('stream record cannot become an event', {
          reason,
          keys: record.dynamodb?.Keys,
          sequenceNumber: record.dynamodb?.SequenceNumber,
        });
      },
      onPublishFailure: (failures) => {
        metrics.addMetric('PublishFailures', MetricUnit.Count, failures.length);
        logger.error('PutEvents entries still failing after retries', { failures });
      },
    });
    metrics.addMetric('EventsPublished', MetricUnit.Count, outcome.published);
    logger.info('stream batch published', {
      records: event.Records.length,
      published: outcome.published,
      failedFrom: outcome.response.batchItemFailures[0]?.itemIdentifier,
    });
    return outcome.response;
  };
