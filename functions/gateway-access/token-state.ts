import { jwtExpiry } from '../../gateway/bearer/token-provider.ts';
import * as z from '../../gateway/schemas/zod.ts';
import type { GatewayAuthApi, GatewayCredentials } from '../../gateway/token-api.ts';
import { stateKeys } from '../commons/table-keys.ts';

/** Partition key of the one gateway token item in the state table. */
export const TOKEN_STATE_KEY = stateKeys.token;

/** Renew the access token when it has less than this left (spec 01 §5: 10 minutes). */
export const ACCESS_RENEW_BEFORE_MS = 10 * 60_000;
/** Re-authenticate instead of refreshing when the refresh token has less than this left (30 min). */
export const REFRESH_RENEW_BEFORE_MS = 30 * 60_000;
// Lifetimes from spec 01 §5, used only when a token carries no readable `exp`.
const ACCESS_LIFETIME_MS = 3_600_000;
const REFRESH_LIFETIME_MS = 25 * 3_600_000;

/**
 * The shared gateway session as stored in the state table (`pk = TOKEN#gateway`). Times are epoch
 * milliseconds; `version` grows by one with every write and guards each write (compare-and-set).
 */
export const StoredTokenSchema = z.object({
  token: z.string().check(z.minLength(1)),
  accessExpiresAt: z.int(),
  refreshToken: z.string().check(z.minLength(1)),
  refreshExpiresAt: z.int(),
  version: z.int().check(z.minimum(1)),
  updatedAt: z.int(),
});
export type StoredToken = z.infer<typeof StoredTokenSchema>;

/** Where the shared token lives. Implemented by `DynamoDbTokenStore`. */
export interface TokenStore {
  /** The stored token, or `undefined` when there is none or the item cannot be read. */
  read(): Promise<StoredToken | undefined>;
  /**
   * Writes `next` only if the stored version is still `expectedVersion` (`undefined`: only if
   * there is no readable item), so a writer that lost a race never overwrites a newer token.
   */
  write(next: StoredToken, expectedVersion: number | undefined): Promise<'written' | 'stale'>;
}

/** The gateway calls that produce tokens (spec 01 §4.1, §4.2); `GatewayAuthApi` implements them. */
export type TokenIssuer = Pick<GatewayAuthApi, 'issueToken' | 'refreshAccessToken'>;

/** Where the gateway credentials come from (Secrets Manager, cached, in a Lambda). */
export type CredentialsSource = () => Promise<GatewayCredentials> | GatewayCredentials;

/** When a token expires, in epoch ms: its JWT `exp`, or the documented lifetime from `now`. */
export const tokenExpiresAt = (token: string, lifetimeMs: number, now: number): number => {
  const exp = jwtExpiry(token);
  return exp === undefined ? now + lifetimeMs : exp * 1000;
};

/** Whole minutes left on the stored access token at `now` (0 once it has expired). */
export const minutesLeft = (stored: StoredToken | undefined, now: number): number =>
  stored === undefined ? 0 : Math.max(0, Math.floor((stored.accessExpiresAt - now) / 60_000));

/** Authenticates from scratch (spec 01 §4.1) and returns the item to store as `version`. */
export const authenticate = async (
  auth: Pick<TokenIssuer, 'issueToken'>,
  credentials: CredentialsSource,
  now: () => number,
  version: number,
): Promise<StoredToken> => {
  const issued = await auth.issueToken(await credentials());
  const at = now();
  return {
    token: issued.token,
    accessExpiresAt: tokenExpiresAt(issued.token, ACCESS_LIFETIME_MS, at),
    refreshToken: issued.refreshToken,
    refreshExpiresAt: tokenExpiresAt(issued.refreshToken, REFRESH_LIFETIME_MS, at),
    version,
    updatedAt: at,
  };
};

/** Renews the access token with the stored refresh token (spec 01 §4.2); the refresh token stays. */
export const refreshAccess = async (
  auth: Pick<TokenIssuer, 'refreshAccessToken'>,
  current: StoredToken,
  now: () => number,
): Promise<StoredToken> => {
  const { token } = await auth.refreshAccessToken(current.refreshToken);
  const at = now();
  return {
    ...current,
    token,
    accessExpiresAt: tokenExpiresAt(token, ACCESS_LIFETIME_MS, at),
    version: current.version + 1,
    updatedAt: at,
  };
};
