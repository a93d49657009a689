import type { ClaimResult } from '../../functions/sending/ports.ts';

/**
 * Send claims in memory with the DynamoDB adapter's rules: a live claim of another owner is busy,
 * a lapsed or released one of another owner is taken over, a released claim keeps its owner.
 */
export class MemoryClaims {
  readonly claims = new Map<string, { owner: string; until: number }>();
  now = () => Date.now();

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
}
