import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type {
  AcceptedRecipient,
  AwaitingReports,
  ClaimEnd,
  RecordClaim,
  RecordInfo,
  RejectionPointers,
  ReportCheck,
  SendRecordKey,
  SendStore,
  UnknownOutcome,
  UnpublishedOutcome,
} from '../../functions/send-records/ports.ts';
import { MemoryClaims } from './memory-claims.ts';

/**
 * In-memory send records with the claim and outcome semantics of the DynamoDB adapter, and a
 * report-check queue that keeps what was queued.
 */
export class FakeSendStore extends MemoryClaims implements SendStore, AwaitingReports {
  readonly events = new Map<string, EventRecord | UnpublishedOutcome>();
  /** The accepted recipients each send record lists, by the record's partition key. */
  readonly records = new Map<string, Map<string, AcceptedRecipient>>();
  /** Unknown outcomes by cliKey (the adapter's `SEND#<cliKey>` / `UNKNOWN` items). */
  readonly unknown = new Map<string, UnknownOutcome>();
  /** Report checks queued, in order. */
  readonly checks: ReportCheck[] = [];

  async recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(cliKeys.filter((cliKey) => this.events.has(`SEND#${cliKey}|OUTCOME`)));
  }

  /** The content and first queue message each record was claimed with, by its partition key. */
  readonly contents = new Map<string, { content: string; sqsMessageId: string }>();

  async claim(
    record: SendRecordKey,
    owner: string,
    until: number,
    info?: RecordInfo,
  ): Promise<RecordClaim> {
    const existed = this.records.has(record.pk);
    // The adapter's rule: a sender's claim of a record holding other content changes nothing.
    const held = this.contents.get(record.pk);
    if (info && held && held.content !== info.content)
      return { result: 'conflict', existed, accepted: new Map(), claimedBy: held.sqsMessageId };
    const result = this.take(record, owner, until);
    if (info && result !== 'busy' && !held)
      this.contents.set(record.pk, { content: info.content, sqsMessageId: info.sqsMessageId });
    const accepted = this.records.get(record.pk) ?? new Map<string, AcceptedRecipient>();
    this.records.set(record.pk, accepted);
    return { result, existed, accepted: result === 'busy' ? new Map() : new Map(accepted) };
  }

  async recordAccepted(
    record: SendRecordKey,
    owner: string,
    accepted: readonly AcceptedRecipient[],
    options: ClaimEnd,
  ): Promise<void> {
    const listed = this.records.get(record.pk) ?? new Map<string, AcceptedRecipient>();
    for (const recipient of accepted) listed.set(recipient.cliKey, recipient);
    this.records.set(record.pk, listed);
    if (options.release) await this.release(record, owner, options.maybeSent);
  }

  async recordUnknown(outcome: UnknownOutcome): Promise<void> {
    this.unknown.set(outcome.cliKey, outcome);
  }

  /** The rejected queue messages each cliKey points to (the adapter's `SEND#<cliKey>` / `REJECTED#…` items). */
  readonly rejections = new Map<string, Set<string>>();

  async pointToRejection(rejection: RejectionPointers): Promise<void> {
    for (const cliKey of rejection.cliKeys) {
      const pointers = this.rejections.get(cliKey) ?? new Set<string>();
      pointers.add(rejection.sqsMessageId);
      this.rejections.set(cliKey, pointers);
    }
  }

  async putEvent(record: EventRecord | UnpublishedOutcome): Promise<'stored' | 'duplicate'> {
    const key = `${record.pk}|${record.sk}`;
    if (this.events.has(key)) return 'duplicate';
    this.events.set(key, record);
    return 'stored';
  }

  async expect(check: ReportCheck): Promise<void> {
    this.checks.push(check);
  }

  /** Every accepted recipient the records list. */
  accepted(): AcceptedRecipient[] {
    return [...this.records.values()].flatMap((listed) => [...listed.values()]);
  }

  /** Parsed details of the stored events of one detail-type. */
  details(
    detailType: string,
  ): Array<{ metadata: Record<string, unknown>; data: Record<string, unknown> }> {
    return [...this.events.values()]
      .filter((r): r is EventRecord => 'detailType' in r && r.detailType === detailType)
      .map((r) => JSON.parse(r.detail));
  }
}
