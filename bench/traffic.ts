/**
 * Bytes on the wire, for the NAT gateway line: each AWS SDK call's request and response (HTTP
 * request line, headers and body; response headers and body as its content-length says), keyed
 * by the function that made it, and each gateway call's bytes as its socket counted them. Which
 * function a call belongs to comes from `functionScope`, an AsyncLocalStorage the benchmark runs
 * each Lambda stand-in inside (`instrument.lambda` of the local bridge, and the reconcile run).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { DeserializeMiddleware, MetadataBearer, MiddlewareStack } from '@smithy/types';
import { diffTallies } from './call-counter.ts';
import { natBytes } from './cost-model.ts';

/** The Lambda function whose code is running (undefined: not inside a stand-in). */
export const functionScope = new AsyncLocalStorage<string>();

export interface TrafficTally {
  requests: number;
  requestBytes: number;
  responseBytes: number;
  /** What a NAT gateway would process for these exchanges (`natBytes`). */
  natBytes: number;
}

/** Tallies by `"<function>|<service>|<operation>"` (`gateway` for the gateway's calls). */
export type TrafficSnapshot = Record<string, TrafficTally>;

interface HttpRequestLike {
  readonly method?: string;
  readonly path?: string;
  readonly hostname?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}
interface HttpResponseLike {
  readonly statusCode?: number;
  readonly headers?: Record<string, string>;
}

const headerBytes = (headers: Record<string, string> | undefined): number =>
  Object.entries(headers ?? {}).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${value}\r\n`, 'utf8'),
    2,
  );

const bodyBytes = (body: unknown): number => {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  if (body instanceof Uint8Array) return body.byteLength;
  return 0;
};

export class TrafficMeter {
  private readonly tallies = new Map<string, TrafficTally>();

  add(key: string, requestBytes: number, responseBytes: number): void {
    const tally = this.tallies.get(key) ?? {
      requests: 0,
      requestBytes: 0,
      responseBytes: 0,
      natBytes: 0,
    };
    tally.requests += 1;
    tally.requestBytes += requestBytes;
    tally.responseBytes += responseBytes;
    tally.natBytes += natBytes(requestBytes, responseBytes);
    this.tallies.set(key, tally);
  }

  snapshot(): TrafficSnapshot {
    return Object.fromEntries([...this.tallies].map(([key, tally]) => [key, { ...tally }]));
  }

  /**
   * Counts the bytes of every call of an AWS SDK client. Streamed bodies (S3 uploads of a
   * stream) count by their content-length header.
   */
  instrument<I extends object, O extends MetadataBearer>(
    stack: MiddlewareStack<I, O>,
    service: string,
    /**
     * The function a call outside any stand-in's scope belongs to, from its input (a call a
     * function makes for several requests at once runs outside each request's async context).
     */
    ownerOf?: (input: Record<string, unknown>, operation: string) => string | undefined,
  ): void {
    const middleware: DeserializeMiddleware<I, O> = (next, context) => async (args) => {
      const result = await next(args);
      const request = args.request as HttpRequestLike;
      const response = result.response as HttpResponseLike;
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const sentBody =
        bodyBytes(request.body) || Number(request.headers?.['content-length'] ?? 0) || 0;
      const requestBytes =
        Buffer.byteLength(`${request.method ?? 'POST'} ${request.path ?? '/'} HTTP/1.1\r\n`) +
        headerBytes(request.headers) +
        sentBody;
      const responseBytes =
        17 +
        headerBytes(response.headers) +
        Number(response.headers?.['content-length'] ?? response.headers?.['Content-Length'] ?? 0);
      const fn =
        functionScope.getStore() ??
        ownerOf?.(args.input as Record<string, unknown>, operation) ??
        'unattributed';
      this.add(`${fn}|${service}|${operation}`, requestBytes, responseBytes);
      return result;
    };
    stack.add(middleware, { step: 'deserialize', name: 'benchTrafficMeter' });
  }

  /**
   * Counts the bytes of each request Node's `http` client makes to `origin` (the gateway): the
   * request's header block as sent plus its content-length (the gateway client always sets it),
   * and what its socket read from the request's start to the end of its response.
   */
  watchHttp(origin: string, label: string): () => void {
    const wanted = origin.replace(/\/$/, '');
    const onStart = (message: unknown) => {
      const { request } = message as { request: ClientRequest };
      const at = `${request.protocol}//${String(request.getHeader('host'))}`;
      if (at !== wanted) return;
      let socket: Socket | undefined;
      let read = 0;
      const baseline = (s: Socket) => {
        socket = s;
        read = s.bytesRead;
      };
      if (request.socket) baseline(request.socket);
      else request.once('socket', baseline);
      request.once('response', (response: IncomingMessage) => {
        response.once('end', () => {
          if (!socket) return;
          const header = (request as unknown as { _header?: string })._header ?? '';
          const sent =
            Buffer.byteLength(header, 'latin1') + Number(request.getHeader('content-length') ?? 0);
          this.add(label, sent, socket.bytesRead - read);
        });
      });
    };
    subscribe('http.client.request.start', onStart);
    return () => unsubscribe('http.client.request.start', onStart);
  }
}

/** `later − earlier`, key by key. */
export const diffTraffic = (later: TrafficSnapshot, earlier: TrafficSnapshot): TrafficSnapshot =>
  diffTallies(later, earlier, 'requests');

/**
 * Functions the stack places in the egress VPC (`lib/gateway-callers.ts`): every gateway caller.
 * The receivers and publish-events run outside it.
 */
export const VPC_FUNCTIONS: ReadonlySet<string> = new Set([
  'send-messages',
  'reconcile-status',
  'fetch-attachments',
  'refresh-token',
  'poll-reports',
  'sweep-attachments',
  'export-statistics',
]);

/**
 * The traffic a NAT device processes, with the gateway VPC endpoints for DynamoDB and S3 that every
 * mode creating the VPC has (issue 36): the gateway's calls, and the AWS API calls of functions in
 * the VPC other than DynamoDB's and S3's (Secrets Manager, SQS, KMS, EventBridge, CloudWatch), which
 * still leave through the NAT. `awsApisThroughGatewayEndpoints` is what the endpoints carry for
 * free, shown apart. The local attachment fetcher runs outside a stand-in scope; its S3 uploads are
 * attributed to it by operation. A tally below zero (a difference of two snapshots gone negative)
 * counts as zero: bytes a NAT processes are never negative.
 */
export const natTraffic = (snapshot: TrafficSnapshot) => {
  let gateway = 0;
  let awsApisThroughNat = 0;
  let awsApisThroughGatewayEndpoints = 0;
  for (const [key, tally] of Object.entries(snapshot)) {
    const bytes = Math.max(0, tally.natBytes);
    const [fn = '', service = '', operation = ''] = key.split('|');
    if (key === 'gateway') {
      gateway += bytes;
      continue;
    }
    const owner =
      fn === 'unattributed' &&
      service === 'S3' &&
      /^(Put|Upload|CreateMultipart|CompleteMultipart)/.test(operation)
        ? 'fetch-attachments'
        : fn;
    if (!VPC_FUNCTIONS.has(owner)) continue;
    if (GATEWAY_ENDPOINT_SERVICES.has(service)) awsApisThroughGatewayEndpoints += bytes;
    else awsApisThroughNat += bytes;
  }
  return { gateway, awsApisThroughNat, awsApisThroughGatewayEndpoints };
};

/** Services a gateway VPC endpoint carries (free, no NAT): DynamoDB and S3. */
export const GATEWAY_ENDPOINT_SERVICES: ReadonlySet<string> = new Set(['DynamoDB', 'S3']);

/**
 * The traffic of some runs of a job beyond its fixed run, key by key: each of `runs` less `fixed`
 * (the idle run), a key that moved less than in the fixed run counting zero, summed. The same rule
 * as the reconcile cost lines, so the NAT line of a run never comes out below zero.
 */
export const trafficBeyond = (
  runs: readonly TrafficSnapshot[],
  fixed: TrafficSnapshot,
): TrafficSnapshot => {
  const result: TrafficSnapshot = {};
  for (const run of runs)
    for (const [key, tally] of Object.entries(run)) {
      const base = fixed[key];
      const extra = {
        requests: Math.max(0, tally.requests - (base?.requests ?? 0)),
        requestBytes: Math.max(0, tally.requestBytes - (base?.requestBytes ?? 0)),
        responseBytes: Math.max(0, tally.responseBytes - (base?.responseBytes ?? 0)),
        natBytes: Math.max(0, tally.natBytes - (base?.natBytes ?? 0)),
      };
      const sum = result[key] ?? { requests: 0, requestBytes: 0, responseBytes: 0, natBytes: 0 };
      result[key] = {
        requests: sum.requests + extra.requests,
        requestBytes: sum.requestBytes + extra.requestBytes,
        responseBytes: sum.responseBytes + extra.responseBytes,
        natBytes: sum.natBytes + extra.natBytes,
      };
    }
  return result;
};
