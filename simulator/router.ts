import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface SimRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  /**
   * The calling socket's address, normalised by {@link normaliseAddress} (an IPv4 client of a
   * dual-stack listener reads `127.0.0.1`, not `::ffff:127.0.0.1`); `''` when the socket had
   * already gone. The source allowlist and the refresh token's same-address rule compare it.
   */
  readonly remoteAddress: string;
  /**
   * The simulated instant the request arrived (its headers, before the body was read): the TPS
   * quota counts a send in the second it arrived, however long reading and checking it took.
   */
  readonly arrivedAt: number;
  /** The body parsed as JSON; `undefined` when empty, throws `SyntaxError` when malformed. */
  json(): unknown;
}

export interface SimResponse {
  readonly status: number;
  /** An object is sent as JSON; a Buffer or stream as is. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type SimHandler = (request: SimRequest) => SimResponse | Promise<SimResponse>;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly handler: SimHandler;
}

/** A small method + path router; `:name` segments become `params.name`. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, path: string, handler: SimHandler): this {
    const names: string[] = [];
    const source = path
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  /**
   * Routes as the specs write them, `METHOD /path` with `{name}` path segments, each to the
   * handler of the same name, in table order (the first matching route wins).
   */
  addAll<Name extends string>(
    routes: Readonly<Record<Name, string>>,
    handlers: Readonly<Record<Name, SimHandler>>,
  ): this {
    for (const name of Object.keys(routes) as Name[]) {
      const [method = '', path = ''] = routes[name].split(' ');
      this.add(method, path.replace(/\{(\w+)\}/g, ':$1'), handlers[name]);
    }
    return this;
  }

  match(
    method: string,
    path: string,
  ): { handler: SimHandler; params: Record<string, string> } | 'method-not-allowed' | undefined {
    let pathMatched = false;
    for (const route of this.routes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => {
        params[name] = decodeURIComponent(match[index + 1] ?? '');
      });
      return { handler: route.handler, params };
    }
    return pathMatched ? 'method-not-allowed' : undefined;
  }
}

/**
 * One spelling per address, so an allowlist entry and a socket's address compare as text: an
 * IPv4-mapped IPv6 address reads as its IPv4 address, and IPv6 takes its compressed lower-case
 * form (`0:0:0:0:0:0:0:1` reads `::1`). Anything unparsable is returned as given.
 */
export const normaliseAddress = (address: string | undefined): string => {
  const trimmed = (address ?? '').trim();
  if (!trimmed.includes(':')) return trimmed;
  let host: string;
  try {
    // The WHATWG URL parser writes IPv6 hosts in their canonical compressed form, an IPv4-mapped
    // one as `::ffff:7f00:1`.
    host = new URL(`http://[${trimmed}]/`).hostname.slice(1, -1);
  } catch {
    return trimmed;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const high = Number.parseInt(mapped[1] ?? '0', 16);
  const low = Number.parseInt(mapped[2] ?? '0', 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
};

export const isReadable = (value: unknown): value is Readable =>
  value !== null && typeof value === 'object' && typeof (value as Readable).pipe === 'function';
