import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  documentClient,
  isConditionalCheckFailure,
  isValidationFailure,
} from '../commons/clients/dynamodb.ts';
import { eventKeys, KEY_PREFIX, parseResultKey } from '../commons/table-keys.ts';
import type { EventRecord } from './event-record.ts';
import { type EventStore, ItemRejectedError } from './store-ports.ts';
import { storedItem } from './stored-detail.ts';

/** A transaction cancelled because a condition failed, and nothing else. */
const isConditionalTransactionCancel = (error: unknown): boolean =>
  cancellationCodes(error)?.every(
    (code) => code === 'None' || code === 'ConditionalCheckFailed',
  ) === true && cancellationCodes(error)?.includes('ConditionalCheckFailed') === true;

/** A transaction cancelled because DynamoDB will never take one of its items. */
const isValidationTransactionCancel = (error: unknown): boolean =>
  cancellationCodes(error)?.includes('ValidationError') === true;

const cancellationCodes = (error: unknown): string[] | undefined =>
  (error as { name?: string }).name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map(
        (reason) => reason.Code ?? 'None',
      )
    : undefined;

/** The furthest a message has got, read from its stored reports. */
export interface MessageStatus {
  readonly msgKey: string;
  readonly state: 'delivered' | 'failed' | 'uncertain';
  readonly resultCode: string;
  readonly reports: number;
}

/** The event table: conditional puts, and the per-message status view derived from reports. */
export class DynamoDbEventStore implements EventStore {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
  ) {}

  async putIfAbsent(record: EventRecord): Promise<'stored' | 'duplicate'> {
    const { legacyKey, ...stored } = record;
    try {
      // An item over 1 KB keeps its detail deflated: one write unit, not two (stored-detail.ts).
      const put = {
        TableName: this.tableName,
        Item: storedItem(stored),
        ConditionExpression: 'attribute_not_exists(pk)',
      };
      if (legacyKey === undefined) await this.client.send(new PutCommand(put));
      // Keys with an escaped part: the same event may be stored under its earlier spelling.
      else
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: put },
              {
                ConditionCheck: {
                  TableName: this.tableName,
                  Key: { pk: legacyKey.pk, sk: legacyKey.sk },
                  ConditionExpression: 'attribute_not_exists(pk) OR eventId <> :eventId',
                  ExpressionAttributeValues: { ':eventId': legacyKey.eventId },
                },
              },
            ],
          }),
        );
      return 'stored';
    } catch (error) {
      if (isConditionalCheckFailure(error) || isConditionalTransactionCancel(error))
        return 'duplicate';
      // DynamoDB's answer to an item it will never take (over 400 KB, a key over its limit, a
      // string it cannot hold): retrying cannot help, so the receiver quarantines instead.
      if (isValidationFailure(error) || isValidationTransactionCancel(error))
        throw new ItemRejectedError((error as Error).message, { cause: error });
      throw error;
    }
  }

  /**
   * The status of a message, derived from every report stored for it, so it only ever moves
   * forward: a final result (delivered or failed) outranks "uncertain" (`32114`), and a
   * delivery outranks a failure reported for the same message.
   */
  async messageStatus(msgKey: string): Promise<MessageStatus | undefined> {
    const answer = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :result)',
        // Guards that reconcile-status writes beside a status-built report are not reports.
        FilterExpression: 'attribute_not_exists(reportGuardOf)',
        ExpressionAttributeValues: {
          ':pk': eventKeys.report(msgKey),
          ':result': KEY_PREFIX.result,
        },
      }),
    );
    const codes = (answer.Items ?? []).map(
      (item) => parseResultKey(String(item.sk))?.resultCode ?? '',
    );
    if (codes.length === 0) return undefined;
    const ranked = codes
      .map((code) => ({ code, rank: statusRank(code) }))
      .sort((a, b) => b.rank - a.rank);
    const best = ranked[0];
    if (!best) return undefined;
    const state =
      best.code === '10000' ? 'delivered' : best.code === '32114' ? 'uncertain' : 'failed';
    return { msgKey, state, resultCode: best.code, reports: codes.length };
  }
}

const statusRank = (code: string): number => (code === '10000' ? 3 : code === '32114' ? 1 : 2);
