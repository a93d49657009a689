import { BearerGatewayClient } from './bearer/bearer-client.ts';
import type { Endpoint, GatewayHttp } from './envelope.ts';
import type { StreamedAttachment } from './transport.ts';

/** An MO's file, spec 01 §4.14 (valid 7 days after the MO). */
const MO_FILE: Endpoint = { host: 'api', method: 'GET', path: '/mo/v1/file/{moKey}' };

/**
 * Streams the file of an MO with `token`. Spec 01 §4.14 names only the moKey, no parameter to pick
 * one of several attachments: read as the first (or only) one (docs/gateway-client.md).
 */
export const downloadMoFileWith = (http: GatewayHttp, token: string, moKey: string) =>
  http.download({ endpoint: MO_FILE, auth: { bearer: token }, pathParams: { moKey } });

/**
 * The gateway client of the functions that only download MO files (`fetch-attachments`,
 * `sweep-attachments`): the one call of {@link GatewayClient} they make, without the schemas and
 * methods of every other endpoint, which their cold start would read (docs/performance.md,
 * `cold-start`). The same token handling: a fresh token and one retry after an authentication
 * answer.
 */
export class GatewayMoFileClient extends BearerGatewayClient {
  /** Streams the file of an MO; the caller consumes or destroys `body`. */
  downloadMoFile(moKey: string): Promise<StreamedAttachment> {
    return this.withToken((token) => downloadMoFileWith(this.http, token, moKey));
  }
}
