import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MiddlewareStack } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { diffTraffic, functionScope, TrafficMeter } from '../../bench/traffic.ts';

const post = (url: string, body: string) =>
  new Promise<string>((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(text));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });

describe('the traffic meter', () => {
  it('counts a gateway exchange by its header block, body and the bytes its socket read', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': '5' });
      res.end('hello');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const meter = new TrafficMeter();
    const unwatch = meter.watchHttp(origin, 'gateway');
    try {
      const before = meter.snapshot();
      expect(await post(`${origin}/msg`, 'abcdefghij')).toBe('hello');
      await new Promise((resolve) => setImmediate(resolve));
      const tally = diffTraffic(meter.snapshot(), before).gateway;

      expect(tally?.requests).toBe(1);
      // "POST /msg HTTP/1.1", host, content-length, connection: well over 40 bytes, plus the body.
      expect(tally?.requestBytes).toBeGreaterThan(40 + 10);
      expect(tally?.requestBytes).toBeLessThan(200);
      // Status line, headers and the 5-byte body.
      expect(tally?.responseBytes).toBeGreaterThan(5 + 30);
      expect(tally?.natBytes).toBeGreaterThan(
        (tally?.requestBytes ?? 0) + (tally?.responseBytes ?? 0),
      );
      // Another origin is not counted.
      await post(`${origin.replace('127.0.0.1', 'localhost')}/msg`, 'x');
      expect(meter.snapshot().gateway?.requests).toBe(1);
    } finally {
      unwatch();
      server.close();
    }
  });

  it('gives a call outside any function scope to the function its input names, else to nobody', async () => {
    // A stand-in for an SDK client's stack: the meter's deserialize middleware, called as the SDK would.
    let middleware:
      | ((next: unknown, context: unknown) => (args: unknown) => Promise<unknown>)
      | undefined;
    const stack = {
      add: (m: typeof middleware) => {
        middleware = m;
      },
    } as unknown as MiddlewareStack<object, { $metadata: object }>;
    const meter = new TrafficMeter();
    meter.instrument(stack, 'SQS', (input, operation) =>
      operation === 'SendMessageBatch' && input.QueueUrl === 'checks' ? 'send-messages' : undefined,
    );
    const call = (commandName: string, QueueUrl: string) =>
      middleware?.(
        async () => ({ response: { headers: { 'content-length': '10' } }, output: {} }),
        {
          commandName,
        },
      )({ input: { QueueUrl }, request: { method: 'POST', path: '/', headers: {}, body: '{}' } });

    await call('SendMessageBatchCommand', 'checks');
    await call('SendMessageBatchCommand', 'producer-queue');
    await functionScope.run('reconcile-status', () => call('SendMessageBatchCommand', 'checks'));

    expect(Object.keys(meter.snapshot()).sort()).toEqual([
      'reconcile-status|SQS|SendMessageBatch',
      'send-messages|SQS|SendMessageBatch',
      'unattributed|SQS|SendMessageBatch',
    ]);
  });
});
