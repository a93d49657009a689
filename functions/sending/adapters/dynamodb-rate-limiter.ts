import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, documentClient } from '../../commons/clients/dynamodb.ts';
import { stateKeys } from '../../commons/table-keys.ts';
import {
  type RateLimiter,
  type RateWindowStore,
  WindowedRateLimiter,
  type WindowedRateLimiterOptions,
} from '../rate-limiter.ts';

/** A window item outlives its second by this much, then TTL removes it (nobody reads it again). */
const WINDOW_TTL_SECONDS = 300;

/**
 * The state-table key of one window's counter: `RATE#<second>` when the second has a single
 * counter, `RATE#<second>#<shard>` for shard 0 … N − 1 of a split one.
 *
 * A single counter keeps the key it had before seconds were split, on purpose: every quota up to
 * `recipientsPerShard` (the default `TPS_QUOTA` of 100 among them) is one counter, and during a
 * deployment old and new containers then count the same second in the same item, so the quota
 * holds across the rollout. Had N = 1 moved to `RATE#<second>#0`, each version would have filled
 * its own item and a second could have carried twice the quota. (A deployment that changes N — a
 * new quota across `recipientsPerShard` — has the same gap for the seconds both versions send in,
 * as any change of the quota has.)
 */
export const rateWindowKey = (window: number, shard?: number): string =>
  stateKeys.rate(window, shard);

/**
 * Counter items in the state table (`pk = RATE#<second>[#<shard>]`, `used`, `expiresAt`), each
 * reserved with a single conditional `ADD`: the write succeeds only while the item's count stays
 * within its capacity (the whole quota, or the shard's share of it), so concurrent senders in any
 * number of containers can never push a counter past its capacity, nor so a second past the quota.
 *
 * A partition key takes at most 1,000 write units per second. The limiter sizes the shards so that
 * one item takes at most `recipientsPerShard` (default 400) successful writes per second even with
 * 1-recipient requests, leaving the rest for refused writes and give-backs (arithmetic in
 * docs/performance.md).
 */
export class DynamoDbRateWindowStore implements RateWindowStore {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
  ) {}

  async tryReserve(
    window: number,
    recipients: number,
    capacity: number,
    shard?: number,
  ): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: rateWindowKey(window, shard) },
          UpdateExpression: 'ADD used :n SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(used) OR used <= :maxBefore',
          ExpressionAttributeValues: {
            ':n': recipients,
            ':maxBefore': capacity - recipients,
            ':expiresAt': window + WINDOW_TTL_SECONDS,
          },
        }),
      ),
    );
  }

  async giveBack(window: number, recipients: number, shard?: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: rateWindowKey(window, shard) },
        UpdateExpression: 'ADD used :n',
        // Never below zero: only what this caller added is taken back.
        ConditionExpression: 'used >= :given',
        ExpressionAttributeValues: { ':n': -recipients, ':given': recipients },
      }),
    );
  }
}

export type DynamoDbRateLimiterOptions = WindowedRateLimiterOptions;

/**
 * The gateway's TPS quota shared through the state table by every sending container; see
 * `functions/sending/rate-limiter.ts` for the windows, their shards, the guard and the waiting.
 * `stats` counts the conditional writes (`attempts`, refused ones included; SDK-internal retries
 * are not), the successful ones (`reserved`), the waits for a later window (`waits`, when no
 * shard could take the request), and reservations that came back inside the guard: given back
 * (`givenBack`) or, when that failed too, left counted (`abandoned`). `shards` holds each shard's
 * share of a second's quota.
 */
export class DynamoDbRateLimiter extends WindowedRateLimiter implements RateLimiter {
  constructor(
    tableName: string,
    options: DynamoDbRateLimiterOptions,
    client: DynamoDBDocumentClient = documentClient(),
  ) {
    super(new DynamoDbRateWindowStore(tableName, client), options);
  }
}
