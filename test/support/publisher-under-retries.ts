/** The event publisher as the unit tests run it: instant retries, and under Lambda's stream rules. */
import type { DynamoDBRecord } from 'aws-lambda';
import type { EventBus } from '../../functions/publishing/ports.ts';
import {
  PUT_EVENTS_MAX_BYTES,
  type PublishDeps,
  type PublishOutcome,
  publishRecords,
} from '../../functions/publishing/publish.ts';
import { runStreamWithRetries, type StreamRetryOptions } from './stream-retry-model.ts';

/** The publisher's ports for `bus`: three attempts, no backoff or sleep, full-size batches. */
export const publishDeps = (bus: EventBus, overrides: Partial<PublishDeps> = {}): PublishDeps => ({
  bus,
  source: 'msgbridge',
  // A table holding no report but the one published: each report says its own status.
  messageStatus: async () => undefined,
  maxAttempts: 3,
  backoffMs: () => 0,
  sleep: async () => {},
  maxBatchBytes: PUT_EVENTS_MAX_BYTES,
  ...overrides,
});

/**
 * `records` through the publisher as a stream handler under Lambda's retry rules
 * (stream-retry-model.ts), keeping every invocation's outcome.
 */
export const publishUnderRetries = async (
  records: readonly DynamoDBRecord[],
  deps: PublishDeps,
  options: StreamRetryOptions,
): Promise<{ onFailure: DynamoDBRecord[]; outcomes: PublishOutcome[] }> => {
  const outcomes: PublishOutcome[] = [];
  const { onFailure } = await runStreamWithRetries(
    records,
    async (event) => {
      const outcome = await publishRecords(event.Records, deps);
      outcomes.push(outcome);
      return outcome.response;
    },
    options,
  );
  return { onFailure, outcomes };
};
