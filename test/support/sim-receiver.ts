/** A local webhook receiver for the simulator's webhook tests (reports, MO). */
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver answers to one POST: a status (and body), or 'hang' (no answer until closed). */
export type Reply = { status: number; body?: string } | 'hang';

/** One request the receiver got. */
export interface ReceivedPost {
  readonly body: string;
  readonly contentType: string | undefined;
}

/**
 * Listens on a free loopback port and answers every request as `script` says for its attempt
 * number (1 for the first), with `headers` on each answer; records every request in `received`.
 * `url` ends in `path`; `close` drops held requests and stops the server.
 */
export const listenReceiver = async (
  path: string,
  script: (attempt: number) => Reply,
  headers: OutgoingHttpHeaders = {},
) => {
  const received: ReceivedPost[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        contentType: request.headers['content-type'],
      });
      const reply = script(received.length);
      if (reply === 'hang') {
        held.push(response);
        return;
      }
      response.writeHead(reply.status, headers).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * How many posts `receiver` has now and 1 ms before the simulator's 10 s retry is due; then the
 * retry comes, and the simulator's clock moves on by each of `afterRetry` in turn.
 */
export const postsAroundTheRetry = async (
  sim: { advance(ms: number): Promise<unknown> },
  receiver: { readonly received: readonly unknown[] },
  afterRetry: readonly number[],
): Promise<{ first: number; beforeRetry: number }> => {
  const first = receiver.received.length;
  await sim.advance(9_999);
  const beforeRetry = receiver.received.length;
  await sim.advance(1);
  for (const ms of afterRetry) await sim.advance(ms);
  return { first, beforeRetry };
};
