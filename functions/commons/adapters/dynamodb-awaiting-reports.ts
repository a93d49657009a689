import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import {
  type AwaitingPage,
  type AwaitingReportIndex,
  type ReportLedger,
  statusUnavailableKeys,
} from '../../reconcile/reconcile-status.ts';
import { AWAITING_REPORT_INDEX } from '../tables.ts';
import {
  DynamoDbEventStore,
  documentClient,
  isConditionalCheckFailure,
} from './dynamodb-event-store.ts';

/** The fields of an `awaiting-report` index entry (an accepted send's `OUTCOME` item) we read. */
const AwaitingEntrySchema = z.looseObject({
  cliKey: z.string().min(1),
  msgKey: z.string().min(1).optional(),
  acceptedAt: z.iso.datetime({ offset: true }),
});

/** `LastEvaluatedKey` of an index page: the table's and the index's keys. */
const StartKeySchema = z.record(z.string(), z.string());

/**
 * The event table as `reconcile-status` reads it: the `awaiting-report` index (Query on the index),
 * stored reports (`REPORT#<msgKey>`, Query) and unavailable-status events (`STATUS#<cliKey>`,
 * GetItem); settling removes `awaitingReportBucket` from the `OUTCOME` item (UpdateItem), which
 * takes it off the sparse index.
 */
export class DynamoDbAwaitingReports implements AwaitingReportIndex, ReportLedger {
  private readonly events: DynamoDbEventStore;

  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
  ) {
    this.events = new DynamoDbEventStore(tableName, client);
  }

  async page(
    bucket: string,
    range: { readonly from: string; readonly to: string },
    limit: number,
    start?: string,
  ): Promise<AwaitingPage> {
    const answer = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: AWAITING_REPORT_INDEX.name,
        KeyConditionExpression: '#bucket = :bucket AND #at BETWEEN :from AND :to',
        ExpressionAttributeNames: {
          '#bucket': AWAITING_REPORT_INDEX.partitionKey,
          '#at': AWAITING_REPORT_INDEX.sortKey,
        },
        ExpressionAttributeValues: { ':bucket': bucket, ':from': range.from, ':to': range.to },
        ProjectionExpression: 'cliKey, msgKey, acceptedAt',
        Limit: limit,
        ExclusiveStartKey:
          start === undefined ? undefined : StartKeySchema.parse(JSON.parse(start)),
      }),
    );
    // Every accepted OUTCOME item carries these; an entry without them cannot be queried anyway.
    const recipients = (answer.Items ?? []).flatMap((item) => {
      const parsed = AwaitingEntrySchema.safeParse(item);
      return parsed.success
        ? [
            {
              cliKey: parsed.data.cliKey,
              acceptedAt: parsed.data.acceptedAt,
              ...(parsed.data.msgKey ? { msgKey: parsed.data.msgKey } : {}),
            },
          ]
        : [];
    });
    return answer.LastEvaluatedKey
      ? { recipients, next: JSON.stringify(answer.LastEvaluatedKey) }
      : { recipients };
  }

  async settle(cliKey: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `SEND#${cliKey}`, sk: 'OUTCOME' },
          UpdateExpression: 'REMOVE #bucket',
          // Never create an item: one that expired meanwhile has nothing left to settle.
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#bucket': AWAITING_REPORT_INDEX.partitionKey },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  async hasReport(msgKey: string): Promise<boolean> {
    return (await this.events.messageStatus(msgKey)) !== undefined;
  }

  async hasStatusUnavailable(cliKey: string): Promise<boolean> {
    const answer = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: statusUnavailableKeys(cliKey),
        ProjectionExpression: 'pk',
      }),
    );
    return answer.Item !== undefined;
  }
}
