/**
 * The events the deployed webhook front doors hand a receiver, built from a request on the local
 * webhook server (local/webhook-server.ts): a function URL's (payload format 2.0, a binary body
 * base64-encoded) or API Gateway's REST proxy event, and whether Lambda would take one as its
 * invoke payload.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { LAMBDA_PAYLOAD_BYTES } from '../functions/webhooks/handler.ts';

/** The front door the webhooks are deployed behind (the template's function URLs or REST API). */
export type WebhookFrontDoor = 'function-url' | 'rest-api';

/** Content types a function URL passes as text; any other body arrives base64-encoded. */
const TEXT_CONTENT = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)\b)/i;

/**
 * True when a function URL passes the body as text. A compressed body is a binary payload
 * whatever its content type says of what is inside.
 */
export const isTextBody = (
  contentType: string | undefined,
  contentEncoding: string | undefined,
): boolean =>
  TEXT_CONTENT.test(contentType ?? '') && /^\s*(identity)?\s*$/i.test(contentEncoding ?? '');

/**
 * True when Lambda would refuse to be invoked with `event`. Its synchronous invocation payload
 * (request and response, 6 MB each; Lambda quotas,
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html, read 2026-12-07) is the
 * Invoke request's body, the event as a JSON document ("Payload: JSON that you want to provide to
 * your Lambda function as input"; past the limit `RequestTooLargeException`, HTTP 413: Invoke,
 * https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html, read 2026-12-07). So the measure
 * is the UTF-8 bytes of the event's JSON, not of the HTTP body: a function URL's event carries a
 * binary body base64-encoded ("If the content type of the request is binary, the body is
 * base64-encoded", https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html, read
 * 2026-12-07), a text body as an escaped JSON string, and the request's headers and context
 * besides. The limit in bytes is in Lambda's refusal, "Request must be smaller than 6291456 bytes
 * for the InvokeFunction operation" (quoted in
 * https://zaccharles.medium.com/deep-dive-lambdas-request-payload-size-limit-2-2-6350c1ae5577,
 * read 2026-12-07): 6 MiB, and an event of exactly that is refused. AWS's own serialization of the
 * event (its key order, the headers it adds) is not documented: at the boundary the deployed event
 * can differ from this one by the size of a few headers.
 */
export const exceedsInvokePayload = (event: unknown): boolean =>
  Buffer.byteLength(JSON.stringify(event), 'utf8') >= LAMBDA_PAYLOAD_BYTES;

/** The event API Gateway's REST proxy integration hands its function for a webhook route. */
export const toApiGatewayEvent = (
  request: IncomingMessage,
  url: URL,
  secret: string,
  route: 'report' | 'mo',
  body: Buffer,
): APIGatewayProxyEvent => {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
  return {
    resource: `/webhooks/{secret}/${route}`,
    path: url.pathname,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: {},
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : null,
    multiValueQueryStringParameters: null,
    pathParameters: { secret },
    stageVariables: null,
    isBase64Encoded: false,
    body: body.length > 0 ? body.toString('utf8') : null,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: 'POST',
      identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1' },
      path: url.pathname,
      stage: 'local',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: `/webhooks/{secret}/${route}`,
    },
  } as unknown as APIGatewayProxyEvent;
};

/** The event a function URL hands its function (payload format 2.0). */
export const toFunctionUrlEvent = (
  request: IncomingMessage,
  url: URL,
  body: Buffer,
): APIGatewayProxyEventV2 => {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name.toLowerCase(),
      Array.isArray(value) ? value.join(',') : (value ?? ''),
    ]),
  );
  const text = isTextBody(headers['content-type'], headers['content-encoding']);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0
      ? { body: text ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !text }
      : { isBase64Encoded: false }),
  } as APIGatewayProxyEventV2;
};
