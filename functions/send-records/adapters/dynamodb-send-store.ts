import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  conditionalWrite,
  documentClient,
  isConditionalCheckFailure,
  whenConditionFails,
} from '../../commons/clients/dynamodb.ts';
import { type Backoff, backoffDelay } from '../../commons/helpers/backoff.ts';
import { eventKeys, parsePartitionKey, SORT_KEY } from '../../commons/table-keys.ts';
import { AWAITING_REPORT_INDEX, UNKNOWN_OUTCOME_BUCKET } from '../../commons/tables.ts';
import { DynamoDbEventStore } from '../../event-table/dynamodb-event-store.ts';
import type { EventRecord } from '../../event-table/event-record.ts';
import type {
  AcceptedRecipient,
  ClaimEnd,
  RecordClaim,
  RecordInfo,
  RejectionPointers,
  SendRecordKey,
  SendStore,
  UnknownOutcome,
  UnpublishedOutcome,
} from '../ports.ts';
import { ACCEPTED_PREFIX, givenBackUntil } from '../send-record.ts';

/** The waits before BatchGetItem's unprocessed keys are read again: 100 ms doubling to 1 s. */
const UNPROCESSED_BACKOFF: Backoff = { firstMs: 100, maxMs: 1_000 };

/**
 * Send records in the event table. Per queue message, a `MESSAGE` item under the partition of its
 * smallest cliKey (`send-record.ts`): the claim (`owner`, `claimedUntil`, 0 once given back) and
 * the accepted recipients (`accepted#<cliKey>` = `{ m: msgKey, t: epoch seconds, d: already
 * accepted }`), under 1 KB for 10 recipients. Per recipient, under
 * `pk = SEND#<cliKey>`: an `UNKNOWN` item while the last attempt's outcome is unknown, and an
 * `OUTCOME` item once an event decides it (rejected, scheduled, accepted where acceptances are
 * published) or reconcile-status resolves an unknown one. The `MESSAGE` and `UNKNOWN` items carry
 * no `detailType`, so the stream filter keeps them from the bus.
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
      pk: eventKeys.send(cliKey),
      sk: SORT_KEY.outcome,
    }));
    // BatchGetItem is a partial-failure API: read again whatever it left unprocessed.
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt > 0)
        await new Promise((resolve) =>
          setTimeout(resolve, backoffDelay(UNPROCESSED_BACKOFF, attempt)),
        );
      if (attempt > 8) throw new Error(`BatchGetItem left ${keys.length} keys unprocessed`);
      const answer = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: keys, ProjectionExpression: 'pk' } },
        }),
      );
      for (const item of answer.Responses?.[this.tableName] ?? []) {
        const parsed = parsePartitionKey(String(item.pk));
        if (parsed.kind === 'send') found.add(parsed.cliKey);
      }
      keys = (answer.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Array<
        Record<string, unknown>
      >;
    }
    return found;
  }

  async claim(
    record: SendRecordKey,
    owner: string,
    until: number,
    info?: RecordInfo,
  ): Promise<RecordClaim> {
    const now = Date.now();
    const described = info
      ? {
          ':channel': info.channel,
          ':sqs': info.sqsMessageId,
          ':recipients': info.recipients,
          ':queued': info.queuedAt,
          ':claimed': info.claimedAt,
          ':content': info.content,
        }
      : {};
    try {
      const answer = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: record,
          UpdateExpression: [
            'SET #owner = :owner, claimedUntil = :until, kind = :kind',
            // A sender's claim keeps the record for the retention from now; another's (reconcile-
            // status) leaves its expiry alone.
            ...(info
              ? [
                  'channel = :channel, sqsMessageId = if_not_exists(sqsMessageId, :sqs), recipients = :recipients, queuedAt = :queued, claimedAt = :claimed, expiresAt = :expires, content = :content',
                ]
              : ['expiresAt = if_not_exists(expiresAt, :expires)']),
          ].join(', '),
          // A sender claims only a record of its own content (or one no sender has written).
          ConditionExpression: info
            ? '(attribute_not_exists(pk) OR claimedUntil < :now OR #owner = :owner) AND (attribute_not_exists(content) OR content = :content)'
            : 'attribute_not_exists(pk) OR claimedUntil < :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':owner': owner,
            ':until': until,
            ':kind': 'send',
            ':expires': Math.floor(now / 1000) + this.retentionDays * 86_400,
            ':now': now,
            ...described,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const previous = answer.Attributes;
      if (previous === undefined) return { result: 'claimed', existed: false, accepted: new Map() };
      // A released claim has `claimedUntil` 0; an expired one that was never released belonged to
      // an attempt that died (or overran) and may have sent the recipients. A live claim of this
      // owner was written by this same request before its answer was lost (the SDK sent it
      // again): what that write replaced is unknown, so it counts as taken over too.
      const takenOver = Number(previous.claimedUntil) > 0;
      return {
        result: takenOver ? 'taken-over' : 'claimed',
        existed: true,
        accepted: acceptedOf(previous),
      };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      if (info) {
        // Refused for its content or for a live claim: the record says which.
        const current = await this.client.send(
          new GetCommand({
            TableName: this.tableName,
            Key: record,
            ConsistentRead: true,
            ProjectionExpression: 'content, sqsMessageId',
          }),
        );
        const content = current.Item?.content;
        if (typeof content === 'string' && content !== info.content)
          return {
            result: 'conflict',
            existed: true,
            accepted: new Map(),
            claimedBy: String(current.Item?.sqsMessageId ?? 'unknown'),
          };
      }
      return { result: 'busy', existed: true, accepted: new Map() };
    }
  }

  /** The acceptances a send record lists (a strongly consistent read of its `accepted` map). */
  async acceptedOn(record: SendRecordKey): Promise<ReadonlyMap<string, AcceptedRecipient>> {
    const answer = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: record, ConsistentRead: true }),
    );
    return answer.Item ? acceptedOf(answer.Item) : new Map();
  }

  async release(record: SendRecordKey, owner: string, maybeSent = false): Promise<void> {
    // Someone else took the claim over (ours had expired): theirs stands.
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: record,
          UpdateExpression: 'SET claimedUntil = :given',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':given': givenBackUntil(maybeSent), ':owner': owner },
        }),
      ),
    );
  }

  async recordAccepted(
    record: SendRecordKey,
    owner: string,
    accepted: readonly AcceptedRecipient[],
    options: ClaimEnd,
  ): Promise<void> {
    if (accepted.length === 0) {
      if (options.release) await this.release(record, owner, options.maybeSent);
      return;
    }
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = accepted.map((recipient, index) => {
      names[`#k${index}`] = `${ACCEPTED_PREFIX}${recipient.cliKey}`;
      values[`:v${index}`] = {
        t: Math.floor(Date.parse(recipient.acceptedAt) / 1000),
        ...(recipient.msgKey ? { m: recipient.msgKey } : {}),
        ...(recipient.alreadyAccepted ? { d: true } : {}),
      };
      return `#k${index} = :v${index}`;
    });
    const write = (release: boolean) =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: record,
          UpdateExpression: `SET ${[...sets, ...(release ? ['claimedUntil = :given'] : [])].join(', ')}`,
          ConditionExpression: release ? '#owner = :owner' : 'attribute_exists(pk)',
          ExpressionAttributeNames: { ...names, ...(release ? { '#owner': 'owner' } : {}) },
          ExpressionAttributeValues: {
            ...values,
            ...(release ? { ':given': givenBackUntil(options.maybeSent), ':owner': owner } : {}),
          },
        }),
      );
    // Another attempt took the claim over: the acceptances are still true, its claim stands.
    if (options.release && (await conditionalWrite(() => write(true)))) return;
    await write(false);
  }

  async recordUnknown(outcome: UnknownOutcome): Promise<void> {
    const { record, ...fields } = outcome;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: eventKeys.send(outcome.cliKey),
          sk: SORT_KEY.unknown,
          ...fields,
          recordPk: record.pk,
          // In the awaiting-report index, so reconcile-status finds it (see UNKNOWN_OUTCOME_BUCKET).
          [AWAITING_REPORT_INDEX.partitionKey]: UNKNOWN_OUTCOME_BUCKET,
          [AWAITING_REPORT_INDEX.sortKey]: outcome.attemptedAt,
          expiresAt:
            Math.floor(Date.parse(outcome.attemptedAt) / 1000) + this.retentionDays * 86_400,
        },
      }),
    );
  }

  async pointToRejection(rejection: RejectionPointers): Promise<void> {
    const expiresAt =
      Math.floor(Date.parse(rejection.receivedAt) / 1000) + this.retentionDays * 86_400;
    // At most 10 puts, side by side: the same items again on a redelivery.
    await Promise.all(
      rejection.cliKeys.map((cliKey) =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...eventKeys.sendRejectedPointer(cliKey, rejection.sqsMessageId),
              kind: 'send',
              cliKey,
              sqsMessageId: rejection.sqsMessageId,
              receivedAt: rejection.receivedAt,
              expiresAt,
            },
          }),
        ),
      ),
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

/** The accepted recipients a record lists; an entry that does not read as one is left out (resent). */
const acceptedOf = (item: Record<string, unknown>): Map<string, AcceptedRecipient> => {
  const accepted = new Map<string, AcceptedRecipient>();
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(ACCEPTED_PREFIX) || value === null || typeof value !== 'object') continue;
    const cliKey = name.slice(ACCEPTED_PREFIX.length);
    const { t, m, d } = value as { t?: unknown; m?: unknown; d?: unknown };
    if (typeof t !== 'number' || !Number.isFinite(t)) continue;
    accepted.set(cliKey, {
      cliKey,
      ...(typeof m === 'string' && m !== '' ? { msgKey: m } : {}),
      acceptedAt: new Date(t * 1000).toISOString(),
      alreadyAccepted: d === true,
    });
  }
  return accepted;
};
