import { GatewayAuthenticationError } from '../errors.ts';
import type { GatewayAuthApi, GatewayCredentials } from '../token-api.ts';
import { jwtExpiry, type TokenProvider } from './token-provider.ts';

export interface SessionTokenProviderOptions {
  readonly auth: GatewayAuthApi;
  readonly credentials: () => Promise<GatewayCredentials> | GatewayCredentials;
  /** Epoch milliseconds; injectable for tests. */
  readonly now?: () => number;
}

const ACCESS_RENEW_BEFORE_MS = 10 * 60_000;
const REFRESH_RENEW_BEFORE_MS = 30 * 60_000;
// Lifetimes from spec 01 §5, used when a token carries no readable `exp`.
const ACCESS_LIFETIME_MS = 3_600_000;
const REFRESH_LIFETIME_MS = 25 * 3_600_000;

interface Session {
  token: string;
  accessExpiresAt: number;
  refreshToken: string;
  refreshExpiresAt: number;
}

/**
 * A token provider that keeps its own gateway session in memory: for the local run, scripts and
 * the command line (deployed Lambdas share one token through the state table instead). It renews
 * the access token 10 minutes before expiry with the refresh token, and re-authenticates when the
 * refresh token has less than 30 minutes left, when a refresh fails, or after `invalidate`.
 * Concurrent callers share one renewal.
 */
export class SessionTokenProvider implements TokenProvider {
  private session: Session | undefined;
  private renewal: Promise<string> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: SessionTokenProviderOptions) {
    this.now = options.now ?? Date.now;
  }

  async getToken(): Promise<string> {
    const session = this.session;
    if (session && session.accessExpiresAt - ACCESS_RENEW_BEFORE_MS > this.now())
      return session.token;
    this.renewal ??= this.renew().finally(() => {
      this.renewal = undefined;
    });
    return this.renewal;
  }

  async invalidate(token: string): Promise<void> {
    if (this.session?.token === token) this.session = undefined;
  }

  private async renew(): Promise<string> {
    const session = this.session;
    if (session && session.refreshExpiresAt - REFRESH_RENEW_BEFORE_MS > this.now()) {
      try {
        const { token } = await this.options.auth.refreshAccessToken(session.refreshToken);
        this.session = {
          ...session,
          token,
          accessExpiresAt: this.expiry(token, ACCESS_LIFETIME_MS),
        };
        return token;
      } catch (error) {
        // A refused refresh token falls through to a full authentication; anything else is real.
        if (!(error instanceof GatewayAuthenticationError)) throw error;
      }
    }
    const { token, refreshToken } = await this.options.auth.issueToken(
      await this.options.credentials(),
    );
    this.session = {
      token,
      accessExpiresAt: this.expiry(token, ACCESS_LIFETIME_MS),
      refreshToken,
      refreshExpiresAt: this.expiry(refreshToken, REFRESH_LIFETIME_MS),
    };
    return token;
  }

  private expiry(token: string, lifetimeMs: number): number {
    const exp = jwtExpiry(token);
    return exp === undefined ? this.now() + lifetimeMs : exp * 1000;
  }
}
