/**
 * Reading a DynamoDB stream's shards for the local stream poller (local/stream-poller.ts) as
 * Lambda's event source mapping reads them: every shard DescribeStream lists, from the starting
 * position (or a shard's checkpoint), and past an iterator that lapsed or records trimmed away.
 * Which shard is read when, and what becomes of its records, is the poller's.
 */
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type ShardIteratorType,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { messageOf } from './thrown.ts';

/** A call to the DynamoDB Streams API failed; transient from the poller's point of view. */
export class StreamReadError extends Error {
  override readonly name = 'StreamReadError';
}

/** Where the reading of one shard stands. */
export interface ShardState {
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  readonly initialPosition: ShardIteratorType;
  iterator: string | undefined;
  lastSequenceNumber: string | undefined;
  /** The last sequence number handed to `onCheckpoint` (or found in `checkpoints`). */
  checkpointed: string | undefined;
  /** Read and filtered but not yet delivered; kept here so a failed read loses none of them. */
  pending: DynamoDBRecord[];
  finished: boolean;
}

export interface ShardReaderOptions {
  readonly client: DynamoDBStreamsClient;
  readonly streamArn: string;
  /** Aborts the call under way when the poller stops. */
  readonly signal: AbortSignal;
  /** Where to start in the shards that exist at the first description. */
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /** Each shard's last settled sequence number, to resume after. */
  readonly checkpoints: ReadonlyMap<string, string> | undefined;
  /** Told of a read that found its records trimmed away and restarted at the horizon. */
  readonly onTrimmed: (error: StreamReadError) => void;
}

export interface ShardReader {
  /** Every shard described so far, by id, in the order DescribeStream listed them. */
  readonly shards: ReadonlyMap<string, ShardState>;
  /** Adds the shards DescribeStream lists that are not known yet. */
  describeShards(): Promise<void>;
  /** One GetRecords call; an empty result means the shard is caught up (or closed). */
  readRecords(shard: ShardState): Promise<_Record[]>;
}

// GetRecords returns at most 1,000 records per call; asking for all of them keeps reads few.
const GET_RECORDS_LIMIT = 1_000;

/** A reader of the stream's shards; every failed call rejects with a {@link StreamReadError}. */
export const shardReader = (options: ShardReaderOptions): ShardReader => {
  const { client, streamArn, signal, checkpoints } = options;
  const shards = new Map<string, ShardState>();
  let shardsDescribed = false;

  const api = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw new StreamReadError(`DynamoDB Streams call failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
  };

  const describeShards = async (): Promise<void> => {
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription: description } = await api(() =>
        client.send(
          new DescribeStreamCommand({
            StreamArn: streamArn,
            ExclusiveStartShardId: exclusiveStartShardId,
          }),
          { abortSignal: signal },
        ),
      );
      for (const shard of description?.Shards ?? []) {
        if (shard.ShardId === undefined || shards.has(shard.ShardId)) continue;
        shards.set(shard.ShardId, {
          shardId: shard.ShardId,
          parentShardId: shard.ParentShardId,
          // Like Lambda, the starting position applies to the shards that exist at start;
          // shards that appear later hold only new records and are read from their beginning.
          initialPosition: shardsDescribed ? 'TRIM_HORIZON' : options.startingPosition,
          iterator: undefined,
          lastSequenceNumber: checkpoints?.get(shard.ShardId),
          checkpointed: checkpoints?.get(shard.ShardId),
          pending: [],
          finished: false,
        });
      }
      exclusiveStartShardId = description?.LastEvaluatedShardId;
    } while (exclusiveStartShardId !== undefined);
    shardsDescribed = true;
  };

  const acquireIterator = async (
    shard: ShardState,
    position: ShardIteratorType,
  ): Promise<string> => {
    const { ShardIterator: iterator } = await api(() =>
      client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.shardId,
          ShardIteratorType: position,
          SequenceNumber:
            position === 'AFTER_SEQUENCE_NUMBER' ? shard.lastSequenceNumber : undefined,
        }),
        { abortSignal: signal },
      ),
    );
    if (iterator === undefined) {
      throw new StreamReadError(`GetShardIterator returned no iterator for ${shard.shardId}`);
    }
    return iterator;
  };

  const resumePosition = (shard: ShardState): ShardIteratorType =>
    shard.lastSequenceNumber === undefined ? shard.initialPosition : 'AFTER_SEQUENCE_NUMBER';

  const readRecords = async (shard: ShardState): Promise<_Record[]> => {
    for (let attempt = 1; ; attempt += 1) {
      shard.iterator ??= await acquireIterator(shard, resumePosition(shard));
      const iterator = shard.iterator;
      try {
        const output = await api(() =>
          client.send(
            new GetRecordsCommand({ ShardIterator: iterator, Limit: GET_RECORDS_LIMIT }),
            { abortSignal: signal },
          ),
        );
        const records = output.Records ?? [];
        shard.iterator = output.NextShardIterator;
        const last = records.at(-1)?.dynamodb?.SequenceNumber;
        if (last !== undefined) shard.lastSequenceNumber = last;
        // No next iterator: the shard is closed and fully read, so its children may start.
        if (shard.iterator === undefined) shard.finished = true;
        return records;
      } catch (error) {
        if (!(error instanceof StreamReadError) || attempt > 1) throw error;
        const expired = error.cause instanceof ExpiredIteratorException;
        const trimmed = error.cause instanceof TrimmedDataAccessException;
        if (!expired && !trimmed) throw error;
        // An iterator lapses after 15 minutes unused (a suspended laptop): resume after the last
        // record read. Behind the trim horizon those records are gone: restart at the horizon.
        shard.iterator = undefined;
        if (trimmed) {
          options.onTrimmed(error);
          shard.lastSequenceNumber = undefined;
          shard.iterator = await acquireIterator(shard, 'TRIM_HORIZON');
        }
      }
    }
  };

  return { shards, describeShards, readRecords };
};
