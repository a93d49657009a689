import { describe, expect, it } from 'vitest';
import type { StoredToken, TokenIssuer } from '../../functions/gateway-access/token-state.ts';
import {
  type RefreshLogger,
  refreshToken,
  TokenStateConflictError,
} from '../../functions/tokens/refresh-use-case.ts';
import { GatewayAuthenticationError, GatewayRetryableError } from '../../gateway/errors.ts';
import {
  FakeTokenStore,
  HOUR,
  MINUTE,
  TOKEN_CLOCK_START as NOW,
} from '../support/fake-token-store.ts';

const credentials = { apiKey: 'key', apiPassword: 'password' };

/** A gateway whose tokens are numbered; `refuseRefresh` makes the refresh fail with that error. */
class FakeAuth implements TokenIssuer {
  issued = 0;
  refreshed = 0;
  refreshedWith: string[] = [];
  refuseRefresh: Error | undefined;

  async issueToken(given: typeof credentials) {
    expect(given).toEqual(credentials);
    this.issued += 1;
    return { token: `access-issued-${this.issued}`, refreshToken: `refresh-${this.issued}` };
  }

  async refreshAccessToken(refreshToken: string) {
    this.refreshedWith.push(refreshToken);
    if (this.refuseRefresh) throw this.refuseRefresh;
    this.refreshed += 1;
    return { token: `access-refreshed-${this.refreshed}` };
  }
}

class RecordingLogger implements RefreshLogger {
  readonly lines: unknown[] = [];
  info(message: string, ...extra: Record<string, unknown>[]) {
    this.lines.push({ message, extra });
  }
  warn(message: string, ...extra: Record<string, unknown>[]) {
    this.lines.push({ message, extra });
  }
}

const stored = (accessLeftMs: number, refreshLeftMs = 20 * HOUR): StoredToken => ({
  token: 'access-stored',
  accessExpiresAt: NOW + accessLeftMs,
  refreshToken: 'refresh-stored',
  refreshExpiresAt: NOW + refreshLeftMs,
  version: 7,
  updatedAt: NOW - HOUR,
});

const setup = (initial?: StoredToken) => {
  const store = new FakeTokenStore(initial);
  const auth = new FakeAuth();
  const logger = new RecordingLogger();
  const run = () =>
    refreshToken({ store, auth, credentials: () => credentials, now: () => NOW, logger });
  return { store, auth, logger, run };
};

const authError = () =>
  new GatewayAuthenticationError({
    code: '29011',
    message: 'refresh token expired',
    endpoint: 'PUT /auth/v1/refresh',
    httpStatus: 401,
  });

describe('refreshToken', () => {
  it('leaves a token with plenty of time alone', async () => {
    // Prepare
    const { store, auth, run } = setup(stored(40 * MINUTE));

    // Act
    const result = await run();

    // Assess
    expect(result).toEqual({ outcome: 'unchanged', minutesLeft: 40, version: 7 });
    expect(store.writes).toEqual([]);
    expect([auth.issued, auth.refreshedWith.length]).toEqual([0, 0]);
  });

  it('authenticates when no token is stored, and writes version 1 only where nothing is', async () => {
    const { store, auth, run } = setup();

    const result = await run();

    expect(result).toEqual({ outcome: 'reauthenticated', minutesLeft: 60, version: 1 });
    expect(auth.issued).toBe(1);
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0]?.expected).toBeUndefined();
    expect(store.item).toEqual({
      token: 'access-issued-1',
      accessExpiresAt: NOW + HOUR,
      refreshToken: 'refresh-1',
      refreshExpiresAt: NOW + 25 * HOUR,
      version: 1,
      updatedAt: NOW,
    });
  });

  it('refreshes a token near its end with the refresh token, keeping the refresh token', async () => {
    const { store, auth, run } = setup(stored(5 * MINUTE));

    const result = await run();

    expect(result).toEqual({ outcome: 'refreshed', minutesLeft: 60, version: 8 });
    expect(auth.refreshedWith).toEqual(['refresh-stored']);
    expect(auth.issued).toBe(0);
    expect(store.writes[0]?.expected).toBe(7);
    // The stored token with a new access token for an hour; its refresh token unchanged.
    expect(store.item).toEqual({
      ...stored(HOUR),
      token: 'access-refreshed-1',
      version: 8,
      updatedAt: NOW,
    });
  });

  it('refreshes an access token that has already expired', async () => {
    const { auth, run } = setup(stored(-5 * MINUTE));

    const result = await run();

    expect(result.outcome).toBe('refreshed');
    expect(auth.refreshed).toBe(1);
  });

  it('takes the expiry from the JWT exp claim when the token has one', async () => {
    const { store, auth, run } = setup(stored(MINUTE));
    const exp = Math.floor(NOW / 1000) + 30 * 60;
    const claims = Buffer.from(JSON.stringify({ exp })).toString('base64url');
    auth.refreshAccessToken = async () => ({ token: `eyJhbGciOiJIUzI1NiJ9.${claims}.sig` });

    const result = await run();

    expect(result.minutesLeft).toBe(30);
    expect(store.item?.accessExpiresAt).toBe(exp * 1000);
  });

  it('re-authenticates when the gateway refuses the refresh (authentication family)', async () => {
    const { store, auth, logger, run } = setup(stored(5 * MINUTE));
    auth.refuseRefresh = authError();

    const result = await run();

    expect(result).toEqual({ outcome: 'reauthenticated', minutesLeft: 60, version: 8 });
    expect(auth.refreshedWith).toEqual(['refresh-stored']);
    expect(auth.issued).toBe(1);
    expect(store.item).toMatchObject({ token: 'access-issued-1', refreshToken: 'refresh-1' });
    expect(JSON.stringify(logger.lines)).toContain('29011');
  });

  it('fails without writing when the refresh fails for another reason', async () => {
    const { store, auth, run } = setup(stored(5 * MINUTE));
    auth.refuseRefresh = new GatewayRetryableError({
      code: '49000',
      message: 'busy',
      endpoint: 'PUT /auth/v1/refresh',
      httpStatus: 503,
    });

    await expect(run()).rejects.toBeInstanceOf(GatewayRetryableError);
    expect(auth.issued).toBe(0);
    expect(store.writes).toEqual([]);
    expect(store.item?.version).toBe(7);
  });

  it('re-authenticates without trying the refresh when the refresh token is near its end', async () => {
    const { store, auth, run } = setup(stored(5 * MINUTE, 20 * MINUTE));

    const result = await run();

    expect(result.outcome).toBe('reauthenticated');
    expect(auth.refreshedWith).toEqual([]);
    expect(store.item).toMatchObject({
      token: 'access-issued-1',
      refreshToken: 'refresh-1',
      refreshExpiresAt: NOW + 25 * HOUR,
      version: 8,
    });
  });

  it('keeps the newer token when another refresher wrote first (lost-race)', async () => {
    const { store, run } = setup(stored(5 * MINUTE));
    const newer: StoredToken = {
      ...stored(58 * MINUTE),
      token: 'access-from-the-other-refresher',
      version: 8,
    };
    store.beforeWrite = () => {
      store.item = newer;
    };

    const result = await run();

    expect(result).toEqual({ outcome: 'lost-race', minutesLeft: 58, version: 8 });
    expect(store.writes.map((w) => w.result)).toEqual(['stale']);
    expect(store.item).toEqual(newer);
  });

  it('fails loudly when it lost a race and no readable token is left', async () => {
    const { store, run } = setup(stored(5 * MINUTE));
    store.beforeWrite = () => {
      store.item = undefined;
    };

    await expect(run()).rejects.toBeInstanceOf(TokenStateConflictError);
  });

  it('never logs a token', async () => {
    const { logger, auth, run } = setup(stored(5 * MINUTE));
    auth.refuseRefresh = authError();

    await run();

    const logged = JSON.stringify(logger.lines);
    expect(logged).not.toMatch(/access-|refresh-stored|refresh-1/);
    expect(logger.lines.length).toBeGreaterThan(0);
  });

  describe('the 10-minute access threshold', () => {
    it.each([
      ['exactly 10 minutes left', 10 * MINUTE, 'unchanged'],
      ['just under 10 minutes left', 10 * MINUTE - 1, 'refreshed'],
      ['just over 10 minutes left', 10 * MINUTE + 1, 'unchanged'],
    ])('%s → %s', async (_, accessLeftMs, outcome) => {
      const { run } = setup(stored(accessLeftMs));

      const result = await run();

      expect(result.outcome).toBe(outcome);
    });
  });

  describe('the 30-minute refresh-token threshold', () => {
    it.each([
      ['exactly 30 minutes left', 30 * MINUTE, 'refreshed', 1],
      ['just under 30 minutes left', 30 * MINUTE - 1, 'reauthenticated', 0],
      ['just over 30 minutes left', 30 * MINUTE + 1, 'refreshed', 1],
    ])('%s → %s', async (_, refreshLeftMs, outcome, refreshCalls) => {
      const { auth, run } = setup(stored(5 * MINUTE, refreshLeftMs));

      const result = await run();

      expect(result.outcome).toBe(outcome);
      expect(auth.refreshedWith).toHaveLength(refreshCalls);
      expect(auth.issued).toBe(1 - refreshCalls);
    });
  });
});
