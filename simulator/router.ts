import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface SimRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
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

export const isReadable = (value: unknown): value is Readable =>
  value !== null && typeof value === 'object' && typeof (value as Readable).pipe === 'function';
