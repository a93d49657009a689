/**
 * The local run's webhook server over real sockets on 127.0.0.1, behind either front door the
 * stack can deploy: no request, however malformed, cut short or large, may take the process down,
 * and each one is answered the way the function URL or API Gateway, or the route's contract, would
 * answer it. After every hostile request a normal one still succeeds.
 */
import { connect } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhookRequestOf } from '../../functions/inbound/webhook-request.ts';
import {
  API_GATEWAY_MAX_BODY_BYTES,
  FUNCTION_URL_MAX_BODY_BYTES,
  startWebhookServer,
  type WebhookFrontDoor,
  type WebhookServer,
} from '../../local/webhook-server.ts';

const SECRET = 'local-secret-0123456789';

let server: WebhookServer;
let received: Array<APIGatewayProxyEvent | APIGatewayProxyEventV2>;

const start = async (
  front: WebhookFrontDoor,
  options: { requestTimeoutMs?: number; reservedMounts?: readonly string[] } = {},
) => {
  received = [];
  // Answers like the real receivers, which read either event: 404 unless the path secret
  // matches exactly, then 405 to anything but POST.
  const receiver =
    (kind: 'report' | 'mo') => async (event: APIGatewayProxyEvent | APIGatewayProxyEventV2) => {
      received.push(event);
      const request = webhookRequestOf(event, kind);
      if (request.secret !== SECRET)
        return { statusCode: 404, body: JSON.stringify({ message: 'Not Found' }) };
      if (request.method !== 'POST')
        return { statusCode: 405, body: JSON.stringify({ message: 'Method Not Allowed' }) };
      return { statusCode: 200, body: JSON.stringify({ code: '10000', message: 'success' }) };
    };
  server = await startWebhookServer({
    port: 0,
    front,
    ...options,
    handlers: { report: receiver('report'), mo: receiver('mo') },
  });
};

afterEach(() => server.close());

const port = () => Number(new URL(server.url).port);

/** Writes raw bytes on a fresh socket and resolves with everything the server sent back. */
const raw = (chunks: readonly (string | Buffer)[], options: { end?: boolean } = {}) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port(), '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      answer += data;
    });
    // The server may close while the client still writes: that is an answer, not a failure.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve(answer) : reject(error),
    );
    socket.on('close', () => resolve(answer));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.end ?? true) socket.end();
    });
  });

/** A normal report webhook: must answer 200 after whatever came before it. */
const expectStillServing = async () => {
  const answer = await fetch(server.webhookUrls(SECRET).report, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rsltList: [] }),
  });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({ code: '10000', message: 'success' });
};

const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);

describe.each([
  ['function-url', FUNCTION_URL_MAX_BODY_BYTES],
  ['rest-api', API_GATEWAY_MAX_BODY_BYTES],
] as const)('the local webhook server under hostile input, behind the %s front', (front, limit) => {
  beforeEach(() => start(front));

  it.each([
    ['/webhooks/%E0%A4%A/report', 404],
    ['/webhooks/%/report', 404],
    ['/webhooks/%E0%A4%A/mo', 404],
    ['/%E0%A4%A', 404],
    // A control path answers nobody without the run's token, whatever its path.
    ['/_bridge/%E0%A4%A', 401],
  ])('answers a malformed percent-encoding in %s and keeps serving', async (path, status) => {
    // Act
    const answer = await fetch(`${server.url}${path}`, { method: 'POST', body: '{}' });

    // Assess: a secret that cannot be decoded cannot match, so the route answers as for a wrong one.
    expect(answer.status).toBe(status);
    if (status === 404) expect(await answer.json()).toEqual({ message: 'Not Found' });
    await expectStillServing();
  });

  it('hands an undecodable secret to the handler as it came, so the secret check answers', async () => {
    await fetch(`${server.url}/webhooks/%E0%A4%A/report`, { method: 'POST', body: '{}' });

    // API Gateway passes the segment as it came; a function URL passes the raw path.
    expect(
      received.map((event) => ('rawPath' in event ? event.rawPath : event.pathParameters?.secret)),
    ).toEqual([front === 'function-url' ? '/webhooks/%E0%A4%A/report' : '%E0%A4%A']);
  });

  it('survives a client that hangs up in the middle of the body', async () => {
    // Act: headers promise 1,000 bytes, 100 arrive, then the socket is destroyed.
    await new Promise<void>((resolve) => {
      const socket = connect(port(), '127.0.0.1', () => {
        socket.write(
          `POST /webhooks/${SECRET}/report HTTP/1.1\r\nHost: local\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
        );
        socket.write('{"rsltList":['.padEnd(100, ' '));
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Assess: the half body never reached the handler, and the server still answers.
    expect(received).toEqual([]);
    await expectStillServing();
  });

  it('survives many aborted uploads on the MO route and the control route', async () => {
    await Promise.all(
      ['/webhooks/x/mo', '/_bridge/replay', `/webhooks/${SECRET}/report`].flatMap((path) =>
        Array.from(
          { length: 5 },
          () =>
            new Promise<void>((resolve) => {
              const socket = connect(port(), '127.0.0.1', () => {
                socket.write(
                  `POST ${path} HTTP/1.1\r\nHost: local\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`,
                );
                setImmediate(() => {
                  socket.destroy();
                  resolve();
                });
              });
            }),
        ),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));

    await expectStillServing();
  });

  it('answers 413 as the front door does to a body announced above its payload limit', async () => {
    // Act: only the headers are sent; the server must not wait for the body to refuse it.
    const answer = await raw(
      [
        `POST /webhooks/${SECRET}/report HTTP/1.1\r\nHost: local\r\nContent-Length: ${limit + 1}\r\n\r\n`,
        '{"rsltList":[',
      ],
      { end: false },
    );

    // Assess
    expect(status(answer)).toBe(413);
    expect(received).toEqual([]);
    await expectStillServing();
  });

  it('answers 413 to a chunked body that grows past the limit, without reading it all', async () => {
    // Act: 11 MiB in 1 MiB chunks, no Content-Length.
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const chunks: (string | Buffer)[] = [
      `POST /webhooks/${SECRET}/mo HTTP/1.1\r\nHost: local\r\nTransfer-Encoding: chunked\r\n\r\n`,
    ];
    for (let index = 0; index < 11; index += 1)
      chunks.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
    chunks.push('0\r\n\r\n');
    const answer = await raw(chunks);

    // Assess
    expect(status(answer)).toBe(413);
    expect(received).toEqual([]);
    await expectStillServing();
  });

  it('passes a body just under the payload limit to the handler', async () => {
    const body = `{"rsltList":[],"pad":"${'x'.repeat(1024 * 1024)}"}`;

    const answer = await fetch(server.webhookUrls(SECRET).report, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

    expect(answer.status).toBe(200);
    expect(received.at(-1)?.body).toBe(body);
  });

  it('times out a client that sends its body too slowly, and keeps serving', async () => {
    // Prepare: a short request timeout so the test does not wait 30 s.
    await server.close();
    await start(front, { requestTimeoutMs: 300 });
    const started = Date.now();

    // Act: headers and a byte, then silence, without closing our side.
    const answer = await raw(
      [
        `POST /webhooks/${SECRET}/report HTTP/1.1\r\nHost: local\r\nContent-Length: 100\r\n\r\n`,
        '{',
      ],
      { end: false },
    );

    // Assess: the server answered 408 and closed the connection itself.
    expect(status(answer)).toBe(408);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(received).toEqual([]);
    await expectStillServing();
  });

  it('answers any method, odd headers and a garbage request line without falling over', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) {
      const answer = await fetch(server.webhookUrls(SECRET).report, { method });
      expect(answer.status).toBe(405);
    }
    expect(status(await raw(['GARBAGE\r\n\r\n']))).toBe(400);
    expect(
      status(
        await raw([
          `POST /webhooks/${SECRET}/report HTTP/1.1\r\nHost: local\r\nX-Big: ${'x'.repeat(40_000)}\r\n\r\n`,
        ]),
      ),
    ).toBe(431);
    expect(status(await raw(['GET //%%% HTTP/1.1\r\nHost: local\r\n\r\n']))).toBe(404);
    expect(
      status(
        await raw([
          `POST /webhooks/${SECRET}/report HTTP/1.1\r\nHost: local\r\nContent-Length: abc\r\n\r\n`,
        ]),
      ),
    ).toBe(400);
    await expectStillServing();
  });
});

describe('the local webhook server while the run starts', () => {
  it('answers a prefix reserved for a later mount with 503 and Retry-After until it is mounted', async () => {
    // Prepare
    await start('function-url', { reservedMounts: ['/console'] });

    // Act: before the mount, then after it
    const early = await fetch(`${server.url}/console/flow`);
    const earlyBody = await early.text();
    server.mount('/console', async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('console');
    });
    const late = await fetch(`${server.url}/console/flow`);

    // Assess
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(earlyBody).toContain('msgbridge is starting');
    expect(late.status).toBe(200);
    expect(await late.text()).toBe('console');
    expect(received).toEqual([]);
  });
});
