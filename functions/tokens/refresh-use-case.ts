import { GatewayAuthenticationError } from '../../gateway/errors.ts';
import {
  ACCESS_RENEW_BEFORE_MS,
  authenticate,
  type CredentialsSource,
  minutesLeft,
  REFRESH_RENEW_BEFORE_MS,
  refreshAccess,
  type StoredToken,
  type TokenIssuer,
  type TokenStore,
} from '../gateway-access/token-state.ts';

/** What a refresh run did. */
export type RefreshOutcome = 'unchanged' | 'refreshed' | 'reauthenticated' | 'lost-race';

export interface RefreshResult {
  readonly outcome: RefreshOutcome;
  /** Whole minutes left on the access token now stored (ours, or the newer one that won). */
  readonly minutesLeft: number;
  /** Version of the stored token after the run. */
  readonly version: number;
}

/** The things a log line of this use case may say; never a token. */
export interface RefreshLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface RefreshTokenDeps {
  readonly store: TokenStore;
  readonly auth: TokenIssuer;
  readonly credentials: CredentialsSource;
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly logger: RefreshLogger;
}

/** A write lost its race, and the token that won could not be read back. */
export class TokenStateConflictError extends Error {
  override readonly name = 'TokenStateConflictError';
  constructor(readonly expectedVersion: number | undefined) {
    super(
      `the stored gateway token changed while it was being renewed (expected version ${String(expectedVersion)}), and no readable token is stored now`,
    );
  }
}

/**
 * Keeps the one shared gateway token current.
 *
 * Input: the token store, the gateway's token calls, the credentials, a clock.
 * Output: what was done and the minutes left on the stored access token.
 * Primary course: read the stored token; when its access token has 10 minutes or more left, do
 * nothing. Otherwise refresh it with the refresh token — or authenticate from scratch when there
 * is no token, when the refresh token has less than 30 minutes left, or when the gateway refuses
 * the refresh (authentication family). Write the result only over the version that was read; when
 * another refresher wrote first, keep its token (`lost-race`).
 * Errors: any other gateway or store failure is thrown, so the schedule's retry sees it.
 */
export const refreshToken = async (deps: RefreshTokenDeps): Promise<RefreshResult> => {
  const { store, logger, now } = deps;
  const current = await store.read();
  if (current !== undefined && current.accessExpiresAt - now() >= ACCESS_RENEW_BEFORE_MS) {
    return {
      outcome: 'unchanged',
      minutesLeft: minutesLeft(current, now()),
      version: current.version,
    };
  }

  const { next, outcome } = await renew(deps, current);
  const written = await store.write(next, current?.version);
  if (written === 'written') {
    logger.info('gateway token renewed', {
      outcome,
      version: next.version,
      minutesLeft: minutesLeft(next, now()),
    });
    return { outcome, minutesLeft: minutesLeft(next, now()), version: next.version };
  }

  const winner = await store.read();
  if (winner === undefined) throw new TokenStateConflictError(current?.version);
  logger.info('another refresher stored a newer gateway token; keeping it', {
    version: winner.version,
    discarded: outcome,
  });
  return { outcome: 'lost-race', minutesLeft: minutesLeft(winner, now()), version: winner.version };
};

const renew = async (
  deps: RefreshTokenDeps,
  current: StoredToken | undefined,
): Promise<{ next: StoredToken; outcome: 'refreshed' | 'reauthenticated' }> => {
  const { auth, credentials, now, logger } = deps;
  const nextVersion = (current?.version ?? 0) + 1;
  if (current === undefined) {
    logger.info('no gateway token stored; authenticating');
  } else if (current.refreshExpiresAt - now() < REFRESH_RENEW_BEFORE_MS) {
    logger.info('refresh token near its end; authenticating', {
      refreshMinutesLeft: Math.floor((current.refreshExpiresAt - now()) / 60_000),
    });
  } else {
    try {
      return { next: await refreshAccess(auth, current, now), outcome: 'refreshed' };
    } catch (error) {
      // A refused refresh token (expired, revoked, new source IP) is what re-authentication is
      // for; any other failure is real and must reach the schedule's retry.
      if (!(error instanceof GatewayAuthenticationError)) throw error;
      logger.warn('gateway refused the refresh token; authenticating', {
        code: error.code,
        endpoint: error.endpoint,
      });
    }
  }
  return {
    next: await authenticate(auth, credentials, now, nextVersion),
    outcome: 'reauthenticated',
  };
};
