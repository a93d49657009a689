import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { diffTraffic, TrafficMeter } from '../../bench/traffic.ts';

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
});
