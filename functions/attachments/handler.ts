import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  AttributeValue as LambdaAttributeValue,
} from 'aws-lambda';
import {
  type AttachmentOutcome,
  type FetchAttachmentsDeps,
  fetchAttachments,
  type SweepError,
  sweepAttachments,
} from './fetch-use-case.ts';
import { isInboundMessageInsert } from './stream-filter.ts';

export interface AttachmentHandlerDeps extends FetchAttachmentsDeps {
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The primary adapter of `fetch-attachments`: event-table stream batch in, partial batch response
 * out. A record fails (and the stream retries it) only for our own failures; a download the
 * gateway refuses is a pending marker for the sweep, and the record succeeds. Every attachment has
 * its marker before its first download, so a record the stream gives up on (on-failure) is still
 * finished by the sweep.
 */
export const createFetchAttachmentsHandler = (deps: AttachmentHandlerDeps) => {
  const { logger } = deps;
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  const handleRecord = async (record: DynamoDBRecord): Promise<void> => {
    // The event source mapping's filter drops these already; without it they are not ours either.
    if (!isInboundMessageInsert(record)) return;
    const image = record.dynamodb?.NewImage ?? {};
    const item: Record<string, unknown> = unmarshall(
      image as Record<string, LambdaAttributeValue> as never,
    );
    try {
      reportOutcomes(await fetchAttachments(item, deps), deps);
    } catch (error) {
      logger.error('attachments not fetched; the stream retries the record', {
        pk: item.pk,
        sequenceNumber: record.dynamodb?.SequenceNumber,
        error,
      });
      throw error;
    }
  };
  return (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> =>
    processPartialResponse(event, handleRecord, processor, {
      ...(context === undefined ? {} : { context }),
      // One message at a time: each upload holds a few 5 MiB parts in memory.
      processInParallel: false,
    });
};

/** Some pending attachments could not be retried because of our own failure (S3, DynamoDB). */
export class AttachmentSweepError extends Error {
  override readonly name = 'AttachmentSweepError';
  constructor(readonly failures: readonly SweepError[]) {
    super(`${failures.length} pending attachment(s) failed on our side; they stay due`, {
      cause: failures[0]?.error,
    });
  }
}

export interface SweepSummary {
  readonly due: number;
  readonly stored: number;
  readonly pending: number;
  readonly lost: number;
  readonly skipped: number;
  readonly deferred: number;
}

/**
 * The primary adapter of the scheduled sweep. It stops taking markers when less than `marginMs`
 * of the invocation is left (the rest stay due for the next run) and throws at the end when a
 * marker failed on our side, so that the invocation counts as an error and alarms.
 */
export const createSweepHandler =
  (deps: AttachmentHandlerDeps & { readonly marginMs: number }) =>
  async (_event: unknown, context?: Context): Promise<SweepSummary> => {
    const { logger } = deps;
    const result = await sweepAttachments({
      ...deps,
      shouldContinue: () =>
        context === undefined || context.getRemainingTimeInMillis() > deps.marginMs,
    });
    reportOutcomes(result.outcomes, deps);
    const count = (kind: AttachmentOutcome['result']) =>
      result.outcomes.filter((outcome) => outcome.result === kind).length;
    const summary: SweepSummary = {
      due: result.due,
      stored: count('stored'),
      pending: count('pending'),
      lost: count('lost'),
      skipped: count('skipped'),
      deferred: result.deferred,
    };
    logger.info('attachment sweep finished', { ...summary, errors: result.errors.length });
    for (const failure of result.errors) {
      logger.error('pending attachment not retried', {
        moKey: failure.marker.moKey,
        index: failure.marker.index,
        error: failure.error,
      });
    }
    if (result.errors.length > 0) throw new AttachmentSweepError(result.errors);
    return summary;
  };

/**
 * Metrics for every attachment, and a log line for what an operator should see: a refused content
 * URL, a failed or lost download, a source that failed before another worked. An attachment stored
 * at the first try, or found stored already, is a debug line (its event says as much). Content URLs
 * are never logged (bearer links).
 */
export const reportOutcomes = (
  outcomes: readonly AttachmentOutcome[],
  { logger, metrics }: { readonly logger: Logger; readonly metrics: Metrics },
): void => {
  for (const outcome of outcomes) {
    const keys = { moKey: outcome.ref.moKey, index: outcome.ref.index };
    if (
      (outcome.result === 'stored' || outcome.result === 'pending') &&
      outcome.contentUrlRefused
    ) {
      // Not the gateway's host, not https, or leading to a private address: a forged webhook
      // body (its secret path leaked) or a gateway content host missing from the allowlist.
      logger.warn('content URL refused, not fetched', {
        ...keys,
        reason: outcome.result === 'stored' ? outcome.failures[0] : outcome.reason,
      });
    }
    switch (outcome.result) {
      case 'stored': {
        metrics.addMetric('AttachmentsStored', MetricUnit.Count, 1);
        metrics.addMetric('AttachmentBytesStored', MetricUnit.Bytes, outcome.sizeBytes);
        const stored = {
          ...keys,
          source: outcome.source,
          key: outcome.key,
          sizeBytes: outcome.sizeBytes,
          sha256: outcome.sha256,
        };
        if (outcome.failures.length > 0)
          logger.info('attachment stored', { ...stored, failedFirst: outcome.failures });
        else logger.debug('attachment stored', stored);
        break;
      }
      case 'skipped':
        logger.debug('attachment already stored', keys);
        break;
      case 'pending':
      case 'lost': {
        const failure = { ...keys, attempts: outcome.attempts, reason: outcome.reason };
        if (outcome.result === 'pending') {
          metrics.addMetric('AttachmentDownloadFailures', MetricUnit.Count, 1);
          const retry = { ...failure, nextAttemptAt: outcome.nextAttemptAt };
          logger.warn('attachment download failed; the sweep retries it', retry);
        } else {
          metrics.addMetric('AttachmentsLost', MetricUnit.Count, 1);
          const lost = { ...failure, receivedAt: outcome.ref.receivedAt };
          logger.error('attachment lost: the gateway no longer has it', lost);
        }
        break;
      }
    }
  }
};
