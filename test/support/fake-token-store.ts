import type { StoredToken, TokenStore } from '../../functions/gateway-access/token-state.ts';

/** The instant the token tests start at, and the units they count token lifetimes in. */
export const TOKEN_CLOCK_START = Date.parse('2026-03-01T00:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/**
 * An in-memory {@link TokenStore} with the DynamoDB adapter's compare-and-set on `version`.
 * `beforeWrite` runs just before each write is checked, so a test can slip a concurrent
 * writer in between a reader's read and its write.
 */
export class FakeTokenStore implements TokenStore {
  item: StoredToken | undefined;
  readonly writes: Array<{
    next: StoredToken;
    expected: number | undefined;
    result: 'written' | 'stale';
  }> = [];
  reads = 0;
  beforeWrite: (() => void) | undefined;

  constructor(initial?: StoredToken) {
    this.item = initial;
  }

  async read(): Promise<StoredToken | undefined> {
    this.reads += 1;
    return this.item === undefined ? undefined : { ...this.item };
  }

  async write(next: StoredToken, expected: number | undefined): Promise<'written' | 'stale'> {
    const hook = this.beforeWrite;
    this.beforeWrite = undefined;
    hook?.();
    const result = this.item?.version === expected ? 'written' : 'stale';
    if (result === 'written') this.item = { ...next };
    this.writes.push({ next, expected, result });
    return result;
  }
}
