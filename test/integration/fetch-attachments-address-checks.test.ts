/**
 * fetch-attachments against real local servers: the gateway simulator (manual clock) serves the
 * content URLs and the file endpoint, dynalite holds the event and state tables, and fauxqs is
 * the S3. Inbound messages are stored by the real receiver; the handler gets each stored item as
 * the table's stream would deliver it (dynalite has no streams).
 *
 * fauxqs runs in a child process, not in this one: it keeps every object in memory, and the
 * large-file test measures this process's memory to show that the file is streamed.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import {
  contentUrlAgent,
  downloadContentUrl,
  GatewayAttachmentDownloads,
} from '../../functions/attachments/adapters/gateway-attachment-downloads.ts';
import { ContentUrlPolicy } from '../../functions/attachments/content-url-policy.ts';
import { AttachmentDownloadError } from '../../functions/attachments/fetch-use-case.ts';
import {
  attachmentHandlers,
  DAY,
  deps,
  eventItem,
  gateway,
  HOUR,
  logger,
  loopbackServer,
  marker,
  sim,
  storeMo,
  streamRecordOf,
  useAttachmentStack,
} from '../support/attachment-stack.ts';

useAttachmentStack();

/** Numbers the forged message keys of this file. */
let sequence = 0;

/** The error a download was refused with. */
const refusal = async (download: Promise<unknown>): Promise<AttachmentDownloadError> => {
  try {
    await download;
  } catch (error) {
    if (error instanceof AttachmentDownloadError) return error;
    throw error;
  }
  throw new Error('expected the download to be refused');
};

describe('fetch-attachments against the simulator, dynalite and fauxqs', () => {
  it('follows a redirect within an allowed origin and keeps content URLs out of its errors', async () => {
    // Prepare: a CDN-like origin on loopback.
    const server = createServer((request, response) => {
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/file' }).end();
      } else if (request.url === '/file') {
        response.writeHead(200, { 'content-type': 'image/gif', 'content-length': '3' }).end('GIF');
      } else {
        response
          .writeHead(410, { 'content-type': 'application/json' })
          .end('{"code":"21601","message":"content URL already used (single use)"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const downloads = new GatewayAttachmentDownloads(
      { downloadMoFile: () => Promise.reject(new Error('not used')) },
      {
        timeoutMs: 5_000,
        contentUrls: new ContentUrlPolicy({ hosts: [], localSimulatorOrigin: origin }),
      },
    );

    try {
      // Act
      const redirected = await downloads.fromContentUrl(`${origin}/redirect`);
      const bytes = Buffer.concat(await redirected.body.toArray());
      const refused = await refusal(downloads.fromContentUrl(`${origin}/secret-token`));
      const notHttp = await refusal(downloads.fromContentUrl('file:///etc/passwd'));

      // Assess
      expect(redirected).toMatchObject({ contentType: 'image/gif', contentLength: 3 });
      expect(bytes.toString()).toBe('GIF');
      expect(refused).toBeInstanceOf(AttachmentDownloadError);
      expect(refused.message).toBe(
        'HTTP 410: {"code":"21601","message":"content URL already used (single use)"}',
      );
      expect(refused.message).not.toContain('secret-token');
      expect(notHttp).toBeInstanceOf(AttachmentDownloadError);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('never follows a content URL redirect to an internal address; the attachment is lost with the reason', async () => {
    // Prepare: an internal service on loopback, and a "content host" that redirects to it. The
    // content host's origin is the one allowed origin (it stands in for the gateway's host).
    const internal = await loopbackServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain' }).end('instance credentials'),
    );
    const front = await loopbackServer((_request, response) =>
      response.writeHead(302, { location: `${internal.origin}/latest/meta-data/` }).end(),
    );
    // A forged webhook body: a moKey the gateway never issued, a content URL of the sender's choosing.
    const moKey = `FORGED${++sequence}`;
    await storeMo(moKey, `${front.origin}/content/one-time-token`);
    const ssrfDeps = {
      ...deps,
      downloads: new GatewayAttachmentDownloads(gateway, {
        timeoutMs: 5_000,
        contentUrls: new ContentUrlPolicy({ hosts: [], localSimulatorOrigin: front.origin }),
      }),
    };
    const sweep = attachmentHandlers(ssrfDeps).sweep;
    const warned = vi.spyOn(logger, 'warn');

    try {
      // Act: the stream's attempt, then the sweep once the 7 days are over.
      const response = await attachmentHandlers(ssrfDeps).fetch({
        Records: [await streamRecordOf(moKey)],
      });
      const afterStream = await marker(moKey, 0);
      await sim.advance(7 * DAY + HOUR);
      const last = await sweep({});

      // Assess
      expect(response).toEqual({ batchItemFailures: [] });
      expect(front.requests).toBe(1);
      expect(internal.requests).toBe(0);
      expect(warned).toHaveBeenCalledWith('content URL refused, not fetched', {
        moKey,
        index: 0,
        reason: expect.stringMatching(/^content-url: refused redirect 1: /),
      });
      expect(afterStream?.lastError?.S).toMatch(
        /^content-url: refused redirect 1: scheme http: is not https; file-endpoint: .*21601/,
      );
      expect(last).toMatchObject({ lost: 1 });
      const lost = await eventItem('inboundAttachmentLost', moKey, 'ATTACHMENT#0#LOST');
      expect(lost?.data).toMatchObject({ moKey, index: 0, attempts: 1 });
      expect(lost?.data.reason).toMatch(/^content-url: refused redirect 1: /);
      expect(lost?.data.reason).not.toContain('one-time-token');
      expect(await eventItem('inboundAttachmentStored', moKey, 'ATTACHMENT#0')).toBeUndefined();
      expect(await marker(moKey, 0)).toBeUndefined();
    } finally {
      warned.mockRestore();
      await Promise.all([internal.close(), front.close()]);
    }
  });

  it('checks the address a host name resolves to when it connects, and never connects to a private one', async () => {
    // Prepare: an allowed https host whose DNS answer is loopback (a rebinding attacker's answer).
    const target = await loopbackServer((_request, response) => response.end('secret'));
    const port = new URL(target.origin).port;
    const resolve = vi.fn(async (_hostname: string) => [{ address: '127.0.0.1', family: 4 }]);
    const agent = contentUrlAgent(resolve);
    const downloads = new GatewayAttachmentDownloads(gateway, {
      timeoutMs: 5_000,
      contentUrls: new ContentUrlPolicy({ hosts: [`files.gateway.test:${port}`] }),
      fetchUrl: (url, timeoutMs) => downloadContentUrl(url, timeoutMs, agent),
    });

    try {
      // Act
      const refused = await refusal(
        downloads.fromContentUrl(`https://files.gateway.test:${port}/content/token`),
      );

      // Assess: the name was resolved by the checking look-up, once, and no connection was made.
      expect(refused.message).toBe(
        'refused: host files.gateway.test resolves to 127.0.0.1, a loopback address',
      );
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(resolve.mock.calls[0]?.[0]).toBe('files.gateway.test');
      expect(target.connections).toBe(0);
    } finally {
      await agent.close();
      await target.close();
    }
  });
});
