import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export type ApiGatewayHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

export interface WebhookServerOptions {
  readonly host?: string;
  /** 0 picks an ephemeral port. */
  readonly port?: number;
  /** The handlers behind `POST /webhooks/{secret}/report` and `POST /webhooks/{secret}/mo`. */
  readonly handlers: { readonly report: ApiGatewayHandler; readonly mo: ApiGatewayHandler };
  /**
   * `POST /_bridge/replay`: the local run's stand-in for an archive replay (`msgbridge events
   * replay`). Answered only to loopback callers.
   */
  readonly replay?: (body: unknown) => Promise<{ statusCode: number; body: unknown }>;
}

export interface WebhookServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The report and MO webhook URLs for a given secret. */
  webhookUrls(secret: string): { report: string; mo: string };
  close(): Promise<void>;
}

const ROUTE = /^\/webhooks\/([^/]+)\/(report|mo)$/;

/**
 * The deployed REST API's two webhook routes on a local port: each request becomes the same
 * API-Gateway-shaped event the Lambda receives, and the handler's answer is sent back as is.
 */
export const startWebhookServer = async (options: WebhookServerOptions): Promise<WebhookServer> => {
  const server: Server = createServer((request, response) => {
    const route = new URL(request.url ?? '/', 'http://local').pathname.startsWith('/_bridge/')
      ? control(request, options)
      : handle(request, options.handlers);
    void route.then((answer) => {
      response.writeHead(answer.statusCode, answer.headers as Record<string, string> | undefined);
      response.end(answer.body);
    });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const handle = async (
  request: IncomingMessage,
  handlers: WebhookServerOptions['handlers'],
): Promise<APIGatewayProxyResult> => {
  const url = new URL(request.url ?? '/', 'http://local');
  const match = ROUTE.exec(url.pathname);
  const body = await readBody(request);
  if (!match || request.method !== 'POST') {
    return {
      statusCode: match ? 405 : 404,
      body: JSON.stringify({ message: match ? 'Method Not Allowed' : 'Not Found' }),
    };
  }
  const [, secret = '', route] = match;
  const event = toApiGatewayEvent(
    request,
    url,
    decodeURIComponent(secret),
    route === 'report' ? 'report' : 'mo',
    body,
  );
  try {
    return await (route === 'report' ? handlers.report(event) : handlers.mo(event));
  } catch (error) {
    // What API Gateway answers when the Lambda itself fails.
    console.error('webhook handler failed', error);
    return { statusCode: 502, body: JSON.stringify({ message: 'Internal server error' }) };
  }
};

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The control routes of the local run, for the CLI on the same machine. */
const control = async (
  request: IncomingMessage,
  options: WebhookServerOptions,
): Promise<APIGatewayProxyResult> => {
  const answer = (statusCode: number, body: unknown) => ({
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  const body = await readBody(request);
  if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) {
    return answer(403, { message: 'control routes answer loopback callers only' });
  }
  if (path !== '/_bridge/replay' || options.replay === undefined) {
    return answer(404, { message: 'Not Found' });
  }
  if (request.method !== 'POST') return answer(405, { message: 'Method Not Allowed' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return answer(400, { message: 'the body is not JSON' });
  }
  try {
    const result = await options.replay(parsed);
    return answer(result.statusCode, result.body);
  } catch (error) {
    console.error('replay failed', error);
    return answer(500, { message: 'replay failed' });
  }
};

const readBody = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

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
