import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type MessageStatusName, reportedStatus, statusRank } from '../catalogue/message-status.ts';
import {
  documentClient,
  isConditionalCheckFailure,
  isValidationFailure,
} from '../commons/clients/dynamodb.ts';
import { parseResultKey } from '../commons/table-keys.ts';
import type { EventRecord } from './event-record.ts';
import { type EventStore, ItemRejectedError } from './ports.ts';
import { reportSortKeysOf } from './report-items.ts';
import { storedItem } from './stored-detail.ts';

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
    try {
      // An item over 1 KB keeps its detail deflated: one write unit, not two (stored-detail.ts).
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: storedItem(record),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'stored';
    } catch (error) {
      if (isConditionalCheckFailure(error)) return 'duplicate';
      // DynamoDB's answer to an item it will never take (over 400 KB, a key over its limit, a
      // string it cannot hold): retrying cannot help, so the receiver quarantines instead.
      if (isValidationFailure(error))
        throw new ItemRejectedError((error as Error).message, { cause: error });
      throw error;
    }
  }

  /**
   * The status of a message, derived from every report stored for it (the highest rank of
   * message-status.ts), so it only ever moves forward. A strongly consistent read: it sees every
   * report stored before it was asked, which is what `publish-events` relies on to put a message's
   * status in each report's event (functions/publishing/message-status-at-publication.ts). The
   * result codes are read from the sort keys.
   */
  async messageStatus(msgKey: string): Promise<MessageStatus | undefined> {
    const codes: string[] = [];
    for await (const sortKeys of reportSortKeysOf(this.client, this.tableName, msgKey, {
      consistent: true,
    }))
      for (const sk of sortKeys) {
        const code = parseResultKey(sk)?.resultCode;
        if (code !== undefined) codes.push(code);
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
