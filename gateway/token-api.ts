import { hashApiPassword, newRandomStr } from '../protocol/api-password.ts';
import { type Endpoint, GatewayHttp, type GatewayHttpOptions, parseData } from './envelope.ts';
import { GatewayAuthenticationError } from './errors.ts';
// The schema modules themselves, not `schemas/index.ts`: a Lambda bundle builds every schema of
// every module it reaches, at start (docs/performance.md, `cold-start`).
import { TokenIssueDataSchema, TokenRefreshDataSchema } from './schemas/auth.ts';

const ISSUE: Endpoint = { host: 'api', method: 'POST', path: '/auth/v1/{randomStr}' };
const REFRESH: Endpoint = { host: 'api', method: 'PUT', path: '/auth/v1/refresh' };
/** The gateway failed to create the token: its fault, not the request's (field notes). */
const TOKEN_CREATION_ERROR = '20003';

export interface GatewayCredentials {
  readonly apiKey: string;
  readonly apiPassword: string;
}

/** Token issuance and refresh (spec 01 §4.1, §4.2): the only calls made without a bearer token. */
export class GatewayAuthApi {
  private readonly http: GatewayHttp;

  constructor(options: GatewayHttpOptions | GatewayHttp) {
    this.http = options instanceof GatewayHttp ? options : new GatewayHttp(options);
  }

  /**
   * Authenticates with a fresh `randomStr`; answers the access and refresh tokens. A `20003`
   * (the gateway failed to create the token) is asked once more, then thrown: the field notes'
   * "get a fresh token once, then fail loudly". The other refusals (`20000` key, `20001` address,
   * `20002` password) are thrown at once: a second identical request cannot change them.
   */
  async issueToken(
    credentials: GatewayCredentials,
  ): Promise<{ token: string; refreshToken: string }> {
    try {
      return await this.issueOnce(credentials);
    } catch (error) {
      if (!(error instanceof GatewayAuthenticationError && error.code === TOKEN_CREATION_ERROR))
        throw error;
      return this.issueOnce(credentials);
    }
  }

  private async issueOnce(
    credentials: GatewayCredentials,
  ): Promise<{ token: string; refreshToken: string }> {
    const randomStr = newRandomStr();
    const envelope = await this.http.call({
      endpoint: ISSUE,
      auth: 'none',
      pathParams: { randomStr },
      json: {
        apiKey: credentials.apiKey,
        apiPwd: hashApiPassword(credentials.apiPassword, randomStr),
      },
    });
    return parseData(TokenIssueDataSchema, envelope.data, ISSUE);
  }

  /** A new access token for a refresh token; the refresh token itself is not renewed. */
  async refreshAccessToken(refreshToken: string): Promise<{ token: string }> {
    const envelope = await this.http.call({ endpoint: REFRESH, auth: { bearer: refreshToken } });
    return parseData(TokenRefreshDataSchema, envelope.data, REFRESH);
  }
}
