import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, documentClient } from '../../commons/clients/dynamodb.ts';
import {
  type RateLimiter,
  type RateWindowStore,
  WindowedRateLimiter,
  type WindowedRateLimiterOptions,
} from '../rate-limiter.ts';

/** A window item outlives its second by this much, then TTL removes it (nobody reads it again). */
const WINDOW_TTL_SECONDS = 300;

/** The state-table key of one window's counter. */
export const rateWindowKey = (window: number): string => `RATE#${window}`;

/**
 * One counter item per epoch second in the state table (`pk = RATE#<second>`, `used`,
 * `expiresAt`), reserved with a single conditional `ADD`: the write succeeds only while the count
 * stays within the quota, so concurrent senders in any number of containers can never push a
 * window past it. All writes of one second go to one item; at one write per request that stays far
 * below a partition's 1,000 writes per second for any quota a gateway grants.
 */
export class DynamoDbRateWindowStore implements RateWindowStore {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
  ) {}

  async tryReserve(window: number, recipients: number, quota: number): Promise<boolean> {
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: rateWindowKey(window) },
          UpdateExpression: 'ADD used :n SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(used) OR used <= :maxBefore',
          ExpressionAttributeValues: {
            ':n': recipients,
            ':maxBefore': quota - recipients,
            ':expiresAt': window + WINDOW_TTL_SECONDS,
          },
        }),
      ),
    );
  }

  async giveBack(window: number, recipients: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: rateWindowKey(window) },
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
 * `functions/sending/rate-limiter.ts` for the windows, the guard and the waiting. `stats` counts
 * the conditional writes (`attempts`; SDK-internal retries are not included), the successful ones
 * (`reserved`), the waits for a later window (`waits`), and reservations that came back inside the
 * guard: given back (`givenBack`) or, when that failed too, left counted (`abandoned`).
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
