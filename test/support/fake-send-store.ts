import type { EventRecord } from '../../functions/events/event-record.ts';
import type { ClaimResult, SendStore, UnknownOutcome } from '../../functions/sending/ports.ts';

/** In-memory send records with the claim and outcome semantics of the DynamoDB adapter. */
export class FakeSendStore implements SendStore {
  readonly claims = new Map<string, { owner: string; until: number }>();
  readonly events = new Map<string, EventRecord>();
  /** Unknown outcomes by cliKey (the adapter's `SEND#<cliKey>` / `UNKNOWN` items). */
  readonly unknown = new Map<string, UnknownOutcome>();
  now = () => Date.now();

  async recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(cliKeys.filter((cliKey) => this.events.has(`SEND#${cliKey}|OUTCOME`)));
  }

  async claim(cliKey: string, owner: string, until: number): Promise<ClaimResult> {
    const current = this.claims.get(cliKey);
    if (current && current.until >= this.now() && current.owner !== owner) return 'busy';
    this.claims.set(cliKey, { owner, until });
    return current && current.owner !== owner && current.until > 0 ? 'taken-over' : 'claimed';
  }

  async release(cliKey: string, owner: string): Promise<void> {
    const current = this.claims.get(cliKey);
    if (current?.owner === owner) this.claims.set(cliKey, { owner, until: 0 });
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
