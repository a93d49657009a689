import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { type MessageStatusName, reportedStatus, statusRank } from '../catalogue/message-status.ts';
import {
  documentClient,
  isConditionalCheckFailure,
  isValidationFailure,
  pagesOf,
} from '../commons/clients/dynamodb.ts';
import { eventKeys, KEY_PREFIX, legacyEventKeys, parseResultKey } from '../commons/table-keys.ts';
import type { EventRecord } from './event-record.ts';
import { type EventStore, ItemRejectedError } from './ports.ts';
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
  readonly state: MessageStatusName;
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
   * The status of a message, derived from every report stored for it (the highest rank of
   * message-status.ts), so it only ever moves forward. A strongly consistent read: it sees every
   * report stored before it was asked, which is what `publish-events` relies on to put a message's
   * status in each report's event (functions/publishing/message-status-at-publication.ts). Reports
   * a release before escaped keys stored under the message's earlier spelling count too; for a
   * msgKey without `#`, `%` or `:` (every key the gateway issues) that is the same partition, one
   * Query. The result codes are read from the sort keys: only keys are returned.
   */
  async messageStatus(msgKey: string): Promise<MessageStatus | undefined> {
    const partitions = new Set([
      eventKeys.report(msgKey),
      legacyEventKeys.report(msgKey, '', null).pk,
    ]);
    const codes: string[] = [];
    for (const pk of partitions) {
      const pages = pagesOf((start) =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :result)',
            // Guards that reconcile-status writes beside a status-built report are not reports:
            // they carry no event.
            FilterExpression: 'attribute_exists(detailType)',
            ExpressionAttributeValues: { ':pk': pk, ':result': KEY_PREFIX.result },
            ProjectionExpression: 'pk, sk',
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        ),
      );
      for await (const answer of pages) {
        for (const item of answer.Items ?? []) {
          const code = parseResultKey(String(item.sk))?.resultCode;
          if (code !== undefined) codes.push(code);
        }
      }
    }
    const best = codes.reduce<string | undefined>(
      (top, code) =>
        top === undefined || statusRank(reportedStatus(code)) > statusRank(reportedStatus(top))
          ? code
          : top,
      undefined,
    );
    if (best === undefined) return undefined;
    return { msgKey, state: reportedStatus(best), resultCode: best, reports: codes.length };
  }
}
