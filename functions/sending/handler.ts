import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSRecord } from 'aws-lambda';
import { type Backoff, backoffDelay } from '../commons/helpers/backoff.ts';
import type { QueueDelivery, SendDeps, SendResult } from './ports.ts';
import { sendQueuedMessage } from './send-use-case.ts';

/** A queue message that must be delivered again; the batch processor reports it as a failure. */
export class SendRetryLaterError extends Error {
  override readonly name = 'SendRetryLaterError';
}

export interface SendHandlerDeps {
  readonly deps: (remainingMs: number) => SendDeps;
  /** Deliveries after which the queue moves a message to its DLQ (its redrive `maxReceiveCount`). */
  readonly maxReceiveCount: number;
  /** Makes the message visible again after `seconds` (exponential backoff through the queue). */
  readonly delayRedelivery: (record: SQSRecord, seconds: number) => Promise<void>;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** Backoff before the n-th delivery: 15 s, 30 s, 60 s, … capped at 15 minutes, with jitter. */
const REDELIVERY_BACKOFF: Backoff = { firstMs: 15_000, maxMs: 900_000, jitter: 0.25 };

export const redeliveryDelaySeconds = (
  receiveCount: number,
  random: () => number = Math.random,
): number => {
  return Math.round(backoffDelay(REDELIVERY_BACKOFF, receiveCount, random) / 1_000);
};

/**
 * Handles one SQS record of `send-messages`: runs the send use case and maps its result to the
 * batch processor's contract — resolve when done or invalid, throw {@link SendRetryLaterError}
 * (after pushing the message's visibility out) when some recipients must be tried again.
 */
export const createSendRecordHandler =
  (handler: SendHandlerDeps) =>
  async (record: SQSRecord, remainingMs: number): Promise<SendResult> => {
    const { logger, metrics } = handler;
    const delivery: QueueDelivery = {
      body: record.body,
      messageId: record.messageId,
      sentAt: new Date(Number(record.attributes.SentTimestamp ?? Date.now())),
      receiveCount: Number(record.attributes.ApproximateReceiveCount ?? '1'),
      maxReceiveCount: handler.maxReceiveCount,
    };
    const result = await sendQueuedMessage(delivery, handler.deps(remainingMs));
    switch (result.kind) {
      case 'invalid':
        metrics.addMetric('SendsRejectedInvalid', MetricUnit.Count, 1);
        logger.warn('queue message failed validation; send rejected event stored', {
          sqsMessageId: record.messageId,
          problems: result.problems,
        });
        return result;
      case 'done':
        metrics.addMetric('RecipientsAccepted', MetricUnit.Count, result.accepted);
        metrics.addMetric('RecipientsRejected', MetricUnit.Count, result.rejected);
        metrics.addMetric('RecipientsScheduled', MetricUnit.Count, result.scheduled);
        // The last attempt's answer was lost: reconcile-status asks the gateway what became of them.
        metrics.addMetric('RecipientsOutcomeUnknown', MetricUnit.Count, result.unknown);
        if (result.unknown > 0)
          logger.warn(
            'the last delivery got no answer for some recipients; reconcile-status will ask',
            {
              sqsMessageId: record.messageId,
              ...result,
            },
          );
        else logger.info('queue message sent', { sqsMessageId: record.messageId, ...result });
        return result;
      case 'retry': {
        const seconds = redeliveryDelaySeconds(delivery.receiveCount);
        metrics.addMetric('SendRetries', MetricUnit.Count, 1);
        logger.warn('queue message will be delivered again', {
          sqsMessageId: record.messageId,
          reason: result.reason,
          pending: result.pending,
          receiveCount: delivery.receiveCount,
          retryInSeconds: seconds,
        });
        await handler.delayRedelivery(record, seconds);
        throw new SendRetryLaterError(`${result.reason} (${result.pending} recipients pending)`);
      }
    }
  };
