/**
 * Where the gateway client gets its bearer token. Lambdas read the shared token from the state
 * table; the local run and scripts hold their own session ({@link SessionTokenProvider}).
 */
export interface TokenProvider {
  /** A token believed to be valid now. */
  getToken(): Promise<string>;
  /**
   * Reports that the gateway refused `token` with an authentication-family code. The next
   * `getToken()` must not return it again.
   */
  invalidate(token: string): Promise<void>;
}

/** Seconds-since-epoch `exp` claim of a JWT, or `undefined` when it has none we can read. */
export const jwtExpiry = (token: string): number | undefined => {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const exp = (claims as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
  } catch {
    return undefined;
  }
};
