/**
 * What the local stream poller (local/stream-poller.ts) is started with: the function it invokes,
 * the on-failure destination, and the event source mapping's settings as Lambda names them, each
 * checked against Lambda's bounds and given Lambda's default.
 */

import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/** The function the poller invokes; the same contract as a DynamoDB-stream Lambda handler. */
export type StreamBatchHandler = (
  event: DynamoDBStreamEvent,
) => Promise<DynamoDBBatchResponse | undefined> | Promise<void> | DynamoDBBatchResponse | void;

/** Why records were given up on, as Lambda's invocation record names the condition. */
export type StreamFailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** Where records go that still fail after every retry (Lambda's on-failure destination). */
export type StreamFailureHandler = (
  records: DynamoDBRecord[],
  error: Error,
  details: {
    readonly condition: StreamFailureCondition;
    readonly attempts: number;
    /** The shard the records were read from. */
    readonly shardId: string;
  },
) => Promise<void> | void;

export interface StreamPollerOptions {
  readonly streamsClient: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly handler: StreamBatchHandler;
  /** Called with every record that is given up on; if it throws, the poller stops (see stats). */
  readonly onFailure: StreamFailureHandler;
  /** Most records per invocation. @default 100 (Lambda's default; Lambda allows up to 10,000) */
  readonly batchSize?: number;
  /** Lambda's filter criteria as a predicate; rejected records are never passed to the handler. */
  readonly filter?: (record: DynamoDBRecord) => boolean;
  /** Retries of a failing record before it goes to `onFailure`; -1 retries until it expires. @default 3 */
  readonly maxRetries?: number;
  /**
   * Records older than this (by their `ApproximateCreationDateTime`) go to `onFailure` instead of
   * to the handler, and stop being retried; -1 never discards a record for its age (Lambda's
   * `MaximumRecordAgeInSeconds`). @default -1
   */
  readonly maxRecordAgeSeconds?: number;
  /** Split a failing batch in two and retry the halves separately. @default true */
  readonly bisectOnError?: boolean;
  /**
   * Batches of one shard handled at once (Lambda's `ParallelizationFactor`, 1 to 10). As Lambda
   * does, records are spread over that many lanes by a hash of their partition key: each lane's
   * batches go one after another, so records of one partition key keep their order, while the
   * lanes run side by side. A shard's checkpoint moves past records only when every lane has
   * settled them. @default 1
   */
  readonly parallelizationFactor?: number;
  /**
   * The table's partition (hash) key attribute, which places records in lanes; needed when
   * `parallelizationFactor` is above 1.
   */
  readonly partitionKeyAttribute?: string;
  /** Pause between polls when the stream has nothing new. @default 200 */
  readonly pollIntervalMs?: number;
  /** Where to start in the shards that exist when the poller starts. @default 'TRIM_HORIZON' */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /**
   * Where each shard was left last time (shard id → sequence number of its last settled record),
   * like the checkpoint Lambda's event source mapping keeps: such a shard resumes after it instead
   * of at `startingPosition`, so a restarted local run neither repeats nor skips records.
   */
  readonly checkpoints?: ReadonlyMap<string, string>;
  /**
   * Called when every record of a shard up to `sequenceNumber` is settled (succeeded, filtered out
   * or given to `onFailure`), to be kept for `checkpoints`. A failure here is swallowed: the next
   * checkpoint supersedes it, and a lost one only means records are read again after a restart.
   */
  readonly onCheckpoint?: (shardId: string, sequenceNumber: string) => Promise<void> | void;
}

/** The options' settings with their defaults in place, checked. */
export interface StreamPollerSettings {
  readonly batchSize: number;
  readonly parallelizationFactor: number;
  readonly partitionKeyAttribute: string;
  readonly maxRetries: number;
  readonly maxRecordAgeSeconds: number;
  readonly bisectOnError: boolean;
  readonly pollIntervalMs: number;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
}

const LAMBDA_MAX_BATCH_SIZE = 10_000;
const MAX_PARALLELIZATION_FACTOR = 10;

/** The settings of `options`; throws one error naming every setting out of Lambda's bounds. */
export const streamPollerSettings = (options: StreamPollerOptions): StreamPollerSettings => {
  const settings: StreamPollerSettings = {
    batchSize: options.batchSize ?? 100,
    parallelizationFactor: options.parallelizationFactor ?? 1,
    partitionKeyAttribute: options.partitionKeyAttribute ?? '',
    maxRetries: options.maxRetries ?? 3,
    maxRecordAgeSeconds: options.maxRecordAgeSeconds ?? -1,
    bisectOnError: options.bisectOnError ?? true,
    pollIntervalMs: options.pollIntervalMs ?? 200,
    startingPosition: options.startingPosition ?? 'TRIM_HORIZON',
  };
  const problems: string[] = [];
  if (
    !Number.isInteger(settings.batchSize) ||
    settings.batchSize < 1 ||
    settings.batchSize > LAMBDA_MAX_BATCH_SIZE
  ) {
    problems.push(`batchSize must be an integer from 1 to ${LAMBDA_MAX_BATCH_SIZE}`);
  }
  const factor = settings.parallelizationFactor;
  if (!Number.isInteger(factor) || factor < 1 || factor > MAX_PARALLELIZATION_FACTOR) {
    problems.push(
      `parallelizationFactor must be an integer from 1 to ${MAX_PARALLELIZATION_FACTOR}`,
    );
  } else if (factor > 1 && settings.partitionKeyAttribute === '') {
    problems.push('a parallelizationFactor above 1 needs the partitionKeyAttribute');
  }
  if (!Number.isInteger(settings.maxRetries) || settings.maxRetries < -1) {
    problems.push('maxRetries must be -1 (until the record expires) or an integer of 0 or more');
  }
  if (!Number.isInteger(settings.maxRecordAgeSeconds) || settings.maxRecordAgeSeconds < -1) {
    problems.push('maxRecordAgeSeconds must be -1 (no limit) or an integer of 0 or more');
  }
  if (!Number.isFinite(settings.pollIntervalMs) || settings.pollIntervalMs < 0) {
    problems.push('pollIntervalMs must be a finite number of 0 or more');
  }
  if (options.streamArn === '') problems.push('streamArn must not be empty');
  if (problems.length > 0) throw new Error(`startStreamPoller: ${problems.join('; ')}`);
  return settings;
};
