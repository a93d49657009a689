/**
 * A named, time-limited lease in the state table: at most one holder at a time, taken over only
 * after it expires. Used where exactly one worker may act (the report poller, a re-authentication).
 */
export interface Lease {
  /** Takes the lease for `ttlMs` when it is free, expired, or already ours. */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends a lease we hold; false when we lost it (it expired and someone else took it). */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back early if we still hold it. */
  release(name: string, owner: string): Promise<void>;
}
