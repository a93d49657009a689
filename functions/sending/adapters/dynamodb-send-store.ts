import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  conditionalWrite,
  documentClient,
  whenConditionFails,
} from '../../commons/clients/dynamodb.ts';
import { AWAITING_REPORT_INDEX, UNKNOWN_OUTCOME_BUCKET } from '../../commons/tables.ts';
import { DynamoDbEventStore } from '../../events/dynamodb-event-store.ts';
import type { EventRecord } from '../../events/event-record.ts';
import type { ClaimResult, SendStore, UnknownOutcome, UnpublishedOutcome } from '../ports.ts';

/**
 * Send records in the event table, under `pk = SEND#<cliKey>`: a `CLAIM` item (who is sending it,
 * until when), an `UNKNOWN` item while the last attempt's outcome is unknown, and, once decided, an
 * `OUTCOME` item that is also the event (accepted, rejected or scheduled). The claim and unknown
 * items carry no `detailType`, so the stream filter keeps them from the bus; neither does an
 * accepted `OUTCOME` item of a deployment that publishes no "Message Accepted" events.
 */
export class DynamoDbSendStore implements SendStore {
  private readonly events: DynamoDbEventStore;

  constructor(
    private readonly tableName: string,
    private readonly retentionDays: number,
    private readonly client: DynamoDBDocumentClient = documentClient(),
  ) {
    this.events = new DynamoDbEventStore(tableName, client);
  }

  async recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>> {
    const found = new Set<string>();
    let keys: Array<Record<string, unknown>> = [...new Set(cliKeys)].map((cliKey) => ({
      pk: `SEND#${cliKey}`,
      sk: 'OUTCOME',
    }));
    // BatchGetItem is a partial-failure API: read again whatever it left unprocessed.
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
      if (attempt > 8) throw new Error(`BatchGetItem left ${keys.length} keys unprocessed`);
      const answer = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: keys, ProjectionExpression: 'pk' } },
        }),
      );
      for (const item of answer.Responses?.[this.tableName] ?? [])
        found.add(String(item.pk).slice('SEND#'.length));
      keys = (answer.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Array<
        Record<string, unknown>
      >;
    }
    return found;
  }

  async claim(cliKey: string, owner: string, until: number): Promise<ClaimResult> {
    const now = Date.now();
    return whenConditionFails(async () => {
      const answer = await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: `SEND#${cliKey}`,
            sk: 'CLAIM',
            owner,
            claimedUntil: until,
            expiresAt: Math.floor(now / 1000) + this.retentionDays * 86_400,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR claimedUntil < :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': now, ':owner': owner },
          ReturnValues: 'ALL_OLD',
        }),
      );
      // A released claim has `claimedUntil` 0; an expired one that was never released belonged to
      // an attempt that died (or overran) and may have sent the recipient.
      const previous = answer.Attributes;
      return previous && previous.owner !== owner && Number(previous.claimedUntil) > 0
        ? 'taken-over'
        : 'claimed';
    }, 'busy');
  }

  async release(cliKey: string, owner: string): Promise<void> {
    // Someone else took the claim over (ours had expired): theirs stands.
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `SEND#${cliKey}`, sk: 'CLAIM' },
          UpdateExpression: 'SET claimedUntil = :zero',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':zero': 0, ':owner': owner },
        }),
      ),
    );
  }

  async recordUnknown(outcome: UnknownOutcome): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: `SEND#${outcome.cliKey}`,
          sk: 'UNKNOWN',
          ...outcome,
          // In the awaiting-report index, so reconcile-status finds it (see UNKNOWN_OUTCOME_BUCKET).
          [AWAITING_REPORT_INDEX.partitionKey]: UNKNOWN_OUTCOME_BUCKET,
          [AWAITING_REPORT_INDEX.sortKey]: outcome.attemptedAt,
          expiresAt:
            Math.floor(Date.parse(outcome.attemptedAt) / 1000) + this.retentionDays * 86_400,
        },
      }),
    );
  }

  putEvent(record: EventRecord | UnpublishedOutcome): Promise<'stored' | 'duplicate'> {
    if ('detailType' in record) return this.events.putIfAbsent(record);
    // The same condition as an event item's: one OUTCOME per cliKey, whichever shape came first.
    return whenConditionFails(async () => {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'stored' as const;
    }, 'duplicate' as const);
  }
}
