import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectionPool,
  downloadUrl,
  HttpTransportFailure,
  nodeTransport,
} from '../../gateway/transport.ts';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A local server: `answer` writes each response; every request it got is in `received`. */
const serve = async (answer: (response: ServerResponse, request: Received) => void) => {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      };
      received.push(seen);
      answer(response, seen);
    });
  });
  const connections = { opened: 0 };
  server.on('connection', () => {
    connections.opened += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    connections,
  };
};

const failureOf = async (promise: Promise<unknown>): Promise<HttpTransportFailure> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(HttpTransportFailure);
  return error as HttpTransportFailure;
};

describe("the gateway client's transport (Node's http client)", () => {
  it('sends the method, headers and text body, and answers status, lower-case headers and text', async () => {
    const { origin, received } = await serve((response) => {
      response.setHeader('X-Trace', ['a', 'b']);
      response.writeHead(201, { 'Content-Type': 'application/json' });
      response.end('{"code":"10000"}');
    });

    const answer = await nodeTransport({
      method: 'POST',
      url: `${origin}/xms/sms/v1?x=1`,
      headers: { authorization: 'Bearer t', 'content-type': 'application/json;charset=UTF-8' },
      body: '{"msg":"안녕"}',
      timeoutMs: 2_000,
    });

    expect(answer).toMatchObject({
      status: 201,
      text: '{"code":"10000"}',
      headers: { 'content-type': 'application/json', 'x-trace': 'a, b' },
    });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      method: 'POST',
      url: '/xms/sms/v1?x=1',
      headers: {
        authorization: 'Bearer t',
        'content-length': String(Buffer.byteLength('{"msg":"안녕"}')),
      },
    });
    expect(received[0]?.body.toString('utf8')).toBe('{"msg":"안녕"}');
  });

  it('sends a form as multipart/form-data with its boundary and every part', async () => {
    const { origin, received } = await serve((response) => response.end('{}'));
    const form = new FormData();
    form.append('reqBody', new Blob(['{"a":1}'], { type: 'application/json' }));
    form.append(
      'image',
      new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }),
      'x.png',
    );

    await nodeTransport({
      method: 'POST',
      url: `${origin}/form`,
      headers: {},
      body: form,
      timeoutMs: 2_000,
    });

    const sent = received[0];
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(
      String(sent?.headers['content-type']),
    )?.[1];
    expect(boundary).toBeDefined();
    expect(Number(sent?.headers['content-length'])).toBe(sent?.body.length);
    const text = sent?.body.toString('latin1') ?? '';
    expect(text).toContain('name="reqBody"');
    expect(text).toContain('{"a":1}');
    expect(text).toContain('name="image"; filename="x.png"');
    expect(text).toContain('Content-Type: image/png');
    expect(text.trimEnd().endsWith(`--${boundary}--`)).toBe(true);
  });

  it('answers a redirect as it is, without following it', async () => {
    const { origin, received } = await serve((response) => {
      response.writeHead(302, { Location: '/elsewhere' });
      response.end();
    });

    const answer = await nodeTransport({
      method: 'GET',
      url: `${origin}/a`,
      headers: {},
      timeoutMs: 2_000,
    });

    expect(answer).toMatchObject({ status: 302, headers: { location: '/elsewhere' } });
    expect(received.map((request) => request.url)).toEqual(['/a']);
  });

  it('fails with a timeout when no answer comes within the time allowed', async () => {
    const { origin } = await serve(() => {});

    const failure = await failureOf(
      nodeTransport({ method: 'GET', url: `${origin}/hang`, headers: {}, timeoutMs: 200 }),
    );

    expect(failure).toMatchObject({ kind: 'timeout', message: 'no answer within 200 ms' });
  });

  it('fails with a timeout when the whole answer takes longer than allowed, though data keeps coming', async () => {
    const { origin } = await serve((response) => {
      response.writeHead(200);
      const drip = setInterval(() => response.write('.'), 50);
      response.on('close', () => clearInterval(drip));
    });

    const failure = await failureOf(
      nodeTransport({ method: 'GET', url: `${origin}/drip`, headers: {}, timeoutMs: 300 }),
    );

    expect(failure.kind).toBe('timeout');
  });

  it('fails with a connection failure when nothing listens', async () => {
    const failure = await failureOf(
      nodeTransport({ method: 'GET', url: 'http://127.0.0.1:9/', headers: {}, timeoutMs: 2_000 }),
    );

    expect(failure.kind).toBe('connection');
    expect(failure.message).toMatch(/^connection failed: /);
  });

  it('hands a stream back after the headers; a pause longer than allowed breaks the stream', async () => {
    const { origin } = await serve((response) => {
      response.writeHead(200, { 'Content-Type': 'image/jpeg' });
      response.write('first');
    });

    const answer = await nodeTransport({
      method: 'GET',
      url: `${origin}/file`,
      headers: {},
      timeoutMs: 200,
      stream: true,
    });
    const chunks: string[] = [];
    const read = (async () => {
      for await (const chunk of answer.stream ?? []) chunks.push(String(chunk));
    })();

    expect(answer.status).toBe(200);
    await expect(read).rejects.toThrow();
    expect(chunks).toEqual(['first']);
  });

  it('downloads through a pool whose look-up decides where it connects', async () => {
    const { origin } = await serve((response) => response.end('bytes'));
    const port = new URL(origin).port;
    const looked: string[] = [];
    const pool = connectionPool({
      maxSockets: 2,
      lookup: (hostname, options, callback) => {
        looked.push(hostname);
        // Node asks for every address (`all`) when it may try several families.
        if (options.all)
          (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, [
            { address: '127.0.0.1', family: 4 },
          ]);
        else callback(null, '127.0.0.1', 4);
      },
    });
    try {
      const answer = await downloadUrl(`http://files.gateway.test:${port}/c`, 2_000, pool);
      let body = '';
      for await (const chunk of answer.stream) body += String(chunk);

      expect(answer.status).toBe(200);
      expect(body).toBe('bytes');
      expect(looked).toEqual(['files.gateway.test']);
    } finally {
      await pool.close();
    }
  });

  it('reports a look-up refusal as the cause of a connection failure', async () => {
    const refusal = new Error('private address');
    const pool = connectionPool({
      maxSockets: 1,
      lookup: (_hostname, _options, callback) => callback(refusal, ''),
    });
    try {
      const failure = await failureOf(downloadUrl('http://files.gateway.test/c', 2_000, pool));

      expect(failure.kind).toBe('connection');
      expect(failure.cause).toBe(refusal);
    } finally {
      await pool.close();
    }
  });
});

describe('beforeWrite: the last moment before a request goes out', () => {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const post = (origin: string, beforeWrite: () => Promise<void>, timeoutMs = 2_000) =>
    nodeTransport({
      method: 'POST',
      url: `${origin}/xms/sms/v1`,
      headers: { 'content-type': 'application/json' },
      body: '{"cliKey":"k1"}',
      timeoutMs,
      beforeWrite,
    });

  it('runs once the connection is open, and nothing reaches the server until it resolves', async () => {
    const { origin, received, connections } = await serve((response) => response.end('{}'));
    const seen: Array<{ opened: number; received: number }> = [];

    const answer = await post(origin, async () => {
      await pause(20);
      seen.push({ opened: connections.opened, received: received.length });
      await pause(80);
      seen.push({ opened: connections.opened, received: received.length });
    });

    expect(seen).toEqual([
      { opened: 1, received: 0 },
      { opened: 1, received: 0 },
    ]);
    expect(answer.status).toBe(200);
    expect(received.map((request) => request.body.toString('utf8'))).toEqual(['{"cliKey":"k1"}']);
  });

  it('runs for a request on a kept-alive connection too', async () => {
    const { origin, received, connections } = await serve((response) => response.end('{}'));
    let calls = 0;
    const hook = async () => {
      calls += 1;
    };
    // The shared pool of nodeTransport keeps the first call's connection for the second.
    await post(origin, hook);
    await post(origin, hook);

    expect(calls).toBe(2);
    expect(received).toHaveLength(2);
    expect(connections.opened).toBe(1);
  });

  it('sends nothing when it rejects, and the call fails with its own error', async () => {
    const { origin, received } = await serve((response) => response.end('{}'));
    const refusal = new Error('no quota before the deadline');

    await expect(post(origin, async () => Promise.reject(refusal))).rejects.toBe(refusal);
    await pause(50);
    expect(received).toHaveLength(0);
  });

  it('is not timed: a wait longer than the call may take still gets its answer', async () => {
    const { origin, received } = await serve((response) => response.end('{"code":"10000"}'));

    const answer = await post(origin, () => pause(300).then(() => undefined), 100);

    expect(answer).toMatchObject({ status: 200, text: '{"code":"10000"}' });
    expect(received).toHaveLength(1);
  });
});
