import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import type { WebhookKind } from '../received-items/receive-items.ts';

/** What a receiver is invoked with: API Gateway's REST proxy event or a function URL's. */
export type WebhookEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** One webhook request, whichever front door it came through. */
export interface WebhookRequest {
  /**
   * The secret path segment, or `undefined` when the path is not `/webhooks/<secret>/<kind>` of
   * this receiver (a function URL serves every path; API Gateway routes only the two).
   */
  readonly secret: string | undefined;
  /** `POST`, as the routes accept; API Gateway's REST routes admit nothing else. */
  readonly method: string | undefined;
  readonly sourceIp: string | undefined;
  /**
   * The body as the receivers take it: the text the front door passed, or the bytes when it
   * base64-encoded them (read as UTF-8 by the receiver, so bytes that are not UTF-8 stay as
   * they are).
   */
  readonly body: string | Uint8Array | null | undefined;
  /** The `Content-Encoding` header, lower case, when the request has one. */
  readonly contentEncoding: string | undefined;
  /** The body's size in bytes as it arrived (after base64 decoding): what `maxBodyBytes` limits. */
  readonly bodyBytes: number;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * The body and its size. Either front door sets `isBase64Encoded` for content types it does not
 * take for text; the decoded bytes are read as UTF-8, as the gateway sends JSON. A text body is
 * passed on exactly as it came, so a body that is not valid JSON is quarantined unchanged.
 */
const bodyOf = (
  event: Record<string, unknown>,
): Pick<WebhookRequest, 'body' | 'bodyBytes' | 'contentEncoding'> => {
  const headers = record(event.headers) ?? {};
  // Function URLs give header names in lower case, API Gateway's REST API as the client sent them.
  const encoding = Object.entries(headers).find(
    ([name]) => name.toLowerCase() === 'content-encoding',
  )?.[1];
  const contentEncoding = text(encoding)?.trim().toLowerCase() || undefined;
  const body = text(event.body);
  if (body === undefined)
    return { body: event.body === null ? null : undefined, bodyBytes: 0, contentEncoding };
  if (body === '' || event.isBase64Encoded !== true)
    return { body, bodyBytes: Buffer.byteLength(body, 'utf8'), contentEncoding };
  const bytes = Buffer.from(body, 'base64');
  return { body: new Uint8Array(bytes), bodyBytes: bytes.length, contentEncoding };
};

/**
 * The secret of `/webhooks/<secret>/<kind>`, percent-decoded as API Gateway decodes path
 * parameters; `undefined` for any other path, a malformed escape or an empty segment.
 */
const secretInPath = (rawPath: string, kind: WebhookKind): string | undefined => {
  const segments = rawPath.split('/');
  if (segments.length !== 4 || segments[0] !== '' || segments[1] !== 'webhooks') return undefined;
  if (segments[3] !== kind || !segments[2]) return undefined;
  try {
    return decodeURIComponent(segments[2]);
  } catch {
    return undefined;
  }
};

/** True for a function URL (payload format 2.0) event. */
const isFunctionUrlEvent = (event: Record<string, unknown>): boolean => event.version === '2.0';

/**
 * The request of either event shape: a function URL's (payload format 2.0: `rawPath`,
 * `requestContext.http.method` and `.sourceIp`) or API Gateway's REST proxy event
 * (`pathParameters.secret`, `httpMethod`, `requestContext.identity.sourceIp`). Anything else,
 * whatever its shape, reads as a request without a secret, which is answered 404.
 */
export const webhookRequestOf = (event: unknown, kind: WebhookKind): WebhookRequest => {
  const fields = record(event) ?? {};
  const context = record(fields.requestContext);
  if (isFunctionUrlEvent(fields)) {
    const http = record(context?.http);
    const rawPath = text(fields.rawPath);
    return {
      secret: rawPath === undefined ? undefined : secretInPath(rawPath, kind),
      method: text(http?.method),
      sourceIp: text(http?.sourceIp),
      ...bodyOf(fields),
    };
  }
  return {
    secret: text(record(fields.pathParameters)?.secret),
    method: text(fields.httpMethod) ?? 'POST',
    sourceIp: text(record(context?.identity)?.sourceIp),
    ...bodyOf(fields),
  };
};
