import type { ClaimResult, SendRecordKey } from '../../functions/send-records/ports.ts';
import { givenBackUntil } from '../../functions/send-records/send-record.ts';

/**
 * Send-record claims in memory with the DynamoDB adapter's rules: a live claim of another owner is
 * busy, a lapsed one (or a live one of the same owner: its own repeated write) is taken over, a
 * released claim keeps its owner.
 * Keyed by the record's partition key.
 */
export class MemoryClaims {
  readonly claims = new Map<string, { owner: string; until: number }>();
  now = () => Date.now();

  protected take(record: SendRecordKey, owner: string, until: number): ClaimResult {
    const current = this.claims.get(record.pk);
    if (current && current.until >= this.now() && current.owner !== owner) return 'busy';
    this.claims.set(record.pk, { owner, until });
    return current && current.until > 0 ? 'taken-over' : 'claimed';
  }

  async release(record: SendRecordKey, owner: string, maybeSent = false): Promise<void> {
    const current = this.claims.get(record.pk);
    if (current?.owner === owner)
      this.claims.set(record.pk, { owner, until: givenBackUntil(maybeSent) });
  }
}
