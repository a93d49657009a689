import { GatewayAuthenticationError } from '../errors.ts';
import type { TokenProvider } from './token-provider.ts';

/** Options of a call that may be sent a second time with a fresh token. */
export interface ResendOptions {
  /**
   * Runs before the call is sent again with a fresh token: a second request reaches the gateway,
   * so a sender reserves its quota here. If it throws, the call is not sent again.
   */
  readonly beforeResend?: () => Promise<void>;
  /**
   * Runs for every request of the call (the first, and a resend with a fresh token), once its
   * connection is open and its body ready, immediately before its first byte is written. Nothing
   * then stands between it and the request reaching the gateway (no token read, no S3 read, no
   * TLS handshake), so a sender takes its share of the TPS quota here. If it throws, that request
   * is not sent and the call fails with its error.
   */
  readonly beforeSend?: () => Promise<void>;
}

/**
 * Runs `operation` with a token from `tokens`; on an authentication-family answer it reports the
 * token invalid and runs once more with a fresh one (after `beforeResend`). A second refusal is
 * thrown.
 */
export const withFreshTokenRetry = async <T>(
  tokens: TokenProvider,
  operation: (token: string) => Promise<T>,
  options: ResendOptions = {},
): Promise<T> => {
  const token = await tokens.getToken();
  try {
    return await operation(token);
  } catch (error) {
    if (!(error instanceof GatewayAuthenticationError)) throw error;
    await tokens.invalidate(token);
  }
  const fresh = await tokens.getToken();
  await options.beforeResend?.();
  try {
    return await operation(fresh);
  } catch (error) {
    if (error instanceof GatewayAuthenticationError) await tokens.invalidate(fresh);
    throw error;
  }
};
