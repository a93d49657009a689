/**
 * The local run's control routes (`/_bridge/…`) against a web page the operator visits: a forged
 * Host (DNS rebinding), a foreign Origin, a simple cross-origin POST (`text/plain`), no token or
 * the wrong one. Each route answers only the CLI, which has the run's token from bridge.json.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookServer, type WebhookServer } from '../../local/webhook-server.ts';

const TOKEN = 'control-token-under-test';
let server: WebhookServer;
const replayed: unknown[] = [];
let statusReads = 0;

beforeAll(async () => {
  server = await startWebhookServer({
    port: 0,
    controlToken: TOKEN,
    handlers: {
      report: async () => ({ statusCode: 200, body: '' }),
      mo: async () => ({ statusCode: 200, body: '' }),
    },
    replay: async (body) => {
      replayed.push(body);
      return { statusCode: 200, body: { replayed: 1 } };
    },
    status: () => {
      statusReads += 1;
      return { mappings: [], schedules: [] };
    },
  });
});

afterAll(() => server.close());

/** A request with exactly these headers (fetch would not let a test forge Host). */
const send = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<number> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const request = httpRequest(
      { host: '127.0.0.1', port: url.port, method, path: url.pathname, headers },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });

const ROUTES = [
  { method: 'GET', path: '/_bridge/status', body: undefined },
  {
    method: 'POST',
    path: '/_bridge/replay',
    body: JSON.stringify({ replayName: 'r', events: [] }),
  },
] as const;

type Case = [string, (headers: Record<string, string>) => Record<string, string>, number];
const TEXT_PLAIN: Case = [
  'a text/plain body, as a cross-origin form posts',
  (headers) => ({ ...headers, 'content-type': 'text/plain' }),
  415,
];

describe.each(ROUTES)('$method $path', ({ method, path, body }) => {
  const host = () => `127.0.0.1:${new URL(server.url).port}`;
  const good = () => ({
    host: host(),
    authorization: `Bearer ${TOKEN}`,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  });

  it.each<Case>([
    [
      'a Host that is not this machine (DNS rebinding)',
      (h) => ({ ...h, host: 'evil.example:80' }),
      403,
    ],
    ['another web origin', (h) => ({ ...h, origin: 'http://evil.example' }), 403],
    ['no token', ({ authorization: _, ...h }) => h, 401],
    ['a wrong token', (h) => ({ ...h, authorization: 'Bearer guessed' }), 401],
    ...(body === undefined ? [] : [TEXT_PLAIN]),
  ])('refuses %s and does nothing', async (_, change, status) => {
    const before = { replayed: replayed.length, statusReads };

    const answer = await send(method, path, change(good()), body);

    expect(answer).toBe(status);
    expect({ replayed: replayed.length, statusReads }).toEqual(before);
  });

  it('answers the CLI: loopback Host, the run token, JSON', async () => {
    const answer = await send(method, path, good(), body);

    expect(answer).toBe(200);
  });

  it('answers a same-origin request that names localhost', async () => {
    const local = `localhost:${new URL(server.url).port}`;

    const answer = await send(
      method,
      path,
      { ...good(), host: local, origin: `http://${local}` },
      body,
    );

    expect(answer).toBe(200);
  });
});

describe('a run without a control token', () => {
  it('answers no control route at all', async () => {
    const bare = await startWebhookServer({
      port: 0,
      handlers: {
        report: async () => ({ statusCode: 200, body: '' }),
        mo: async () => ({ statusCode: 200, body: '' }),
      },
      status: () => ({}),
    });
    try {
      const answer = await fetch(`${bare.url}/_bridge/status`, {
        headers: { authorization: 'Bearer ' },
      });
      expect(answer.status).toBe(401);
    } finally {
      await bare.close();
    }
  });
});
