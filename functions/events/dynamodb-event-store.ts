import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  conditionalWrite,
  documentClient,
  isConditionalCheckFailure,
  isValidationFailure,
} from '../commons/clients/dynamodb.ts';
import { eventKeys, KEY_PREFIX, parseResultKey } from '../commons/table-keys.ts';
import { type EventRecord, withMessageStatus } from './event-record.ts';
import {
  HIGHEST_STATUS,
  MESSAGE_STATUSES,
  type MessageStatusName,
  reportedStatus,
  statusAfter,
  statusRank,
} from './message-status.ts';
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
    const { reportStatus, ...rest } = record;
    if (reportStatus === undefined) return this.putOnce(rest);
    return this.putReport(rest, reportStatus.msgKey, reportStatus.reported);
  }

  /**
   * A report, stored saying its message's status after it (`data.messageStatus`), forward-only.
   *
   * The status is kept in an item of its own per message, and a report takes its status from
   * there as it registers: one update raises the status to the report's own where that is higher
   * and answers the status after it, and, for a report below a delivery, adds the report's key to
   * the message's pending keys of its rank. Before writing itself, a report puts a blocker (an
   * item that is not an event) on every pending key ranked below its status whose report is not
   * written yet; a report that finds a blocker on its own key removes it and registers again,
   * now reading the higher status. So a report registered before a higher one is either written
   * before that one is, or is made to read its status again: in the order reports are stored,
   * their `messageStatus` never moves back, and none stored after a delivery says anything but
   * `delivered`, however the reports of a message arrive (out of order, at the same moment, by
   * webhook, polling or the status query).
   *
   * Single-item conditional writes only, no transaction: a delivery costs two writes (its status,
   * then itself), a report that finds a later one's blocker a few more. A status raised by a
   * report whose own write then fails stays raised: the gateway delivers that report again.
   */
  private async putReport(
    record: EventRecord,
    msgKey: string,
    reported: MessageStatusName,
  ): Promise<'stored' | 'duplicate'> {
    for (let attempt = 1; attempt <= REPORT_ATTEMPTS; attempt += 1) {
      const { status, pendingBelow } = await this.registerReport(msgKey, record, reported);
      await Promise.all(
        pendingBelow
          .filter((sk) => sk !== record.sk)
          .map((sk) => this.block(record.pk, sk, record.sk, record.expiresAt)),
      );
      let result: 'stored' | 'duplicate' | 'conflict';
      try {
        result = await this.putOnce(withMessageStatus(record, status));
      } catch (error) {
        // A key with an escaped part is written in a transaction, which DynamoDB cancels when a
        // blocker is put on the same key at that moment: as refused, then.
        if (!cancellationCodes(error)?.includes('TransactionConflict')) throw error;
        result = 'conflict';
      }
      if (result === 'stored') return 'stored';
      if (!(await this.unblock(record.pk, record.sk)) && result === 'duplicate') return 'duplicate';
    }
    throw new Error(
      `the report ${record.pk} ${record.sk} was blocked by later reports ${REPORT_ATTEMPTS} times; the gateway delivers it again`,
    );
  }

  /**
   * Applies a report's own status to its message's status item (forward-only) and, below a
   * delivery, adds its key to the pending keys of its rank; answers the status after it and the
   * pending keys ranked below that status.
   */
  private async registerReport(
    msgKey: string,
    record: EventRecord,
    reported: MessageStatusName,
  ): Promise<{ status: MessageStatusName; pendingBelow: string[] }> {
    const pending = reported === HIGHEST_STATUS ? undefined : PENDING_KEYS[reported];
    const add = pending === undefined ? '' : ' ADD #pending :key';
    const common = {
      TableName: this.tableName,
      Key: eventKeys.messageStatus(msgKey),
      ReturnValues: 'ALL_NEW' as const,
      ...(pending === undefined ? {} : { ExpressionAttributeNames: { '#pending': pending } }),
    };
    const key = pending === undefined ? {} : { ':key': new Set([record.sk]) };
    let stored: Record<string, unknown> | undefined;
    try {
      stored = (
        await this.client.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: `SET messageStatus = :status, statusRank = :rank, expiresAt = :expires${add}`,
            ConditionExpression: 'attribute_not_exists(statusRank) OR statusRank <= :rank',
            ExpressionAttributeValues: {
              ':status': reported,
              ':rank': statusRank(reported),
              ':expires': record.expiresAt,
              ...key,
            },
          }),
        )
      ).Attributes;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      // Further on already: the status stays, the report still registers as pending.
      stored = (
        await this.client.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: `SET expiresAt = :expires${add}`,
            ExpressionAttributeValues: { ':expires': record.expiresAt, ...key },
          }),
        )
      ).Attributes;
    }
    const status = statusAfter(
      MESSAGE_STATUSES.find((known) => known === stored?.messageStatus),
      reported,
    );
    const pendingBelow = MESSAGE_STATUSES.flatMap((lower) => {
      if (lower === HIGHEST_STATUS || statusRank(lower) >= statusRank(status)) return [];
      const keys = stored?.[PENDING_KEYS[lower]];
      return keys instanceof Set ? [...keys].map(String) : [];
    });
    return { status, pendingBelow };
  }

  /**
   * Puts a blocker on a report's key unless something (its report, say) is there already. A key
   * a transaction holds at that moment (a report whose key has an escaped part, being written) is
   * tried again once the transaction is over: it then holds that report (written before this one
   * is) or nothing (its write failed, and the blocker goes in).
   */
  private async block(pk: string, sk: string, by: string, expiresAt: number): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await conditionalWrite(() =>
          this.client.send(
            new PutCommand({
              TableName: this.tableName,
              Item: { pk, sk, blockedBy: by, expiresAt },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
        );
        return;
      } catch (error) {
        const conflict = (error as { name?: string }).name === 'TransactionConflictException';
        if (!conflict || attempt >= BLOCK_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  }

  /**
   * After a refused write of a report: removes the blocker on its key and answers true, or
   * answers false when the key holds something else (the report itself: a duplicate).
   */
  private async unblock(pk: string, sk: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { pk, sk }, ConsistentRead: true }),
    );
    if (Item === undefined || Item.blockedBy === undefined) return false;
    await conditionalWrite(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk, sk },
          ConditionExpression: 'attribute_exists(blockedBy)',
        }),
      ),
    );
    return true;
  }

  /** The conditional put of an item, with the check of its earlier spelling where it has one. */
  private itemWrites(record: Omit<EventRecord, 'legacyKey'>, legacyKey: EventRecord['legacyKey']) {
    return [
      {
        Put: {
          TableName: this.tableName,
          Item: storedItem(record),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...(legacyKey === undefined
        ? []
        : [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: { pk: legacyKey.pk, sk: legacyKey.sk },
                ConditionExpression: 'attribute_not_exists(pk) OR eventId <> :eventId',
                ExpressionAttributeValues: { ':eventId': legacyKey.eventId },
              },
            },
          ]),
    ];
  }

  /** One conditional put (a transaction with the earlier spelling's check, where there is one). */
  private async putOnce(record: EventRecord): Promise<'stored' | 'duplicate'> {
    const { legacyKey, ...stored } = record;
    try {
      // An item over 1 KB keeps its detail deflated: one write unit, not two (stored-detail.ts).
      const writes = this.itemWrites(stored, legacyKey);
      const put = writes[0]?.Put;
      if (writes.length === 1 && put) await this.client.send(new PutCommand(put));
      // Keys with an escaped part: the same event may be stored under its earlier spelling.
      else await this.client.send(new TransactWriteCommand({ TransactItems: writes }));
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
        // Guards that reconcile-status writes beside a status-built report, and the blockers of
        // putReport, are not reports: they carry no event.
        FilterExpression: 'attribute_exists(detailType)',
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
      .map((code) => ({ code, rank: statusRank(reportedStatus(code)) }))
      .sort((a, b) => b.rank - a.rank);
    const best = ranked[0];
    if (!best) return undefined;
    return {
      msgKey,
      state: reportedStatus(best.code),
      resultCode: best.code,
      reports: codes.length,
    };
  }
}

/** How often a blocker is tried on a key a transaction holds (a few hundred milliseconds in all). */
const BLOCK_ATTEMPTS = 6;

/** How often one report may find a blocker on its key before the write is given up as failed. */
const REPORT_ATTEMPTS = 5;

/** The status item's sets of report keys registered below a delivery, by their own status. */
const PENDING_KEYS = { uncertain: 'pendingUncertain', failed: 'pendingFailed' } as const;
