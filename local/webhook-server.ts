/**
 * The local run's webhook server: the deployed front door of the receivers on a local port (see
 * `startWebhookServer`), the operator console mounted beside it, and the run's control routes
 * (local/control-routes.ts). The events it builds are local/webhook-events.ts's; how it reads a
 * body, local/webhook-body.ts's. An error is logged by its name and message, never with the
 * request path: the path holds the webhook secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
} from 'aws-lambda';
import { json, LAMBDA_PAYLOAD_BYTES, NOT_FOUND } from '../functions/webhooks/handler.ts';
import { answerControlRoute, type ControlRouteOptions } from './control-routes.ts';
import { describeError } from './thrown.ts';
import { BodyTooLargeError, bodyLimits, type ReadBody, readBody } from './webhook-body.ts';
import {
  exceedsInvokePayload,
  toApiGatewayEvent,
  toFunctionUrlEvent,
  type WebhookFrontDoor,
} from './webhook-events.ts';

/** A receiver's handler, invoked with the event of the deployed front door. */
export type WebhookFunction = (
  event: APIGatewayProxyEvent | APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyResult>;

/**
 * API Gateway gives the whole request, integration included, 29 s; a client still sending its
 * body after 30 s is answered 408 and dropped, so a slow sender cannot hold a socket for ever.
 */
const REQUEST_TIMEOUT_MS = 30_000;

export interface WebhookServerOptions extends ControlRouteOptions {
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
          ? await answerControlRoute(request, path.pathname, read.body, options)
          : TOO_LARGE
        : await handle(request, path, read, options.handlers, front);
  respond(response, answer);
};

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
