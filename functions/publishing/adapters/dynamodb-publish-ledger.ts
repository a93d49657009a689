import { setTimeout as sleep } from 'node:timers/promises';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { documentClient, pagesOf } from '../../commons/clients/dynamodb.ts';
import { type Backoff, backoffDelay } from '../../commons/helpers/backoff.ts';
import { PUBLISH_KEY_PREFIX } from '../../commons/tables.ts';
import {
  type ItemKey,
  type MarkerState,
  markerId,
  type PublishLedger,
  type PublishMarker,
} from '../ports.ts';

const MARKER_PREFIX = `${PUBLISH_KEY_PREFIX}ITEM#`;
const REDELIVERY_KEY = `${PUBLISH_KEY_PREFIX}REDELIVERY`;

/** DynamoDB keeps stream records 24 hours; an hour more covers a redelivery at the last moment. */
const REDELIVERY_WINDOW_MS = 25 * 3_600_000;
/** Unpublished markers wait as long as the on-failure queue keeps its messages. */
const UNPUBLISHED_RETENTION_MS = 14 * 86_400_000;
const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;
const UNPROCESSED_RETRIES = 3;
/** The waits before reading or writing the unprocessed rest again: 100, 200, 400 ms. */
const UNPROCESSED_BACKOFF: Backoff = { firstMs: 100, maxMs: 1_000 };

/** A marker as stored, for `msgbridge events republish`. */
export interface StoredMarker extends PublishMarker {
  readonly markedAt: string;
}

/**
 * The publisher's ledger in the state table: `PUBLISH#ITEM#<[pk,sk]>` markers and one
 * `PUBLISH#REDELIVERY` flag, each expiring by TTL. Reads are strongly consistent: a redelivery can
 * follow the write that announced it by milliseconds.
 */
export class DynamoDbPublishLedger implements PublishLedger {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
    private readonly now: () => number = Date.now,
  ) {}

  async redeliveryExpected(): Promise<boolean> {
    const answer = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: REDELIVERY_KEY },
        ConsistentRead: true,
      }),
    );
    const until = answer.Item?.until;
    return typeof until === 'number' && until > this.now();
  }

  async expectRedelivery(): Promise<void> {
    const until = this.now() + REDELIVERY_WINDOW_MS;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: REDELIVERY_KEY, until, expiresAt: Math.ceil(until / 1000) },
      }),
    );
  }

  async find(keys: readonly ItemKey[]): Promise<ReadonlyMap<string, MarkerState>> {
    const found = new Map<string, MarkerState>();
    const ids = [...new Set(keys.map(markerId))];
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
      let pending: Record<string, unknown>[] = ids
        .slice(start, start + BATCH_GET_LIMIT)
        .map((id) => ({ pk: MARKER_PREFIX + id }));
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt > UNPROCESSED_RETRIES) {
          throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
        }
        if (attempt > 0) await sleep(backoffDelay(UNPROCESSED_BACKOFF, attempt));
        const answer = await this.client.send(
          new BatchGetCommand({
            RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        for (const item of answer.Responses?.[this.tableName] ?? []) {
          if (item.state === 'published' || item.state === 'unpublished') {
            found.set(String(item.pk).slice(MARKER_PREFIX.length), item.state);
          }
        }
        pending = answer.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return found;
  }

  async write(markers: readonly PublishMarker[]): Promise<ReadonlySet<string>> {
    const now = this.now();
    const written = new Set<string>();
    for (let start = 0; start < markers.length; start += BATCH_WRITE_LIMIT) {
      let pending = markers.slice(start, start + BATCH_WRITE_LIMIT).map((marker) => ({
        PutRequest: { Item: this.item(marker, now) },
      }));
      for (let attempt = 0; pending.length > 0 && attempt <= UNPROCESSED_RETRIES; attempt += 1) {
        if (attempt > 0) await sleep(backoffDelay(UNPROCESSED_BACKOFF, attempt));
        const answer = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }),
        );
        const unprocessed = (answer.UnprocessedItems?.[this.tableName] ?? []).flatMap((request) =>
          request.PutRequest?.Item ? [{ PutRequest: { Item: request.PutRequest.Item } }] : [],
        );
        const left = new Set(unprocessed.map((request) => String(request.PutRequest.Item.pk)));
        for (const request of pending) {
          const pk = String(request.PutRequest.Item.pk);
          if (!left.has(pk)) written.add(pk.slice(MARKER_PREFIX.length));
        }
        pending = unprocessed;
      }
    }
    return written;
  }

  /** Every `unpublished` marker (a scan: for the operator's `msgbridge events republish`). */
  async listUnpublished(): Promise<StoredMarker[]> {
    const markers: StoredMarker[] = [];
    const pages = pagesOf((start) =>
      this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'begins_with(pk, :prefix) AND #state = :unpublished',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':prefix': MARKER_PREFIX, ':unpublished': 'unpublished' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      ),
    );
    for await (const answer of pages) {
      for (const item of answer.Items ?? []) {
        if (typeof item.itemPk !== 'string' || typeof item.itemSk !== 'string') continue;
        markers.push({
          key: { pk: item.itemPk, sk: item.itemSk },
          state: 'unpublished',
          markedAt: String(item.markedAt ?? ''),
          ...(typeof item.eventId === 'string' ? { eventId: item.eventId } : {}),
          ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
        });
      }
    }
    return markers;
  }

  private item(marker: PublishMarker, now: number): Record<string, unknown> {
    const keep = marker.state === 'unpublished' ? UNPUBLISHED_RETENTION_MS : REDELIVERY_WINDOW_MS;
    return {
      pk: MARKER_PREFIX + markerId(marker.key),
      state: marker.state,
      itemPk: marker.key.pk,
      itemSk: marker.key.sk,
      markedAt: new Date(now).toISOString(),
      expiresAt: Math.ceil((now + keep) / 1000),
      ...(marker.eventId === undefined ? {} : { eventId: marker.eventId }),
      ...(marker.reason === undefined ? {} : { reason: marker.reason }),
    };
  }
}
