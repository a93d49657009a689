import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
} from 'aws-lambda';
import { json, LAMBDA_PAYLOAD_BYTES, NOT_FOUND } from '../functions/webhooks/handler.ts';

/** A receiver's handler, invoked with the event of the deployed front door. */
export type WebhookFunction = (
  event: APIGatewayProxyEvent | APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyResult>;

/** The front door the webhooks are deployed behind (the template's function URLs or REST API). */
export type WebhookFrontDoor = 'function-url' | 'rest-api';

/**
 * A REST API refuses a payload above 10 MB with 413 before any integration runs (API Gateway
 * quotas, "Payload size 10 MB", https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html,
 * read 2026-12-07).
 */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The largest binary body whose base64 text alone (4 characters for every 3 bytes) is within
 * Lambda's invoke payload: a function URL puts a binary body in its event base64-encoded, so a
 * larger one can never fit, whatever the rest of the event.
 */
const LARGEST_BASE64_BODY = Math.floor(LAMBDA_PAYLOAD_BYTES / 4) * 3;

/**
 * API Gateway gives the whole request, integration included, 29 s; a client still sending its
 * body after 30 s is answered 408 and dropped, so a slow sender cannot hold a socket for ever.
 */
const REQUEST_TIMEOUT_MS = 30_000;

export interface WebhookServerOptions {
  readonly host?: string;
  /** 0 picks an ephemeral port. */
  readonly port?: number;
  /** The handlers behind `POST /webhooks/{secret}/report` and `POST /webhooks/{secret}/mo`. */
  readonly handlers: { readonly report: WebhookFunction; readonly mo: WebhookFunction };
  /**
   * How the requests reach the handlers: a function URL's event (payload format 2.0, 6 MB
   * payload limit) or API Gateway's REST proxy event (10 MB). @default 'function-url'
   */
  readonly front?: WebhookFrontDoor;
  /**
   * `POST /_bridge/replay`: the local run's stand-in for an archive replay (`msgbridge events
   * replay`). Answered only to loopback callers.
   */
  readonly replay?: (body: unknown) => Promise<{ statusCode: number; body: unknown }>;
  /**
   * `GET /_bridge/status`: the state of the deployment's event source mappings and schedules
   * (`msgbridge doctor --local`). Answered only to loopback callers.
   */
  readonly status?: () => unknown;
  /**
   * The per-run token every control route (`/_bridge/…`) requires, as `Authorization: Bearer
   * <token>`; the local run writes it to its owner-only `bridge.json`, where the CLI reads it.
   * Without one the control routes answer nobody.
   */
  readonly controlToken?: string;
  /** Time a client has to send its headers and whole body. @default 30_000 */
  readonly requestTimeoutMs?: number;
  /**
   * Path prefixes a handler will be mounted at once the run is up (`/console`): until then they
   * answer 503 with `Retry-After` and a page that reloads itself, never a 404.
   * @default none
   */
  readonly reservedMounts?: readonly string[];
}

export interface WebhookServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The report and MO webhook URLs for a given secret. */
  webhookUrls(secret: string): { report: string; mo: string };
  /**
   * Serves every request under `prefix` (`/console`) with `handler`, which reads the request and
   * answers it itself (the operator console).
   */
  mount(prefix: string, handler: MountedHandler): void;
  close(): Promise<void>;
}

/** A handler mounted under a path prefix: it answers the request itself. */
export type MountedHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

const ROUTE = /^\/webhooks\/([^/]+)\/(report|mo)$/;

/** The body went over what the front door takes at all; answered 413 as it does. */
class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/** The client went away before its body was complete: there is nobody left to answer. */
class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

const TOO_LARGE = json(413, { message: 'Request Too Long' });

/**
 * What the client gets when Lambda refuses the invoke because the event is over its payload limit,
 * before the function runs. A function URL answers with the status of Lambda's
 * `RequestTooLargeException`, 413 (Lambda API reference, Invoke, "Errors",
 * https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html, read 2026-12-07); the body it
 * sends is not in the documentation read, so this one is API Gateway's words, and the gateway
 * reads only the status. Behind a REST API, "If the Lambda API rejects the invocation request, API
 * Gateway returns a 500 error code" with `{"message": "Internal server error"}`
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html, read 2026-12-07).
 */
const INVOKE_REFUSED: Readonly<Record<WebhookFrontDoor, APIGatewayProxyResult>> = {
  'function-url': TOO_LARGE,
  'rest-api': json(500, { message: 'Internal server error' }),
};

/**
 * The deployed webhook front door on a local port: each request becomes the event the Lambda
 * receives behind it (a function URL's, or API Gateway's REST proxy event), and the handler's
 * answer is sent back as is.
 *
 * No request can take the process down: every path through the request listener ends in an
 * answer or a closed socket, never in a rejected promise. What the front door itself answers (413
 * for a payload over its limit, 502 for a failing function; API Gateway's 404 for an unknown
 * route) is answered the same way here; a client that hangs up or stalls mid-body is dropped.
 * Lambda's 6 MB is measured on the event built, not on the body, and an event over it is refused
 * as the deployed front door refuses it (413 from a function URL, 500 from the REST API) without
 * invoking the handler. No more of a body is held than could fit in an event.
 */
export const startWebhookServer = async (options: WebhookServerOptions): Promise<WebhookServer> => {
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // A reserved prefix answers "starting" until `mount` puts its handler in place.
  const mounts = new Map<string, MountedHandler>(
    (options.reservedMounts ?? []).map((prefix) => [prefix, STARTING]),
  );
  const server: Server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 10_000),
      // Node checks the two timeouts above only this often (30 s by default).
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(requestTimeout / 4))),
    },
    (request, response) => {
      const mounted = mountedFor(mounts, request.url);
      if (mounted !== undefined) {
        void mounted(request, response).catch((error: unknown) => {
          console.error('mounted route failed', describeError(error));
          if (!response.headersSent)
            respond(response, json(500, { message: 'Internal server error' }));
          else response.destroy();
        });
        return;
      }
      void serve(request, response, options).catch((error: unknown) => {
        console.error('webhook server: request failed', describeError(error));
        respond(response, json(500, { message: 'Internal server error' }));
      });
    },
  );
  // A socket kept open without a request (keep-alive, or never sending one) is closed as well.
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Node's default answers a parse error 400, oversized headers 431 and a header timeout 408;
    // do the same, quietly.
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large']
          : [400, 'Bad Request'];
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('webhook server has no TCP address');
  const url = `http://${options.host ?? '127.0.0.1'}:${address.port}`;
  return {
    url,
    webhookUrls: (secret) => ({
      report: `${url}/webhooks/${encodeURIComponent(secret)}/report`,
      mo: `${url}/webhooks/${encodeURIComponent(secret)}/mo`,
    }),
    mount: (prefix, handler) => {
      mounts.set(prefix, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** What a reserved prefix answers until its handler is mounted. */
const STARTING: MountedHandler = async (_request, response) => {
  response
    .writeHead(503, {
      'content-type': 'text/html; charset=utf-8',
      'retry-after': '1',
      'cache-control': 'no-store',
    })
    .end(
      '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="1"><title>msgbridge is starting</title><p>msgbridge is starting; this page reloads by itself.</p>',
    );
};

/** The handler mounted at the path's prefix (`/console`, `/console/…`), if any. */
const mountedFor = (
  mounts: ReadonlyMap<string, MountedHandler>,
  raw: string | undefined,
): MountedHandler | undefined => {
  const path = pathOf(raw)?.pathname;
  if (path === undefined) return undefined;
  for (const [prefix, handler] of mounts) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return handler;
  }
  return undefined;
};

const serve = async (
  request: IncomingMessage,
  response: ServerResponse,
  options: WebhookServerOptions,
): Promise<void> => {
  // A request line like `//x` is no URL relative to any base; it is nobody's route.
  const path = pathOf(request.url);
  let read: ReadBody;
  const front = options.front ?? 'function-url';
  try {
    read = await readBody(request, bodyLimits(front, request.headers));
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      // Close after answering: the rest of the body is not worth reading.
      respond(response, TOO_LARGE, { close: true });
    } else {
      response.destroy();
    }
    return;
  }
  const answer =
    path === undefined
      ? NOT_FOUND
      : path.pathname.startsWith('/_bridge/')
        ? read.kind === 'body'
          ? await control(request, path.pathname, read.body, options)
          : TOO_LARGE
        : await handle(request, path, read, options.handlers, front);
  respond(response, answer);
};

/**
 * How much of a body the front door reads: `keep`, the most that could still fit in the event the
 * function would be invoked with (a longer body's bytes are counted and dropped: its answer no
 * longer depends on them); `refuseAbove`, where the front door refuses the request itself and
 * reading stops. A function URL answers an event too large for Lambda with 413 either way, so it
 * stops at `keep`; API Gateway takes up to 10 MB (413 above), and only then does Lambda refuse
 * the event (500).
 */
interface BodyLimits {
  readonly keep: number;
  readonly refuseAbove: number;
}

const bodyLimits = (front: WebhookFrontDoor, headers: IncomingMessage['headers']): BodyLimits => {
  // No body takes fewer bytes in the event than on the wire: text becomes a JSON string (escaped,
  // bytes that are not UTF-8 read as U+FFFD's three), binary its base64, a third more. The REST
  // API has no binary media types, so it passes every body as text.
  if (front === 'rest-api')
    return { keep: LAMBDA_PAYLOAD_BYTES, refuseAbove: API_GATEWAY_MAX_BODY_BYTES };
  const keep = isTextBody(headers['content-type'], headers['content-encoding'])
    ? LAMBDA_PAYLOAD_BYTES
    : LARGEST_BASE64_BODY;
  return { keep, refuseAbove: keep };
};

/** A whole body, or the size of one too large to fit in any event (its bytes are not kept). */
type ReadBody =
  | { readonly kind: 'body'; readonly body: Buffer }
  | { readonly kind: 'over-event'; readonly bytes: number };

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
const exceedsInvokePayload = (event: unknown): boolean =>
  Buffer.byteLength(JSON.stringify(event), 'utf8') >= LAMBDA_PAYLOAD_BYTES;

const pathOf = (raw: string | undefined): URL | undefined => {
  try {
    return new URL(raw ?? '/', 'http://local');
  } catch {
    return undefined;
  }
};

/** Sends an answer unless the client is gone; a failed write only loses that client's answer. */
const respond = (
  response: ServerResponse,
  answer: APIGatewayProxyResult,
  { close = false }: { readonly close?: boolean } = {},
): void => {
  if (response.headersSent || response.destroyed || response.writableEnded) return;
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name] = String(value);
    if (close) headers.connection = 'close';
    response.writeHead(answer.statusCode, headers);
    response.end(answer.body, () => {
      if (close) response.socket?.destroySoon();
    });
  } catch (error) {
    console.error('webhook server: could not answer', describeError(error));
    response.destroy();
  }
};

const handle = async (
  request: IncomingMessage,
  url: URL,
  read: ReadBody,
  handlers: WebhookServerOptions['handlers'],
  front: WebhookFrontDoor,
): Promise<APIGatewayProxyResult> => {
  const match = ROUTE.exec(url.pathname);
  if (front === 'function-url') {
    // A function URL serves every path and method: the receiver of the route's kind decides.
    const route = match?.[2] ?? (url.pathname.endsWith('/mo') ? 'mo' : 'report');
    if (read.kind !== 'body') return refuseInvoke(front, read.bytes);
    const event = toFunctionUrlEvent(request, url, read.body);
    if (exceedsInvokePayload(event)) return refuseInvoke(front, read.body.length);
    try {
      return await (route === 'report' ? handlers.report(event) : handlers.mo(event));
    } catch (error) {
      console.error('webhook function failed', describeError(error));
      return json(502, { Message: null });
    }
  }
  if (!match) return NOT_FOUND;
  if (request.method !== 'POST') return json(405, { message: 'Method Not Allowed' });
  if (read.kind !== 'body') return refuseInvoke(front, read.bytes);
  const [, secret = '', route] = match;
  const event = toApiGatewayEvent(
    request,
    url,
    decodeSegment(secret),
    route === 'report' ? 'report' : 'mo',
    read.body,
  );
  if (exceedsInvokePayload(event)) return refuseInvoke(front, read.body.length);
  try {
    return await (route === 'report' ? handlers.report(event) : handlers.mo(event));
  } catch (error) {
    // What API Gateway answers when the Lambda itself fails.
    console.error('webhook handler failed', describeError(error));
    return { statusCode: 502, body: JSON.stringify({ message: 'Internal server error' }) };
  }
};

/**
 * The deployed front door's answer to an event Lambda refuses, logged here because in AWS no
 * receiver runs to log it (the function URL's `Url4xxCount` or the stage's `5XXError` counts it).
 */
const refuseInvoke = (front: WebhookFrontDoor, bodyBytes: number): APIGatewayProxyResult => {
  console.error(
    `webhook server: a ${bodyBytes}-byte body makes an event of at least Lambda's ${LAMBDA_PAYLOAD_BYTES}-byte invoke payload; answered ${INVOKE_REFUSED[front].statusCode} as the ${front} front door does, the receiver not invoked`,
  );
  return INVOKE_REFUSED[front];
};

/**
 * A path segment as API Gateway hands `{secret}` to the integration: decoded when it can be. A
 * malformed escape (`%E0%A4%A`) is passed on as it came, so the receiver's secret check answers
 * it like any other wrong secret (404).
 */
const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** A Host header that names this machine: what a DNS-rebinding page cannot send. */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/;

/**
 * Why a request may not use a control route, or `undefined` when it may: from a loopback address,
 * addressed to a loopback host (a page that rebinds its own name to 127.0.0.1 still sends that
 * name), from no other web origin, carrying the run's token; and a body, if any, in JSON, which a
 * web page cannot post across origins without a preflight that this server never answers.
 */
const controlRefusal = (
  request: IncomingMessage,
  body: Buffer,
  token: string | undefined,
): APIGatewayProxyResult | undefined => {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? ''))
    return json(403, { message: 'control routes answer loopback callers only' });
  const host = request.headers.host ?? '';
  if (!LOOPBACK_HOST.test(host))
    return json(403, {
      message: 'control routes answer requests addressed to 127.0.0.1 or localhost only',
    });
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    return json(403, { message: 'control routes answer no other web origin' });
  const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  if (token === undefined || !sameToken(given, token))
    return json(401, { message: "control routes need the run's token (bridge.json controlToken)" });
  if (body.length > 0 && !/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? ''))
    return json(415, { message: 'control routes take application/json only' });
  return undefined;
};

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The control routes of the local run, for the CLI on the same machine. */
const control = async (
  request: IncomingMessage,
  path: string,
  body: Buffer,
  options: WebhookServerOptions,
): Promise<APIGatewayProxyResult> => {
  const refusal = controlRefusal(request, body, options.controlToken);
  if (refusal !== undefined) return refusal;
  if (path === '/_bridge/status' && options.status) {
    if (request.method !== 'GET') return json(405, { message: 'Method Not Allowed' });
    return json(200, options.status());
  }
  const route = path === '/_bridge/replay' ? options.replay : undefined;
  if (route === undefined) return NOT_FOUND;
  if (request.method !== 'POST') return json(405, { message: 'Method Not Allowed' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return json(400, { message: 'the body is not JSON' });
  }
  try {
    const result = await route(parsed);
    return json(result.statusCode, result.body);
  } catch (error) {
    console.error(`${path} failed`, describeError(error));
    return json(500, { message: `${path} failed` });
  }
};

/**
 * The body, read within `limits`: a declared length above `refuseAbove` is refused before a byte
 * is read, and a chunked body as soon as it grows past it; past `keep` the bytes are counted and
 * dropped, so no more than one event's worth is ever held. Rejects with
 * {@link BodyTooLargeError} or, when the client hangs up or stalls, {@link ClientGoneError}.
 */
const readBody = (request: IncomingMessage, limits: BodyLimits): Promise<ReadBody> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limits.refuseAbove) {
      request.resume();
      reject(new BodyTooLargeError(`declared ${declared} bytes`));
      return;
    }
    let chunks: Buffer[] | undefined = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('aborted', onGone);
      request.off('close', onClose);
      // Keep a listener so a late socket error on this request is never unhandled.
      request.on('error', () => undefined);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.refuseAbove) {
        request.pause();
        finish(() => reject(new BodyTooLargeError(`more than ${limits.refuseAbove} bytes`)));
        return;
      }
      if (size > limits.keep) chunks = undefined;
      else chunks?.push(chunk);
    };
    const onEnd = () =>
      finish(() =>
        resolve(
          chunks === undefined
            ? { kind: 'over-event', bytes: size }
            : { kind: 'body', body: Buffer.concat(chunks) },
        ),
      );
    const onGone = () => finish(() => reject(new ClientGoneError('the client went away')));
    const onClose = () => {
      if (!request.complete) onGone();
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('aborted', onGone);
    request.on('close', onClose);
  });

/** An error for the log without its stack's noise; never the request path (it holds the secret). */
const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const toApiGatewayEvent = (
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

/** Content types a function URL passes as text; any other body arrives base64-encoded. */
const TEXT_CONTENT = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)\b)/i;

/**
 * True when a function URL passes the body as text. A compressed body is a binary payload
 * whatever its content type says of what is inside.
 */
const isTextBody = (
  contentType: string | undefined,
  contentEncoding: string | undefined,
): boolean =>
  TEXT_CONTENT.test(contentType ?? '') && /^\s*(identity)?\s*$/i.test(contentEncoding ?? '');

/** The event a function URL hands its function (payload format 2.0). */
const toFunctionUrlEvent = (
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
