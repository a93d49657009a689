/**
 * A local stand-in for Lambda's DynamoDB-stream event source mapping: reads every shard of a
 * stream (parents before children), turns records into the exact `DynamoDBRecord` shape Lambda
 * passes, drops what the filter rejects, and invokes the handler in ordered batches with Lambda's
 * failure semantics — partial batch responses, retries, bisection, an on-failure destination and
 * a parallelization factor (up to 10 batches of a shard at once, in order per partition key).
 * The local run feeds `publish-events` with it; tests use it to drive the outbox end to end.
 *
 * This module runs the polls and keeps the checkpoints; its options are in
 * local/stream-poller-options.ts, the reading of the shards in local/stream-shard-reader.ts and
 * the delivery of their records in local/stream-batch-delivery.ts.
 */
import { toLambdaRecord } from '../aws-semantics/lambda-stream-record.ts';
import { batchDelivery } from './stream-batch-delivery.ts';
import { type StreamPollerOptions, streamPollerSettings } from './stream-poller-options.ts';
import { type ShardState, StreamReadError, shardReader } from './stream-shard-reader.ts';
import { toError } from './thrown.ts';

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

const MAX_BACKOFF_MS = 5_000;
const MIN_BACKOFF_MS = 100;

/** Starts polling; the first poll happens at once. */
export const startStreamPoller = (options: StreamPollerOptions): StreamPoller => {
  const settings = streamPollerSettings(options);
  const { streamArn, filter } = options;
  const abort = new AbortController();
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
  let lastStreamError: Error | undefined;
  let fatalError: Error | undefined;
  let stopped = false;
  let paused = false;
  let passUnderWay: Promise<void> = Promise.resolve();
  let cyclesStarted = 0;
  let cyclesCompleted = 0;
  const drainWaiters: { cycle: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  const reader = shardReader({
    client: options.streamsClient,
    streamArn,
    signal: abort.signal,
    startingPosition: settings.startingPosition,
    checkpoints: options.checkpoints,
    onTrimmed: (error) => {
      lastStreamError = error;
    },
  });
  const deliverRun = batchDelivery({
    settings,
    handler: options.handler,
    onFailure: options.onFailure,
    counters,
    stopped: () => stopped,
  });

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
      const raw = await reader.readRecords(shard);
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
    await reader.describeShards();
    const visited = new Set<string>();
    // Repeat until no shard becomes eligible: a parent finishing in this pass frees its children.
    for (let progressed = true; progressed && !stopped; ) {
      progressed = false;
      for (const shard of reader.shards.values()) {
        if (stopped) return;
        if (shard.finished || visited.has(shard.shardId)) continue;
        const parent =
          shard.parentShardId === undefined ? undefined : reader.shards.get(shard.parentShardId);
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
