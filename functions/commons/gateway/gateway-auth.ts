import { hashApiPassword, newRandomStr } from '../../../protocol/api-password.ts';
import { type Endpoint, GatewayHttp, type GatewayHttpOptions, parseData } from './gateway-http.ts';
import { TokenIssueDataSchema, TokenRefreshDataSchema } from './schemas/index.ts';

const ISSUE: Endpoint = { host: 'api', method: 'POST', path: '/auth/v1/{randomStr}' };
const REFRESH: Endpoint = { host: 'api', method: 'PUT', path: '/auth/v1/refresh' };

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

  /** Authenticates with a fresh `randomStr`; answers the access and refresh tokens. */
  async issueToken(
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
