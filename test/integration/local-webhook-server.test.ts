/**
 * The local run's webhook server over real sockets on 127.0.0.1, behind either front door the
 * stack can deploy: no request, however malformed, cut short or large, may take the process down,
 * and each one is answered the way the function URL or API Gateway, or the route's contract, would
 * answer it. After every hostile request a normal one still succeeds.
 */
import { connect } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhookRequestOf } from '../../functions/webhooks/webhook-request.ts';
import { API_GATEWAY_MAX_BODY_BYTES } from '../../local/webhook-body.ts';
import type { WebhookFrontDoor } from '../../local/webhook-events.ts';
import { startWebhookServer, type WebhookServer } from '../../local/webhook-server.ts';

const SECRET = 'local-secret-0123456789';

/**
 * Lambda refuses a synchronous invoke whose payload — the event JSON, not the HTTP body — is 6 MB
 * or more ("Request must be smaller than 6291456 bytes for the InvokeFunction operation"), before
 * the function runs. The event of a function URL carries a binary body base64-encoded, a third
 * larger; a text body is a JSON string in it, escaped. Written from Lambda's documentation, not
 * from the server: https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html and
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html (read 2026-12-07).
 */
const LAMBDA_INVOKE_PAYLOAD_BYTES = 6_291_456;

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
  ['function-url', LAMBDA_INVOKE_PAYLOAD_BYTES],
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

const eventBytes = (event: unknown) => Buffer.byteLength(JSON.stringify(event), 'utf8');

const post = (body: Buffer | string, contentType: string) =>
  fetch(server.webhookUrls(SECRET).report, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });

/** A JSON report body of exactly `bytes` bytes, padded with `pad`. */
const jsonBody = (bytes: number, pad = 'x') => {
  const head = '{"rsltList":[],"pad":"';
  const tail = '"}';
  const room = bytes - head.length - tail.length;
  return head + pad.repeat(Math.floor(room / pad.length)) + 'x'.repeat(room % pad.length) + tail;
};

/**
 * Posts a JSON body 16 KB under Lambda's limit: the receiver gets it whole, in an event under the
 * limit.
 */
const expectFittingJsonBodyPassed = async () => {
  const body = jsonBody(LAMBDA_INVOKE_PAYLOAD_BYTES - 16 * 1024);

  const answer = await post(body, 'application/json');

  expect(answer.status).toBe(200);
  expect(received.at(-1)?.body).toBe(body);
  expect(eventBytes(received.at(-1))).toBeLessThan(LAMBDA_INVOKE_PAYLOAD_BYTES);
};

describe("Lambda's 6 MB behind the function-URL front, measured on the event it builds", () => {
  beforeEach(() => start('function-url'));

  it.each(['application/octet-stream', 'multipart/form-data; boundary=x'])(
    'answers 413 to a 4.8 MB %s body, whose base64 event is over 6 MB, and never invokes the receiver',
    async (contentType) => {
      // Prepare: 4.8 MB is below 6 MB as bytes, 6.4 MB once base64-encoded in the event.
      const body = Buffer.alloc(4_800_000, 0xab);

      // Act
      const answer = await post(body, contentType);

      // Assess: Lambda refuses the invoke (413) before the receiver runs, so nothing is stored.
      expect(answer.status).toBe(413);
      expect(received).toEqual([]);
      await expectStillServing();
    },
  );

  it('hands a 4.4 MB binary body to the receiver base64-encoded, in an event under 6 MB', async () => {
    const body = Buffer.alloc(4_400_000, 0xcd);

    const answer = await post(body, 'application/octet-stream');

    expect(answer.status).toBe(200);
    const [event] = received;
    expect(event).toMatchObject({ isBase64Encoded: true });
    expect(Buffer.from(event?.body ?? '', 'base64').equals(body)).toBe(true);
    expect(eventBytes(event)).toBeLessThan(LAMBDA_INVOKE_PAYLOAD_BYTES);
  });

  it('answers 413 to a JSON body just under 6 MB, whose event (body and request) is over it', async () => {
    const answer = await post(jsonBody(LAMBDA_INVOKE_PAYLOAD_BYTES - 200), 'application/json');

    expect(answer.status).toBe(413);
    expect(received).toEqual([]);
  });

  it(
    'passes a JSON body whose event fits, and every event it passes is under 6 MB',
    expectFittingJsonBodyPassed,
  );

  it('counts the escaping of a text body: 3.5 MB of escaped quotes is a 7 MB event', async () => {
    // Each `\"` of the body is `\\\"` in the event's JSON string: twice the bytes.
    const answer = await post(jsonBody(3_500_000, '\\"'), 'application/json');

    expect(answer.status).toBe(413);
    expect(received).toEqual([]);
  });

  it('answers 413 to a binary body announced too large for the event, before its body arrives', async () => {
    // Prepare: a short request timeout, so a server that waited for the body would answer 408.
    await server.close();
    await start('function-url', { requestTimeoutMs: 2_000 });

    // Act: 5,000,000 bytes announced (6.7 MB in base64), only the headers sent.
    const answer = await raw(
      [
        `POST /webhooks/${SECRET}/report HTTP/1.1\r\nHost: local\r\nContent-Type: application/octet-stream\r\nContent-Length: 5000000\r\n\r\n`,
      ],
      { end: false },
    );

    expect(status(answer)).toBe(413);
    expect(received).toEqual([]);
    await expectStillServing();
  });
});

describe("Lambda's 6 MB behind the REST API front, measured on the proxy event", () => {
  beforeEach(() => start('rest-api'));

  it.each([
    ['a 7 MB JSON body', () => jsonBody(7_000_000)],
    [
      'a JSON body just under 6 MB, whose event is over it',
      () => jsonBody(LAMBDA_INVOKE_PAYLOAD_BYTES - 200),
    ],
  ])(
    'answers %s as API Gateway does when Lambda refuses the invoke: 500, nothing invoked',
    async (_, body) => {
      // API Gateway takes up to 10 MB; Lambda then refuses the event and API Gateway answers
      // 500 {"message":"Internal server error"}
      // (https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html, read 2026-12-07).
      const answer = await post(body(), 'application/json');

      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({ message: 'Internal server error' });
      expect(received).toEqual([]);
      await expectStillServing();
    },
  );

  it('answers 500 to an 8 MB chunked body, and 413 only above API Gateway’s 10 MB', async () => {
    const chunked = (mebibytes: number) => {
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const chunks: (string | Buffer)[] = [
        `POST /webhooks/${SECRET}/mo HTTP/1.1\r\nHost: local\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ];
      for (let index = 0; index < mebibytes; index += 1)
        chunks.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
      chunks.push('0\r\n\r\n');
      return chunks;
    };

    expect(status(await raw(chunked(8)))).toBe(500);
    expect(status(await raw(chunked(11)))).toBe(413);
    expect(received).toEqual([]);
    await expectStillServing();
  });

  it('passes a JSON body whose proxy event fits', expectFittingJsonBodyPassed);
});
