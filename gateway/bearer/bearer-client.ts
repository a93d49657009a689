import { type GatewayCall, GatewayHttp, type GatewayHttpOptions } from '../envelope.ts';
import type { GatewayEnvelope } from '../schemas/lenient.ts';
import { type ResendOptions, withFreshTokenRetry } from './fresh-token-retry.ts';
import type { TokenProvider } from './token-provider.ts';

/** A bearer call of a client: its token added, retried once with a fresh one. */
export type BearerCall = (call: Omit<GatewayCall, 'auth'>) => Promise<GatewayEnvelope>;

export interface BearerGatewayClientOptions extends GatewayHttpOptions {
  /** Where bearer calls take their token, and report one the gateway refused. */
  readonly tokens: TokenProvider;
}

/**
 * What every typed gateway client starts from: the wire layer and the token provider, and bearer
 * calls that retry once with a fresh token on an authentication-family answer.
 */
export abstract class BearerGatewayClient {
  protected readonly http: GatewayHttp;
  protected readonly tokens: TokenProvider;

  constructor(options: BearerGatewayClientOptions) {
    this.http = new GatewayHttp(options);
    this.tokens = options.tokens;
  }

  /** {@link withBearer} without options, for the calls written once outside a client. */
  protected readonly bearer: BearerCall = (call) => this.withBearer(call);

  protected withBearer(call: Omit<GatewayCall, 'auth'>, options: ResendOptions = {}) {
    const { beforeSend } = options;
    return this.withToken(
      (token) =>
        this.http.call({
          ...call,
          auth: { bearer: token },
          ...(beforeSend ? { beforeWrite: beforeSend } : {}),
        }),
      options,
    );
  }

  /** Runs `operation` with a token, once more with a fresh one after an authentication answer. */
  protected withToken<T>(
    operation: (token: string) => Promise<T>,
    options: ResendOptions = {},
  ): Promise<T> {
    return withFreshTokenRetry(this.tokens, operation, options);
  }
}
