import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, documentClient, scanItems } from '../../commons/clients/dynamodb.ts';
import { KEY_PREFIX, stateKeys } from '../../commons/table-keys.ts';
import { DynamoDbEventStore } from '../../event-table/dynamodb-event-store.ts';
import {
  type AttachmentEventStore,
  FILE_RETENTION_MS,
  type PendingAttachment,
  PendingAttachmentSchema,
  type PendingAttachmentStore,
} from '../fetch-use-case.ts';

/** The event table for attachment events: conditional puts, plus a strongly consistent look-up. */
export class DynamoDbAttachmentEvents extends DynamoDbEventStore implements AttachmentEventStore {
  constructor(
    private readonly table: string,
    private readonly documents: DynamoDBDocumentClient = documentClient(),
  ) {
    super(table, documents);
  }

  async exists(pk: string, sk: string): Promise<boolean> {
    const answer = await this.documents.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk, sk },
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    return answer.Item !== undefined;
  }
}

const PREFIX = KEY_PREFIX.attachment;
// TTL only cleans up after a sweep that never ran: a week past the gateway's own 7-day window,
// so it is always the sweep, not TTL, that decides an attachment is lost.
const MARKER_TTL_AFTER_WINDOW_S = 7 * 86_400;

/** Told about a marker that does not parse; it is left alone (TTL removes it). */
export type UnreadableMarkerHandler = (pk: string, issues: string) => void;

/**
 * Pending attachments as `pk = ATTACHMENT#<moKey>#<index>` items of the state table: one for
 * every attachment without a terminal event, written before its first download.
 *
 * `due` scans: the state table is small (a token, a rate bucket, leases and the few attachments
 * that failed), so a filtered Scan every 15 minutes costs less than keeping an index for it.
 */
export class DynamoDbPendingAttachments implements PendingAttachmentStore {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
    private readonly onUnreadable: UnreadableMarkerHandler = () => {},
  ) {}

  async get(moKey: string, index: number): Promise<PendingAttachment | undefined> {
    const answer = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: markerKey(moKey, index),
        ConsistentRead: true,
      }),
    );
    return answer.Item === undefined ? undefined : this.read(answer.Item);
  }

  async register(marker: PendingAttachment): Promise<void> {
    // The marker is there already (a stream retry): it keeps its attempts and its schedule.
    await conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: markerItem(marker),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async save(marker: PendingAttachment): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: markerItem(marker) }));
  }

  async remove(moKey: string, index: number): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: markerKey(moKey, index) }),
    );
  }

  async due(now: Date): Promise<PendingAttachment[]> {
    const markers: PendingAttachment[] = [];
    const items = scanItems(this.client, {
      TableName: this.tableName,
      FilterExpression: 'begins_with(pk, :prefix) AND nextAttemptAt <= :now',
      ExpressionAttributeValues: { ':prefix': PREFIX, ':now': now.toISOString() },
      ConsistentRead: true,
    });
    for await (const item of items) {
      const marker = this.read(item);
      if (marker) markers.push(marker);
    }
    // ISO-8601 UTC strings of one format sort as the instants they name.
    return markers.sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt));
  }

  private read(item: Record<string, unknown>): PendingAttachment | undefined {
    const parsed = PendingAttachmentSchema.safeParse(item);
    if (parsed.success) return parsed.data;
    this.onUnreadable(String(item.pk), parsed.error.message);
    return undefined;
  }
}

const markerKey = (moKey: string, index: number) => ({
  pk: stateKeys.pendingAttachment(moKey, index),
});

const markerItem = (marker: PendingAttachment) => {
  const windowEnds = Date.parse(marker.receivedAt) + FILE_RETENTION_MS;
  return {
    ...marker,
    ...markerKey(marker.moKey, marker.index),
    expiresAt: Math.ceil(windowEnds / 1000) + MARKER_TTL_AFTER_WINDOW_S,
  };
};
