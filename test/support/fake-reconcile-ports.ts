import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { ReportGuards } from '../../functions/reconcile/reconcile-ports.ts';
import type { UnknownOutcomeIndex } from '../../functions/reconcile/resolve-unknown-outcomes.ts';
import type {
  ClaimResult,
  SendRecordKey,
  UnknownOutcome,
} from '../../functions/send-records/ports.ts';
import { FakeEventStore } from './fake-event-store.ts';
import { MemoryClaims } from './memory-claims.ts';

/**
 * An event table in memory whose report guards behave as the DynamoDB adapter's: a guard is an
 * item without an event at a receiver's key, so a receiver's conditional put there is a duplicate.
 */
export class GuardedEventStore extends FakeEventStore implements ReportGuards {
  /** `pk|sk` of every guard item, with the report key it guards for. */
  readonly guards = new Map<string, string>();

  override async putIfAbsent(record: EventRecord): Promise<'stored' | 'duplicate'> {
    if (this.guards.has(`${record.pk}|${record.sk}`)) return 'duplicate';
    return super.putIfAbsent(record);
  }

  async guard(
    msgKey: string,
    sortKeys: readonly string[],
    guardOf: string,
    _expiresAt: number,
  ): Promise<'clear' | 'reported'> {
    let reported = false;
    for (const sk of sortKeys) {
      const key = `REPORT#${msgKey}|${sk}`;
      if (this.items.has(key)) reported = true;
      else this.guards.set(key, guardOf);
    }
    return reported ? 'reported' : 'clear';
  }

  /** Report events stored (guards are not events). */
  reportEvents(): EventRecord[] {
    return this.ofKind('report');
  }
}

/** Unknown outcomes in memory, with the send store's claim rules and the event table's outcomes. */
export class FakeUnknownOutcomes extends MemoryClaims implements UnknownOutcomeIndex {
  readonly entries = new Map<string, UnknownOutcome>();
  /** Acceptances the send records list, by record partition key (a sender's, written meanwhile). */
  readonly recordAcceptances = new Map<string, Set<string>>();

  constructor(private readonly store: FakeEventStore) {
    super();
  }

  async claim(record: SendRecordKey, owner: string, until: number): Promise<ClaimResult> {
    return this.take(record, owner, until);
  }

  add(entry: UnknownOutcome): void {
    this.entries.set(entry.cliKey, entry);
  }

  async unknownPage(range: { from: string; to: string }, limit: number, start?: string) {
    const matching = [...this.entries.values()]
      .filter((e) => e.attemptedAt >= range.from && e.attemptedAt <= range.to)
      .sort((a, b) => `${a.attemptedAt}|${a.cliKey}`.localeCompare(`${b.attemptedAt}|${b.cliKey}`))
      .filter((e) => start === undefined || `${e.attemptedAt}|${e.cliKey}` > start);
    const entries = matching.slice(0, limit);
    const last = entries.at(-1);
    return matching.length > limit && last
      ? { entries, next: `${last.attemptedAt}|${last.cliKey}` }
      : { entries };
  }

  async hasOutcome(cliKey: string, record: SendRecordKey): Promise<boolean> {
    return (
      this.store.items.has(`SEND#${cliKey}|OUTCOME`) ||
      (this.recordAcceptances.get(record.pk)?.has(cliKey) ?? false)
    );
  }

  async resolve(cliKey: string): Promise<void> {
    this.entries.delete(cliKey);
  }
}
