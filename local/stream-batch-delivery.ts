/**
 * How the local stream poller (local/stream-poller.ts) hands a shard's records to the function,
 * with the failure semantics of Lambda's event source mapping: batches spread over lanes by a hash
 * of their partition key (the parallelization factor), partial batch responses, retries,
 * bisection of a failing batch, records past their maximum age, and the on-failure destination.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { stableHash } from '../simulator/stable-hash.ts';
import { type InvocationOutcome, interpretResponse } from './partial-batch-response.ts';
import type {
  StreamBatchHandler,
  StreamFailureHandler,
  StreamPollerSettings,
} from './stream-poller-options.ts';
import { toError } from './thrown.ts';

/** The counters a delivery adds to (the poller's stats). */
export interface DeliveryCounters {
  invocations: number;
  recordsSucceeded: number;
  recordsFailed: number;
  retries: number;
  bisections: number;
  maxConcurrentInvocations: number;
}

export interface BatchDeliveryOptions {
  readonly settings: StreamPollerSettings;
  readonly handler: StreamBatchHandler;
  readonly onFailure: StreamFailureHandler;
  readonly counters: DeliveryCounters;
  /** True once the poller stops: retries are abandoned. */
  readonly stopped: () => boolean;
}

/**
 * Delivers `records` (a run of one shard, in order) in batches: with a parallelization factor,
 * spread over lanes by partition key, the lanes at once and each lane's batches in turn. Resolves
 * true when every record is settled, false when the poller stopped first.
 */
export type DeliverRun = (shardId: string, records: DynamoDBRecord[]) => Promise<boolean>;

interface Segment {
  readonly records: DynamoDBRecord[];
  /** Failed invocations that included these records; splitting a batch does not count. */
  readonly failedAttempts: number;
}

/** The delivery of runs of records to `options.handler`, counting into `options.counters`. */
export const batchDelivery = (options: BatchDeliveryOptions): DeliverRun => {
  const { settings, handler, onFailure, counters, stopped } = options;
  let inFlight = 0;

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
      if (stopped()) return false;
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

  return async (shardId, records) => {
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
};

/** The lane of a record: a stable hash of its partition key's value, modulo the lanes. */
const laneOf = (record: DynamoDBRecord, attribute: string, lanes: number): number =>
  stableHash(JSON.stringify(record.dynamodb?.Keys?.[attribute] ?? null)) % lanes;
