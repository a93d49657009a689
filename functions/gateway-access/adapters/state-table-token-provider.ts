import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TokenProvider } from '../../../gateway/bearer/token-provider.ts';
import { DynamoDbLease } from '../../commons/dynamodb-lease.ts';
import { type Backoff, backoffDelay } from '../../commons/helpers/backoff.ts';
import type { Lease } from '../../commons/lease.ts';
import {
  authenticate,
  type CredentialsSource,
  type StoredToken,
  type TokenIssuer,
  type TokenStore,
} from '../token-state.ts';
import { DynamoDbTokenStore, type TokenStoreLogger } from './dynamodb-token-store.ts';

/** Name of the lease one container holds while it re-authenticates for everyone. */
export const REAUTH_LEASE = 'token-reauth';

/** A token is used only while it has more than this left (and cached until then). */
const EXPIRY_MARGIN_MS = 60_000;

export interface StateTableTokenProviderOptions {
  readonly store: TokenStore;
  readonly lease: Lease;
  readonly auth: Pick<TokenIssuer, 'issueToken'>;
  readonly credentials: CredentialsSource;
  /** A Powertools `Logger` fits; the provider never logs a token. */
  readonly logger: TokenStoreLogger & {
    info(message: string, ...extra: Record<string, unknown>[]): void;
    warn(message: string, ...extra: Record<string, unknown>[]): void;
  };
  /** Epoch ms for token expiry; injectable for tests. @default Date.now */
  readonly now?: () => number;
  /** Real-time wait between polls of the state item. @default node's timers */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Holder id in the lease. @default a random UUID per provider (per container) */
  readonly owner?: string;
  /**
   * The timeout of one authentication call (the gateway client's `GATEWAY_TIMEOUT_MS`).
   * @default 60 s, the longest timeout the configuration allows
   */
  readonly authTimeoutMs?: number;
  /**
   * How long the lease is held: longer than one authentication can take, or a second container
   * takes the lease over from a holder that is still waiting for the gateway and authenticates too.
   * @default authTimeoutMs + 10 s (reading the credentials and writing the token)
   */
  readonly leaseTtlMs?: number;
  /**
   * How long a caller waits for another container's re-authentication: past the lease's end, so
   * that a holder that died is taken over rather than given up on. @default leaseTtlMs + 5 s
   */
  readonly maxWaitMs?: number;
}

/** The longest gateway timeout the configuration accepts (`GATEWAY_TIMEOUT_MS`). */
export const MAX_AUTH_TIMEOUT_MS = 60_000;
/** Besides the call: the credentials read (Secrets Manager) and the version-checked token write. */
const AUTH_OVERHEAD_MS = 10_000;

/** Polling for the token another container renews: 50 ms doubling to 800 ms, with jitter so a crowd does not poll in step. */
const TOKEN_WAIT_BACKOFF: Backoff = { firstMs: 50, maxMs: 800, jitter: 0.5 };

/** No usable token appeared within the wait, and this container could not take the lease. */
export class TokenUnavailableError extends Error {
  override readonly name = 'TokenUnavailableError';
  constructor(readonly waitedMs: number) {
    super(
      `no usable gateway token in the state table after waiting ${waitedMs} ms for another container's re-authentication`,
    );
  }
}

/**
 * The token provider of every deployed Lambda: the shared token from the state table, kept by the
 * scheduled `refresh-token` function.
 *
 * The token is cached in memory until a minute before it expires, then read again. When the
 * stored token is missing, about to expire, or the one the gateway just refused, one container
 * re-authenticates under the `token-reauth` lease and stores the result (version-checked); every
 * other container waits for it by polling the item with a short backoff, so a crowd of Lambdas
 * causes one authentication. Concurrent callers in one container share one lookup.
 *
 * `invalidate` is lazy: it only remembers the refused token, and the next `getToken` decides
 * between the stored token (if another container already replaced it) and a re-authentication.
 * A refusal that is not followed by another call costs nothing.
 */
export class StateTableTokenProvider implements TokenProvider {
  private cached: StoredToken | undefined;
  private refused: string | undefined;
  private lookup: Promise<string> | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly owner: string;
  private readonly leaseTtlMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: StateTableTokenProviderOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.owner = options.owner ?? randomUUID();
    const authTimeoutMs = options.authTimeoutMs ?? MAX_AUTH_TIMEOUT_MS;
    this.leaseTtlMs = options.leaseTtlMs ?? authTimeoutMs + AUTH_OVERHEAD_MS;
    this.maxWaitMs = options.maxWaitMs ?? this.leaseTtlMs + 5_000;
    if (this.leaseTtlMs <= authTimeoutMs)
      throw new RangeError(
        `token provider: the re-authentication lease (${this.leaseTtlMs} ms) must outlast one authentication call (timeout ${authTimeoutMs} ms)`,
      );
  }

  async getToken(): Promise<string> {
    const cached = this.usable(this.cached);
    if (cached !== undefined) return cached.token;
    this.lookup ??= this.load().finally(() => {
      this.lookup = undefined;
    });
    return this.lookup;
  }

  async invalidate(token: string): Promise<void> {
    this.refused = token;
    if (this.cached?.token === token) this.cached = undefined;
  }

  /** `stored` when it may be handed out: not refused, and more than the margin left. */
  private usable(stored: StoredToken | undefined): StoredToken | undefined {
    return stored !== undefined &&
      stored.token !== this.refused &&
      stored.accessExpiresAt - this.now() > EXPIRY_MARGIN_MS
      ? stored
      : undefined;
  }

  private use(stored: StoredToken): string {
    this.cached = stored;
    return stored.token;
  }

  private async load(): Promise<string> {
    const stored = this.usable(await this.options.store.read());
    if (stored !== undefined) return this.use(stored);
    return this.reauthenticateOnce();
  }

  /** Takes the lease and authenticates, or waits for whoever holds it to store a new token. */
  private async reauthenticateOnce(): Promise<string> {
    const { lease, store } = this.options;
    let waitedMs = 0;
    for (let attempt = 0; ; attempt += 1) {
      if (await lease.acquire(REAUTH_LEASE, this.owner, this.leaseTtlMs)) {
        try {
          return await this.authenticateAndStore();
        } finally {
          await this.release();
        }
      }
      if (waitedMs >= this.maxWaitMs) throw new TokenUnavailableError(waitedMs);
      const delay = Math.round(backoffDelay(TOKEN_WAIT_BACKOFF, attempt + 1));
      await this.sleep(delay);
      waitedMs += delay;
      const latest = this.usable(await store.read());
      if (latest !== undefined) return this.use(latest);
    }
  }

  // A lease we fail to give back expires by itself; that must not cost the caller its token.
  private async release(): Promise<void> {
    try {
      await this.options.lease.release(REAUTH_LEASE, this.owner);
    } catch (error) {
      this.options.logger.warn('could not release the re-authentication lease', {
        lease: REAUTH_LEASE,
        error,
      });
    }
  }

  private async authenticateAndStore(): Promise<string> {
    const { store, auth, credentials, logger } = this.options;
    // The previous holder may have stored a token between our last read and the lease.
    const latest = await store.read();
    const current = this.usable(latest);
    if (current !== undefined) return this.use(current);
    const next = await authenticate(auth, credentials, this.now, (latest?.version ?? 0) + 1);
    const written = await store.write(next, latest?.version);
    if (written === 'written') {
      logger.info('authenticated with the gateway for all containers', { version: next.version });
      return this.use(next);
    }
    // The scheduled refresher wrote meanwhile: prefer the shared token, else keep ours.
    return this.use(this.usable(await store.read()) ?? next);
  }
}

/** A {@link StateTableTokenProvider} on the state table, with DynamoDB store and lease. */
export const stateTableTokenProvider = (
  tableName: string,
  options: Omit<StateTableTokenProviderOptions, 'store' | 'lease'> & {
    readonly client?: DynamoDBDocumentClient;
  },
): StateTableTokenProvider => {
  const { client, ...rest } = options;
  return new StateTableTokenProvider({
    ...rest,
    store: new DynamoDbTokenStore(tableName, { logger: options.logger, client }),
    lease: new DynamoDbLease(tableName, client),
  });
};
