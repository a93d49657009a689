import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from '../../../gateway/schemas/zod.ts';
import { conditionalWrite } from '../../commons/clients/dynamodb.ts';
import { eventKeys, KEY_PREFIX, SORT_KEY } from '../../commons/table-keys.ts';
import { AWAITING_REPORT_INDEX, UNKNOWN_OUTCOME_BUCKET } from '../../commons/tables.ts';
import { reportSortKeysOf } from '../../event-table/report-items.ts';
import { SEND_CHANNELS } from '../../send-contract/channels.ts';
import type {
  ClaimResult,
  SendRecordKey,
  SendStore,
  UnknownOutcome,
} from '../../send-records/ports.ts';
import { SEND_RECORD_SK } from '../../send-records/send-record.ts';
import type { ReportGuards, ReportLedger } from '../reconcile-ports.ts';
import { statusUnavailableKeys } from '../reconcile-use-case.ts';
import type { UnknownOutcomeIndex } from '../resolve-unknown-outcomes.ts';

/** An unknown-outcome item (`SEND#<cliKey>` / `UNKNOWN`) as the sender wrote it. */
const UnknownEntrySchema = z.looseObject({
  cliKey: z.string().check(z.minLength(1)),
  channel: z.enum(SEND_CHANNELS),
  phone: z.nullable(z.string()),
  sqsMessageId: z.string(),
  attemptedAt: z.iso.datetime({ offset: true }),
  code: z.string(),
  message: z.string(),
  recordPk: z.string().check(z.startsWith(KEY_PREFIX.send)),
  scheduled: z.optional(z.literal(true)),
});

/** `LastEvaluatedKey` of an index page: the table's and the index's keys. */
const StartKeySchema = z.record(z.string(), z.string());

/**
 * The event table as `reconcile-status` reads it: stored reports (`REPORT#<msgKey>`, Query) and
 * unavailable-status events (`STATUS#<cliKey>`, GetItem); unknown outcomes are the `UNKNOWN`
 * partition of the `awaiting-report` index (`SEND#<cliKey>` / `UNKNOWN` items, Query on the
 * index), and resolving one removes `awaitingReportBucket` from its item (UpdateItem), which takes
 * it off the sparse index; report guards are items without `detailType` (never published) at the
 * keys a receiver would store a report under.
 */
export class DynamoDbAwaitingReports implements ReportLedger, UnknownOutcomeIndex, ReportGuards {
  /**
   * @param sends the send store whose claims this run takes on unknown outcomes (the senders'
   *   claims on send records, so a cliKey is never sent while its outcome is being decided), and
   *   whose records list the acceptances.
   */
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient,
    private readonly sends: Pick<SendStore, 'claim' | 'release'> & {
      acceptedOn(record: SendRecordKey): Promise<ReadonlyMap<string, unknown>>;
    },
  ) {}

  /** Report items only: a guard alone (a run that stopped before its report) is no report. */
  async hasReport(msgKey: string): Promise<boolean> {
    for await (const sortKeys of reportSortKeysOf(this.client, this.tableName, msgKey, {
      consistent: false,
    }))
      if (sortKeys.length > 0) return true;
    return false;
  }

  async guard(
    msgKey: string,
    sortKeys: readonly string[],
    guardOf: string,
    expiresAt: number,
  ): Promise<'clear' | 'reported'> {
    let reported = false;
    await Promise.all(
      sortKeys.map(async (sk) => {
        const written = await conditionalWrite(() =>
          this.client.send(
            new PutCommand({
              TableName: this.tableName,
              Item: { pk: eventKeys.report(msgKey), sk, reportGuardOf: guardOf, expiresAt },
              // A guard of an earlier run that stopped before its report may be written again.
              ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(reportGuardOf)',
            }),
          ),
        );
        if (!written) reported = true;
      }),
    );
    return reported ? 'reported' : 'clear';
  }

  async unknownPage(
    range: { readonly from: string; readonly to: string },
    limit: number,
    start?: string,
  ): Promise<{
    readonly entries: readonly UnknownOutcome[];
    readonly unreadable: readonly string[];
    readonly next?: string;
  }> {
    const answer = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: AWAITING_REPORT_INDEX.name,
        KeyConditionExpression: '#bucket = :bucket AND #at BETWEEN :from AND :to',
        ExpressionAttributeNames: {
          '#bucket': AWAITING_REPORT_INDEX.partitionKey,
          '#at': AWAITING_REPORT_INDEX.sortKey,
        },
        ExpressionAttributeValues: {
          ':bucket': UNKNOWN_OUTCOME_BUCKET,
          ':from': range.from,
          ':to': range.to,
        },
        Limit: limit,
        ExclusiveStartKey:
          start === undefined ? undefined : StartKeySchema.parse(JSON.parse(start)),
      }),
    );
    const unreadable: string[] = [];
    const entries = (answer.Items ?? []).flatMap((item) => {
      const parsed = UnknownEntrySchema.safeParse(item);
      if (!parsed.success) {
        unreadable.push(
          `${String(item.pk)}: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`,
        );
        return [];
      }
      const { cliKey, channel, phone, sqsMessageId, attemptedAt, code, message, recordPk } =
        parsed.data;
      const record = { pk: recordPk, sk: SEND_RECORD_SK };
      const scheduled = parsed.data.scheduled ? { scheduled: true as const } : {};
      return [
        { cliKey, channel, phone, sqsMessageId, attemptedAt, code, message, record, ...scheduled },
      ];
    });
    return answer.LastEvaluatedKey
      ? { entries, unreadable, next: JSON.stringify(answer.LastEvaluatedKey) }
      : { entries, unreadable };
  }

  async hasOutcome(cliKey: string, record: SendRecordKey): Promise<boolean> {
    const answer = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: eventKeys.send(cliKey), sk: SORT_KEY.outcome },
        ProjectionExpression: 'pk',
      }),
    );
    if (answer.Item !== undefined) return true;
    return (await this.sends.acceptedOn(record)).has(cliKey);
  }

  /**
   * Takes an unknown outcome's item out of the awaiting-report index, with the time it was
   * resolved. Never creates an item: one that expired meanwhile has nothing left to resolve.
   */
  async resolve(cliKey: string): Promise<void> {
    await conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: eventKeys.send(cliKey), sk: SORT_KEY.unknown },
          UpdateExpression: 'REMOVE #bucket SET resolvedAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#bucket': AWAITING_REPORT_INDEX.partitionKey },
          ExpressionAttributeValues: { ':at': new Date().toISOString() },
        }),
      ),
    );
  }

  async claim(record: SendRecordKey, owner: string, until: number): Promise<ClaimResult> {
    return (await this.sends.claim(record, owner, until)).result;
  }

  release(record: SendRecordKey, owner: string, maybeSent?: boolean): Promise<void> {
    return this.sends.release(record, owner, maybeSent);
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
