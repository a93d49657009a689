/**
 * A local stand-in for Lambda's DynamoDB-stream event source mapping: reads every shard of a
 * stream (parents before children), turns records into the exact `DynamoDBRecord` shape Lambda
 * passes, drops what the filter rejects, and invokes the handler in ordered batches with Lambda's
 * failure semantics — partial batch responses, retries, bisection, an on-failure destination and
 * a parallelization factor (up to 10 batches of a shard at once, in order per partition key).
 * The local run feeds `publish-events` with it; tests use it to drive the outbox end to end.
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
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { toLambdaRecord } from '../aws-semantics/lambda-stream-record.ts';
import { stableHash } from '../simulator/stable-hash.ts';
import { type InvocationOutcome, interpretResponse } from './partial-batch-response.ts';

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

export interface StreamPollerStats {
  /** Handler invocations, retries included. */
  readonly invocations: number;
  /** Records read from the stream, before filtering. */
  readonly recordsRead: number;
  /** Records the filter dropped. */
  readonly recordsFiltered: number;
  /** Records the handler settled successfully (counted once each). */
  readonly recordsSucceeded: number;
  /** Records handed to `onFailure`. */
  readonly recordsFailed: number;
  /** Invocations that repeated records after a failure. */
  readonly retries: number;
  /** Times a failing batch was split in two. */
  readonly bisections: number;
  /** The most invocations that were in flight at once. */
  readonly maxConcurrentInvocations: number;
  /** The last error of the streams API; the poller retries those with a back-off. */
  readonly lastStreamError?: Error;
  /** Set when the poller gave up (`onFailure` threw, or a record could not be converted). */
  readonly fatalError?: Error;
}

export interface StreamPoller {
  /** Stops polling, lets an invocation in flight finish, and leaves no timer behind. */
  stop(): Promise<void>;
  /**
   * Stops reading after the pass under way, as disabling an event source mapping does; records
   * wait in the stream until `resume()`. `drained()` waits for a pass after the resumption.
   */
  pause(): Promise<void>;
  /** Reads again from where the shards were left. */
  resume(): void;
  /**
   * Resolves once every record written to the stream before the call has been handed to the
   * handler and settled (succeeded, filtered out, or given to `onFailure`). Rejects if the poller
   * stops or fails first.
   */
  drained(): Promise<void>;
  /** A snapshot of the counters. */
  readonly stats: StreamPollerStats;
}

/** The poller stopped before `drained()` could resolve. */
export class StreamPollerStoppedError extends Error {
  override readonly name = 'StreamPollerStoppedError';
}

/** A call to the DynamoDB Streams API failed; transient from the poller's point of view. */
class StreamReadError extends Error {
  override readonly name = 'StreamReadError';
}

const LAMBDA_MAX_BATCH_SIZE = 10_000;
const MAX_PARALLELIZATION_FACTOR = 10;
// GetRecords returns at most 1,000 records per call; asking for all of them keeps reads few.
const GET_RECORDS_LIMIT = 1_000;
const MAX_BACKOFF_MS = 5_000;
const MIN_BACKOFF_MS = 100;

interface ShardState {
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

interface Segment {
  readonly records: DynamoDBRecord[];
  /** Failed invocations that included these records; splitting a batch does not count. */
  readonly failedAttempts: number;
}

/** Starts polling; the first poll happens at once. */
export const startStreamPoller = (options: StreamPollerOptions): StreamPoller => {
  const settings = validate(options);
  const { streamsClient: client, streamArn, handler, onFailure, filter } = options;
  const abort = new AbortController();
  const shards = new Map<string, ShardState>();
  const counters = {
    invocations: 0,
    recordsRead: 0,
    recordsFiltered: 0,
    recordsSucceeded: 0,
    recordsFailed: 0,
    retries: 0,
    bisections: 0,
    maxConcurrentInvocations: 0,
  };
  let inFlight = 0;
  let lastStreamError: Error | undefined;
  let fatalError: Error | undefined;
  let stopped = false;
  let paused = false;
  let passUnderWay: Promise<void> = Promise.resolve();
  let shardsDescribed = false;
  let cyclesStarted = 0;
  let cyclesCompleted = 0;
  const drainWaiters: { cycle: number; resolve: () => void; reject: (error: Error) => void }[] = [];

  // The sleep between polls is a single timer that stop() and drained() can cut short.
  let pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      pause = { timer: setTimeout(resolve, ms), resolve };
    });
  const wake = (): void => {
    if (!pause) return;
    clearTimeout(pause.timer);
    pause.resolve();
    pause = undefined;
  };

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
          { abortSignal: abort.signal },
        ),
      );
      for (const shard of description?.Shards ?? []) {
        if (shard.ShardId === undefined || shards.has(shard.ShardId)) continue;
        shards.set(shard.ShardId, {
          shardId: shard.ShardId,
          parentShardId: shard.ParentShardId,
          // Like Lambda, the starting position applies to the shards that exist at start;
          // shards that appear later hold only new records and are read from their beginning.
          initialPosition: shardsDescribed ? 'TRIM_HORIZON' : settings.startingPosition,
          iterator: undefined,
          lastSequenceNumber: options.checkpoints?.get(shard.ShardId),
          checkpointed: options.checkpoints?.get(shard.ShardId),
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
        { abortSignal: abort.signal },
      ),
    );
    if (iterator === undefined) {
      throw new StreamReadError(`GetShardIterator returned no iterator for ${shard.shardId}`);
    }
    return iterator;
  };

  const resumePosition = (shard: ShardState): ShardIteratorType =>
    shard.lastSequenceNumber === undefined ? shard.initialPosition : 'AFTER_SEQUENCE_NUMBER';

  /** One GetRecords call; an empty result means the shard is caught up (or closed). */
  const readRecords = async (shard: ShardState): Promise<_Record[]> => {
    for (let attempt = 1; ; attempt += 1) {
      shard.iterator ??= await acquireIterator(shard, resumePosition(shard));
      const iterator = shard.iterator;
      try {
        const output = await api(() =>
          client.send(
            new GetRecordsCommand({ ShardIterator: iterator, Limit: GET_RECORDS_LIMIT }),
            { abortSignal: abort.signal },
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
        const cause = error instanceof StreamReadError ? error.cause : undefined;
        const expired = cause instanceof ExpiredIteratorException;
        const trimmed = cause instanceof TrimmedDataAccessException;
        if ((!expired && !trimmed) || attempt > 1) throw error;
        // An iterator lapses after 15 minutes unused (a suspended laptop): resume after the last
        // record read. Behind the trim horizon those records are gone: restart at the horizon.
        shard.iterator = undefined;
        if (trimmed) {
          lastStreamError = toError(error);
          shard.lastSequenceNumber = undefined;
          shard.iterator = await acquireIterator(shard, 'TRIM_HORIZON');
        }
      }
    }
  };

  const invoke = async (records: DynamoDBRecord[]): Promise<InvocationOutcome> => {
    counters.invocations += 1;
    inFlight += 1;
    counters.maxConcurrentInvocations = Math.max(counters.maxConcurrentInvocations, inFlight);
    let response: unknown;
    try {
      // A fresh copy per invocation, as Lambda sends fresh JSON: a handler that mutates its
      // event cannot change what a retry sees.
      response = await handler({ Records: structuredClone(records) });
    } catch (error) {
      return { ok: false, committed: 0, error: toError(error) };
    } finally {
      inFlight -= 1;
    }
    return interpretResponse(response, records);
  };

  /** Records past the mapping's maximum age, which Lambda no longer invokes the function with. */
  const expired = (records: readonly DynamoDBRecord[]): DynamoDBRecord[] => {
    if (settings.maxRecordAgeSeconds < 0) return [];
    const oldest = Date.now() / 1000 - settings.maxRecordAgeSeconds;
    return records.filter(
      (record) => (record.dynamodb?.ApproximateCreationDateTime ?? Infinity) < oldest,
    );
  };

  /** Delivers one batch with Lambda's retry, partial-failure and bisection rules. */
  const deliver = async (shardId: string, batch: DynamoDBRecord[]): Promise<boolean> => {
    const work: Segment[] = [{ records: batch, failedAttempts: 0 }];
    for (let segment = work.shift(); segment; segment = work.shift()) {
      // Stopping abandons retries; nothing was checkpointed, so no record is lost for good.
      if (stopped) return false;
      const tooOld = expired(segment.records);
      if (tooOld.length > 0) {
        // Lambda gives up on the batch the old records are in, without invoking the function.
        counters.recordsFailed += segment.records.length;
        await onFailure(
          structuredClone(segment.records),
          new Error('records past their maximum age'),
          { condition: 'RecordAgeExceeded', attempts: segment.failedAttempts, shardId },
        );
        continue;
      }
      if (segment.failedAttempts > 0) counters.retries += 1;
      const outcome = await invoke(segment.records);
      if (outcome.ok) {
        counters.recordsSucceeded += segment.records.length;
        continue;
      }
      // Lambda checkpoints before the lowest failed record and retries from there.
      counters.recordsSucceeded += outcome.committed;
      const failed = segment.records.slice(outcome.committed);
      const failedAttempts = segment.failedAttempts + 1;
      if (outcome.committed > 0) {
        work.unshift({ records: failed, failedAttempts });
      } else if (settings.bisectOnError && failed.length > 1) {
        // Lambda does not document whether a split uses up a retry; here it does not, so a
        // poison record isolated by bisection still gets its full number of retries.
        counters.bisections += 1;
        const middle = Math.ceil(failed.length / 2);
        work.unshift(
          { records: failed.slice(0, middle), failedAttempts: segment.failedAttempts },
          { records: failed.slice(middle), failedAttempts: segment.failedAttempts },
        );
      } else if (settings.maxRetries < 0 || failedAttempts <= settings.maxRetries) {
        work.unshift({ records: failed, failedAttempts });
      } else {
        counters.recordsFailed += failed.length;
        await onFailure(structuredClone(failed), outcome.error, {
          condition: 'RetryAttemptsExhausted',
          attempts: failedAttempts,
          shardId,
        });
      }
    }
    return true;
  };

  /**
   * Delivers `records` (a run of one shard, in order) in batches: with a parallelization factor,
   * spread over lanes by partition key, the lanes at once and each lane's batches in turn. True
   * when every record is settled.
   */
  const deliverRun = async (shardId: string, records: DynamoDBRecord[]): Promise<boolean> => {
    const lanes = new Map<number, DynamoDBRecord[]>();
    for (const record of records) {
      const lane =
        settings.parallelizationFactor === 1
          ? 0
          : laneOf(record, settings.partitionKeyAttribute, settings.parallelizationFactor);
      const laneRecords = lanes.get(lane);
      if (laneRecords) laneRecords.push(record);
      else lanes.set(lane, [record]);
    }
    const settled = await Promise.all(
      [...lanes.values()].map(async (laneRecords) => {
        for (let start = 0; start < laneRecords.length; start += settings.batchSize) {
          if (!(await deliver(shardId, laneRecords.slice(start, start + settings.batchSize))))
            return false;
        }
        return true;
      }),
    );
    return settled.every(Boolean);
  };

  /** Hands a shard's settled position to `onCheckpoint`, once per new position. */
  const checkpoint = async (shard: ShardState, sequenceNumber: string | undefined) => {
    if (!options.onCheckpoint || sequenceNumber === undefined) return;
    if (sequenceNumber === shard.checkpointed) return;
    try {
      await options.onCheckpoint(shard.shardId, sequenceNumber);
      shard.checkpointed = sequenceNumber;
    } catch {
      // See onCheckpoint: the next settled batch tries again.
    }
  };

  /** Reads a shard until it is caught up (an empty read) or closed, delivering as it goes. */
  const pollShard = async (shard: ShardState): Promise<void> => {
    while (!stopped) {
      const raw = await readRecords(shard);
      counters.recordsRead += raw.length;
      for (const record of raw) {
        const converted = toLambdaRecord(record, streamArn);
        if (filter && !filter(converted)) counters.recordsFiltered += 1;
        else shard.pending.push(converted);
      }
      // Full batches go at once (as many as there are lanes); a remainder waits for the next
      // read, as Lambda reads ahead.
      const run = settings.batchSize * settings.parallelizationFactor;
      while (shard.pending.length >= settings.batchSize && !stopped) {
        const taken = shard.pending.slice(0, run);
        if (await deliverRun(shard.shardId, taken))
          await checkpoint(shard, taken.at(-1)?.dynamodb?.SequenceNumber);
        shard.pending = shard.pending.slice(taken.length);
      }
      if (raw.length === 0 || shard.finished) {
        if (shard.pending.length > 0 && !stopped) {
          const settled = await deliverRun(shard.shardId, shard.pending);
          shard.pending = [];
          if (settled) await checkpoint(shard, shard.lastSequenceNumber);
        } else if (shard.pending.length === 0 && !stopped) {
          // Everything read is settled, filtered records after the last delivery included.
          await checkpoint(shard, shard.lastSequenceNumber);
        }
        return;
      }
    }
  };

  /** One pass over the stream; every eligible shard ends it caught up. */
  const cycle = async (): Promise<void> => {
    await describeShards();
    const visited = new Set<string>();
    // Repeat until no shard becomes eligible: a parent finishing in this pass frees its children.
    for (let progressed = true; progressed && !stopped; ) {
      progressed = false;
      for (const shard of shards.values()) {
        if (stopped) return;
        if (shard.finished || visited.has(shard.shardId)) continue;
        const parent =
          shard.parentShardId === undefined ? undefined : shards.get(shard.parentShardId);
        if (parent !== undefined && !parent.finished) continue;
        visited.add(shard.shardId);
        progressed = true;
        await pollShard(shard);
      }
    }
  };

  const settleDrainWaiters = (): void => {
    for (let index = drainWaiters.length - 1; index >= 0; index -= 1) {
      const waiter = drainWaiters[index];
      if (waiter === undefined) continue;
      if (fatalError) waiter.reject(fatalError);
      else if (stopped) waiter.reject(new StreamPollerStoppedError('The stream poller stopped'));
      else if (cyclesCompleted >= waiter.cycle) waiter.resolve();
      else continue;
      drainWaiters.splice(index, 1);
    }
  };

  const run = async (): Promise<void> => {
    let consecutiveErrors = 0;
    while (!stopped) {
      if (paused) {
        await sleep(settings.pollIntervalMs);
        continue;
      }
      cyclesStarted += 1;
      let delay = settings.pollIntervalMs;
      try {
        const pass = cycle();
        passUnderWay = pass.catch(() => undefined);
        await pass;
        if (stopped) break;
        cyclesCompleted = cyclesStarted;
        consecutiveErrors = 0;
      } catch (error) {
        if (stopped) break;
        if (!(error instanceof StreamReadError)) {
          fatalError = toError(error);
          break;
        }
        lastStreamError = error;
        consecutiveErrors += 1;
        delay = Math.min(
          Math.max(settings.pollIntervalMs, MIN_BACKOFF_MS) * 2 ** (consecutiveErrors - 1),
          MAX_BACKOFF_MS,
        );
      }
      settleDrainWaiters();
      // Someone waits in drained() for a pass that has not run yet: run it now, unless the
      // stream API is failing and needs the back-off.
      const drainPending = drainWaiters.length > 0 && consecutiveErrors === 0;
      if (!stopped && !drainPending) await sleep(delay);
    }
    settleDrainWaiters();
  };

  const running = run();
  let stopping: Promise<void> | undefined;

  return {
    stop: () => {
      stopping ??= (async () => {
        stopped = true;
        abort.abort();
        wake();
        await running;
        settleDrainWaiters();
      })();
      return stopping;
    },
    pause: async () => {
      paused = true;
      await passUnderWay;
    },
    resume: () => {
      paused = false;
      wake();
    },
    drained: () =>
      new Promise<void>((resolve, reject) => {
        // Only a pass that starts after this call is sure to see every record written before it.
        drainWaiters.push({ cycle: cyclesStarted + 1, resolve, reject });
        settleDrainWaiters();
        wake();
      }),
    get stats(): StreamPollerStats {
      return { ...counters, lastStreamError, fatalError };
    },
  };
};

interface Settings {
  readonly batchSize: number;
  readonly parallelizationFactor: number;
  readonly partitionKeyAttribute: string;
  readonly maxRetries: number;
  readonly maxRecordAgeSeconds: number;
  readonly bisectOnError: boolean;
  readonly pollIntervalMs: number;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
}

const validate = (options: StreamPollerOptions): Settings => {
  const settings: Settings = {
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

/** The lane of a record: a stable hash of its partition key's value, modulo the lanes. */
const laneOf = (record: DynamoDBRecord, attribute: string, lanes: number): number =>
  stableHash(JSON.stringify(record.dynamodb?.Keys?.[attribute] ?? null)) % lanes;

const toError = (value: unknown): Error =>
  value instanceof Error ? value : new Error(`Non-error thrown: ${messageOf(value)}`);

const messageOf = (value: unknown): string =>
  value instanceof Error
    ? value.message
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);
