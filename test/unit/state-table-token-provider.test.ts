import { describe, expect, it } from 'vitest';
import type { Lease } from '../../functions/commons/lease.ts';
import {
  REAUTH_LEASE,
  StateTableTokenProvider,
  TokenUnavailableError,
} from '../../functions/gateway-access/adapters/state-table-token-provider.ts';
import type { StoredToken } from '../../functions/gateway-access/token-state.ts';
import { GatewayAuthenticationError } from '../../gateway/errors.ts';
import {
  FakeTokenStore,
  HOUR,
  MINUTE,
  TOKEN_CLOCK_START as START,
} from '../support/fake-token-store.ts';

/** One lease in memory; `heldBy` lets a test play another container holding it. */
class FakeLease implements Lease {
  heldBy: string | undefined;
  acquired = 0;
  /** The TTL of every acquisition. */
  readonly ttls: number[] = [];
  released = 0;
  failRelease = false;

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    expect(name).toBe(REAUTH_LEASE);
    this.ttls.push(ttlMs);
    if (this.heldBy !== undefined && this.heldBy !== owner) return false;
    this.heldBy = owner;
    this.acquired += 1;
    return true;
  }

  async renew(): Promise<boolean> {
    return false;
  }

  async release(_name: string, owner: string): Promise<void> {
    if (this.failRelease) throw new Error('throttled');
    if (this.heldBy === owner) this.heldBy = undefined;
    this.released += 1;
  }
}

const silent = { info: () => {}, warn: () => {}, error: () => {} };

const stored = (token: string, accessLeftMs: number, version: number): StoredToken => ({
  token,
  accessExpiresAt: START + accessLeftMs,
  refreshToken: `refresh-of-${token}`,
  refreshExpiresAt: START + 20 * HOUR,
  version,
  updatedAt: START,
});

const setup = (initial?: StoredToken) => {
  let now = START;
  const store = new FakeTokenStore(initial);
  const lease = new FakeLease();
  const auth = {
    issued: 0,
    failWith: undefined as Error | undefined,
    async issueToken() {
      if (this.failWith) throw this.failWith;
      this.issued += 1;
      return { token: `issued-${this.issued}`, refreshToken: `refresh-${this.issued}` };
    },
  };
  const sleeps: number[] = [];
  let onSleep: (() => void) | undefined;
  const provider = new StateTableTokenProvider({
    store,
    lease,
    auth,
    credentials: () => ({ apiKey: 'key', apiPassword: 'password' }),
    logger: silent,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      onSleep?.();
    },
    owner: 'me',
    maxWaitMs: 5_000,
  });
  return {
    store,
    lease,
    auth,
    provider,
    sleeps,
    advance: (ms: number) => {
      now += ms;
    },
    whileWaiting: (action: () => void) => {
      onSleep = action;
    },
  };
};

describe('StateTableTokenProvider', () => {
  it('caches the stored token until a minute before it expires, then reads it again', async () => {
    // Prepare
    const { store, provider, advance, auth } = setup(stored('shared-1', 30 * MINUTE, 4));

    // Act
    const first = await provider.getToken();
    advance(29 * MINUTE - 1); // 60 001 ms left: still cached
    const cached = await provider.getToken();
    const readsWhileCached = store.reads;
    store.item = stored('shared-2', 90 * MINUTE, 5); // the refresher renewed it meanwhile
    advance(1); // 60 000 ms left: no longer handed out
    const renewed = await provider.getToken();

    // Assess
    expect([first, cached, renewed]).toEqual(['shared-1', 'shared-1', 'shared-2']);
    expect(readsWhileCached).toBe(1);
    expect(store.reads).toBe(2);
    expect(auth.issued).toBe(0);
  });

  it('authenticates under the lease when nothing is stored, stores version 1 and releases the lease', async () => {
    const { store, lease, provider, auth } = setup();

    const token = await provider.getToken();

    expect(token).toBe('issued-1');
    expect(auth.issued).toBe(1);
    expect(store.writes.map((w) => [w.expected, w.result])).toEqual([[undefined, 'written']]);
    expect(store.item).toMatchObject({ token: 'issued-1', refreshToken: 'refresh-1', version: 1 });
    expect([lease.acquired, lease.released, lease.heldBy]).toEqual([1, 1, undefined]);
  });

  it('authenticates when the stored token has expired, over the version it read', async () => {
    const { store, provider, auth } = setup(stored('old', -MINUTE, 9));

    const token = await provider.getToken();

    expect(token).toBe('issued-1');
    expect(auth.issued).toBe(1);
    expect(store.writes[0]?.expected).toBe(9);
    expect(store.item?.version).toBe(10);
  });

  it('shares one lookup between concurrent callers in a container', async () => {
    const { store, provider, auth } = setup();

    const tokens = await Promise.all(Array.from({ length: 10 }, () => provider.getToken()));

    expect(new Set(tokens)).toEqual(new Set(['issued-1']));
    expect(auth.issued).toBe(1);
    expect(store.writes).toHaveLength(1);
  });

  it('after invalidate, uses a newer stored token without authenticating', async () => {
    const { store, provider, auth } = setup(stored('shared-1', 30 * MINUTE, 4));
    const refused = await provider.getToken();
    store.item = stored('shared-2', 50 * MINUTE, 5); // another container already replaced it

    await provider.invalidate(refused);
    const next = await provider.getToken();

    expect(next).toBe('shared-2');
    expect(auth.issued).toBe(0);
  });

  it('after invalidate, re-authenticates when the stored token is the refused one', async () => {
    const { store, provider, auth } = setup(stored('shared-1', 30 * MINUTE, 4));
    const refused = await provider.getToken();

    await provider.invalidate(refused);
    const next = await provider.getToken();

    expect(next).toBe('issued-1');
    expect(auth.issued).toBe(1);
    expect(store.writes.map((w) => w.expected)).toEqual([4]);
    expect(store.item).toMatchObject({ token: 'issued-1', version: 5 });
  });

  it('does nothing but remember the refusal until the next getToken', async () => {
    const { store, provider, auth } = setup(stored('shared-1', 30 * MINUTE, 4));
    const token = await provider.getToken();

    await provider.invalidate(token);

    expect(store.reads).toBe(1);
    expect(auth.issued).toBe(0);
  });

  it('waits for the container holding the lease and uses the token it stores', async () => {
    const { store, lease, provider, auth, sleeps, whileWaiting } = setup();
    lease.heldBy = 'another-container';
    let polls = 0;
    whileWaiting(() => {
      polls += 1;
      if (polls === 3) store.item = stored('from-another-container', HOUR, 1);
    });

    const token = await provider.getToken();

    expect(token).toBe('from-another-container');
    expect(auth.issued).toBe(0);
    expect(sleeps).toHaveLength(3);
    // Backoff grows: each wait at least half of 50 ms × 2^attempt.
    expect(sleeps.every((ms, i) => ms >= 25 * 2 ** i && ms <= 50 * 2 ** i)).toBe(true);
  });

  it('takes the lease over once its holder gives it up without storing a token', async () => {
    const { lease, provider, auth, whileWaiting } = setup();
    lease.heldBy = 'crashed-container';
    whileWaiting(() => {
      lease.heldBy = undefined; // its lease expired
    });

    const token = await provider.getToken();

    expect(token).toBe('issued-1');
    expect(auth.issued).toBe(1);
  });

  it('gives up after the bounded wait when no token appears', async () => {
    const { lease, provider, auth, sleeps } = setup();
    lease.heldBy = 'stuck-container';

    const error = await provider.getToken().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TokenUnavailableError);
    const waited = sleeps.reduce((sum, ms) => sum + ms, 0);
    expect(waited).toBeGreaterThanOrEqual(5_000);
    expect(waited).toBeLessThan(5_000 + 800);
    expect(auth.issued).toBe(0);
  });

  it('uses the token a concurrent writer stored when its own write is stale', async () => {
    const { store, provider } = setup(stored('old', -MINUTE, 2));
    store.beforeWrite = () => {
      store.item = stored('refreshed-meanwhile', HOUR, 3);
    };

    const token = await provider.getToken();

    expect(token).toBe('refreshed-meanwhile');
    expect(store.item?.token).toBe('refreshed-meanwhile');
  });

  it('surfaces a failed authentication and gives the lease back', async () => {
    const { lease, provider, auth } = setup();
    auth.failWith = new GatewayAuthenticationError({
      code: '20002',
      message: 'password hash mismatch',
      endpoint: 'POST /auth/v1/{randomStr}',
    });

    await expect(provider.getToken()).rejects.toBeInstanceOf(GatewayAuthenticationError);
    expect(lease.heldBy).toBeUndefined();
  });

  it('keeps the new token when the lease cannot be given back', async () => {
    const { lease, provider } = setup();
    lease.failRelease = true;

    await expect(provider.getToken()).resolves.toBe('issued-1');
  });

  describe('the re-authentication lease', () => {
    const provider = (options: { authTimeoutMs?: number; leaseTtlMs?: number }) => {
      const lease = new FakeLease();
      const created = new StateTableTokenProvider({
        store: new FakeTokenStore(),
        lease,
        auth: { issueToken: async () => ({ token: 't', refreshToken: 'r' }) },
        credentials: () => ({ apiKey: 'key', apiPassword: 'password' }),
        logger: silent,
        now: () => START,
        sleep: async () => {},
        owner: 'me',
        ...options,
      });
      return { created, lease };
    };

    it.each([
      [10_000, undefined],
      [60_000, 60_000],
    ])(
      'is held longer than one authentication call can take (timeout %i ms)',
      async (timeoutMs, given) => {
        const { created, lease } = provider(given === undefined ? {} : { authTimeoutMs: given });

        await created.getToken();

        expect(lease.ttls).toHaveLength(1);
        // Without a configured timeout, the longest one the configuration allows is assumed.
        expect(lease.ttls[0]).toBeGreaterThan(Math.max(timeoutMs, 60_000));
      },
    );

    it('follows the configured timeout', async () => {
      const { created, lease } = provider({ authTimeoutMs: 5_000 });

      await created.getToken();

      expect(lease.ttls[0]).toBeGreaterThan(5_000);
      expect(lease.ttls[0]).toBeLessThan(60_000);
    });

    it('refuses a lease that a slow authentication would outlive', () => {
      expect(() => provider({ authTimeoutMs: 30_000, leaseTtlMs: 15_000 })).toThrow(RangeError);
    });
  });
});
