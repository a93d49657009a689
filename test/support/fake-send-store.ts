import type { EventRecord } from '../../functions/events/event-record.ts';
import type { SendStore, UnknownOutcome } from '../../functions/sending/ports.ts';
import { MemoryClaims } from './memory-claims.ts';

/** In-memory send records with the claim and outcome semantics of the DynamoDB adapter. */
export class FakeSendStore extends MemoryClaims implements SendStore {
  readonly events = new Map<string, EventRecord>();
  /** Unknown outcomes by cliKey (the adapter's `SEND#<cliKey>` / `UNKNOWN` items). */
  readonly unknown = new Map<string, UnknownOutcome>();

  async recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(cliKeys.filter((cliKey) => this.events.has(`SEND#${cliKey}|OUTCOME`)));
  }

  async recordUnknown(outcome: UnknownOutcome): Promise<void> {
    this.unknown.set(outcome.cliKey, outcome);
  }

  async putEvent(record: EventRecord): Promise<'stored' | 'duplicate'> {
    const key = `${record.pk}|${record.sk}`;
    if (this.events.has(key)) return 'duplicate';
    this.events.set(key, record);
    return 'stored';
  }

  /** Parsed details of the stored events of one detail-type. */
  details(
    detailType: string,
  ): Array<{ metadata: Record<string, unknown>; data: Record<string, unknown> }> {
    return [...this.events.values()]
      .filter((r) => r.detailType === detailType)
      .map((r) => JSON.parse(r.detail));
  }
}
