import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { type PublishDeps, type PublishOutcome, publishRecords } from './publish.ts';

/**
 * The primary adapter of `publish-events`: stream batch in, partial batch response out.
 * `onOutcome` sees each invocation's outcome (the local run and fault-injection runs count
 * `unguarded` events with it).
 */
export const createPublishHandler =
  (
    deps: PublishDeps & {
      readonly logger: Logger;
      readonly metrics: Metrics;
      readonly onOutcome?: (outcome: PublishOutcome) => void;
    },
  ) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const { logger, metrics } = deps;
    /** Logs what went wrong with a stream record, and where the record is in the stream. */
    const logRecord = (
      message: string,
      record: DynamoDBRecord,
      details: Record<string, unknown>,
    ): void =>
      logger.error(message, {
        ...details,
        keys: record.dynamodb?.Keys,
        sequenceNumber: record.dynamodb?.SequenceNumber,
      });
    const outcome = await publishRecords(event.Records, {
      ...deps,
      onPoison: (record, reason) => {
        metrics.addMetric('PoisonRecords', MetricUnit.Count, 1);
        logRecord('stream record cannot become an event', record, { reason });
      },
      onPublishFailure: (failures) => {
        metrics.addMetric('PublishFailures', MetricUnit.Count, failures.length);
        logger.error('PutEvents entries still failing after retries', { failures });
      },
      onStatusFailure: (record, error) => {
        metrics.addMetric('StatusReadFailures', MetricUnit.Count, 1);
        logRecord(
          'message status could not be read: the batch comes back from this record',
          record,
          { error },
        );
      },
      onLedgerFailure: (operation, error) => {
        logger.error('state table failed: publish markers could not be used', {
          operation,
          error,
        });
      },
    });
    metrics.addMetric('EventsPublished', MetricUnit.Count, outcome.published);
    if (outcome.markedUnpublished > 0) {
      metrics.addMetric('EventsMarkedUnpublished', MetricUnit.Count, outcome.markedUnpublished);
    }
    if (outcome.skipped > 0) {
      metrics.addMetric('SettledRecordsSkipped', MetricUnit.Count, outcome.skipped);
    }
    if (outcome.unguarded.length > 0) {
      metrics.addMetric('EventsUnguarded', MetricUnit.Count, outcome.unguarded.length);
      logger.warn('published events whose records Lambda delivers again without a marker', {
        eventIds: outcome.unguarded,
      });
    }
    deps.onOutcome?.(outcome);
    logger.info('stream batch published', {
      records: event.Records.length,
      published: outcome.published,
      markedUnpublished: outcome.markedUnpublished,
      skipped: outcome.skipped,
      failedFrom: outcome.response.batchItemFailures[0]?.itemIdentifier,
    });
    return outcome.response;
  };
