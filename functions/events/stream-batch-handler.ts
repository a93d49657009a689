import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { DynamoDbPublishLedger } from './dynamodb-publish-ledger.ts';
import { EventBridgeBus } from './eventbridge-bus.ts';
import {
  type EventBus,
  PUT_EVENTS_MAX_BYTES,
  type PublishDeps,
  type PublishOutcome,
  publishRecords,
} from './publish.ts';

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

/** What the local run supplies instead of the Lambda's own (its bus among them). */
export interface PublisherOverrides extends Omit<CompositionOverrides, 's3'> {
  /** The bus to put events on; `EVENT_BUS_NAME` is then not read. */
  readonly bus?: EventBus;
  /** The wait before the n-th put of the entries still failing. @default 100 ms doubling, capped at 2 s, with jitter */
  readonly backoffMs?: (attempt: number) => number;
}

/**
 * Composes `publish-events` (the event table's stream, INSERTs of event items only, filtered by
 * the event source mapping → EventBridge) from its environment, read once, at cold start:
 * `EVENT_BUS_NAME`, `STATE_TABLE_NAME` (the publish markers, see publish.ts), `EVENT_SOURCE`
 * (default `msgbridge`), `PUBLISH_MAX_ATTEMPTS` (default 4). The Lambda entry wraps the handler in
 * middy; the local run feeds it from its stream poller.
 */
export const composePublisher = (
  env: Environment = process.env,
  overrides: PublisherOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('publish-events', overrides);
  const handler = createPublishHandler({
    bus: overrides.bus ?? new EventBridgeBus(requiredEnv('EVENT_BUS_NAME', env)),
    ledger: new DynamoDbPublishLedger(requiredEnv('STATE_TABLE_NAME', env), overrides.documents),
    source: env.EVENT_SOURCE ?? 'msgbridge',
    maxAttempts: integerEnv('PUBLISH_MAX_ATTEMPTS', 4, { min: 1, max: 10 }, env),
    backoffMs:
      overrides.backoffMs ??
      ((attempt) => Math.min(2_000, 100 * 2 ** (attempt - 2)) * (0.5 + Math.random() / 2)),
    sleep: (ms) => sleep(ms),
    maxBatchBytes: PUT_EVENTS_MAX_BYTES,
    logger,
    metrics,
  });
  return { handler, logger, metrics };
};
