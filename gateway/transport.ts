import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';

/** One HTTP call to the gateway, as the client builds it. */
export interface HttpCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A text body, or a `multipart/form-data` one (the platform's `FormData`; its boundary is set here). */
  readonly body?: string | FormData;
  /** Time allowed for the whole call (or, when `stream` is set, until the headers arrive). */
  readonly timeoutMs: number;
  /** Hand the body back as a stream instead of reading it; for attachment downloads. */
  readonly stream?: boolean;
  /**
   * Runs once the connection is open (TLS included) and the body is encoded, immediately before
   * the request's first byte is written: the last moment before the call reaches the server, where
   * a sender takes its share of a rate limit. Its wait counts against neither the idle timeout nor
   * the call's time limit. If it rejects, nothing is written, the connection is closed, and the
   * call rejects with that error unchanged.
   */
  readonly beforeWrite?: () => Promise<void>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text; absent when the call asked for a stream. */
  readonly text?: string;
  readonly stream?: Readable;
}

/** Why a call got no answer. */
export class HttpTransportFailure extends Error {
  override readonly name = 'HttpTransportFailure';
  constructor(
    readonly kind: 'timeout' | 'connection',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The port the gateway client sends through; tests and benchmarks may pass their own. */
export type HttpTransport = (call: HttpCall) => Promise<HttpAnswer>;

/**
 * Keep-alive connections for http and https, on Node's own `http`/`https` agents. `lookup`, when
 * given, resolves every host these connections go to (the content-URL address check).
 */
export interface ConnectionPool {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
  readonly lookup?: LookupFunction;
  /** Closes every connection of the pool. */
  close(): Promise<void>;
}

export const connectionPool = (options: {
  /** Connections per host and port. */
  readonly maxSockets: number;
  readonly lookup?: LookupFunction;
}): ConnectionPool => {
  // An idle keep-alive connection is closed after 30 s, before a server's own idle limit.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, timeout: 30_000 };
  const http = new HttpAgent(agentOptions);
  const https = new HttpsAgent(agentOptions);
  return {
    http,
    https,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    close: async () => {
      http.destroy();
      https.destroy();
    },
  };
};

// One keep-alive pool per process (per Lambda container), shared by every client instance.
const sharedPool = connectionPool({ maxSockets: 64 });

/** `beforeWrite` rejected (its error is the cause): nothing of the request was written. */
class NotWritten extends Error {
  constructor(override readonly cause: unknown) {
    super('the request was not written', { cause });
  }
}

/** A call that ran out of time (the request is destroyed with it). */
class CallTimeout extends Error {
  override readonly name = 'TimeoutError';
}

const flattenHeaders = (
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined
        ? []
        : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );

/** A form as bytes with its `multipart/form-data` content type (boundary included). */
const encodeForm = async (form: FormData): Promise<{ bytes: Buffer; contentType: string }> => {
  const encoded = new Response(form);
  return {
    bytes: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
  };
};

interface Exchange {
  readonly response: IncomingMessage;
  /** Ends the whole-call deadline (once the body is read). */
  readonly done: () => void;
  /** The timeout that destroyed the request, if one did (a body read then fails with "aborted"). */
  readonly timedOut: () => CallTimeout | undefined;
}

/**
 * Sends one request through `pool`. `idleMs` limits the wait for the headers and every pause
 * of the connection afterwards; `deadlineMs`, when set, the whole exchange until `done()`.
 * Redirects are never followed. No trace header is sent: the gateway is not part of the bridge's
 * traces, and nothing of an invocation's trace leaves AWS (docs/operations.md, "Tracing").
 */
const exchange = (
  pool: ConnectionPool,
  request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: Buffer;
    readonly idleMs: number;
    readonly deadlineMs?: number;
    readonly beforeWrite?: () => Promise<void>;
  },
): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') {
      reject(new Error(`unsupported protocol ${url.protocol}`));
      return;
    }
    const outgoing = (secure ? httpsRequest : httpRequest)(url, {
      method: request.method,
      headers: {
        ...request.headers,
        ...(request.body ? { 'content-length': String(request.body.length) } : {}),
      },
      agent: secure ? pool.https : pool.http,
      ...(pool.lookup ? { lookup: pool.lookup } : {}),
    });
    let timeout: CallTimeout | undefined;
    const timeOut = (what: string, ms: number) => () => {
      timeout = new CallTimeout(`${what} within ${ms} ms`);
      outgoing.destroy(timeout);
    };
    const idle = timeOut('no data', request.idleMs);
    // The idle limit covers connecting too; the whole-call deadline starts with the first byte.
    outgoing.setTimeout(request.idleMs, idle);
    let deadline: NodeJS.Timeout | undefined;
    const done = () => clearTimeout(deadline);
    // Every error is handled, also one after the answer began (the body's reader sees it then).
    outgoing.on('error', (error) => {
      done();
      reject(error);
    });
    outgoing.once('response', (response) => {
      resolve({ response, done, timedOut: () => timeout });
    });
    const write = () => {
      outgoing.setTimeout(request.idleMs, idle);
      if (request.deadlineMs !== undefined)
        deadline = setTimeout(timeOut('no whole answer', request.deadlineMs), request.deadlineMs);
      outgoing.end(request.body);
    };
    const { beforeWrite } = request;
    if (!beforeWrite) {
      write();
      return;
    }
    outgoing.once('socket', (socket) => {
      const connected = () => {
        // Waiting for the hook is not the connection idling.
        outgoing.setTimeout(0);
        beforeWrite().then(write, (error: unknown) => {
          reject(new NotWritten(error));
          outgoing.destroy();
        });
      };
      // A kept-alive connection is open already; a new one is open once its handshake is done.
      if (!socket.connecting) connected();
      else socket.once(secure ? 'secureConnect' : 'connect', connected);
    });
  });

/** The whole body as UTF-8 text; a destroyed request (a timeout) fails the read. */
const readText = async (response: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  if (!response.complete) throw new Error('the connection closed before the whole answer');
  return Buffer.concat(chunks).toString('utf8');
};

/** Sends a call over Node's keep-alive pool of this process and maps failures. */
export const nodeTransport: HttpTransport = async (call) => {
  let headers = call.headers;
  let body: Buffer | undefined;
  if (typeof call.body === 'string') body = Buffer.from(call.body, 'utf8');
  else if (call.body !== undefined) {
    const form = await encodeForm(call.body);
    headers = { ...headers, 'content-type': form.contentType };
    body = form.bytes;
  }
  let answer: Exchange;
  try {
    answer = await exchange(sharedPool, {
      method: call.method,
      url: call.url,
      headers,
      ...(body ? { body } : {}),
      idleMs: call.timeoutMs,
      ...(call.stream ? {} : { deadlineMs: call.timeoutMs }),
      ...(call.beforeWrite ? { beforeWrite: call.beforeWrite } : {}),
    });
  } catch (error) {
    if (error instanceof NotWritten) throw error.cause;
    throw toTransportFailure(error, call.timeoutMs);
  }
  const { response, done, timedOut } = answer;
  const status = response.statusCode ?? 0;
  const answerHeaders = flattenHeaders(response.headers);
  if (call.stream) return { status, headers: answerHeaders, stream: response };
  try {
    return { status, headers: answerHeaders, text: await readText(response) };
  } catch (error) {
    throw toTransportFailure(timedOut() ?? error, call.timeoutMs);
  } finally {
    done();
  }
};

/** The headers of a plain download, and its body still to be read. */
export interface DownloadAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly stream: Readable;
}

/** An attachment as an answer streams it: its media type, its length when given, its bytes. */
export interface StreamedAttachment {
  readonly contentType: string;
  readonly contentLength?: number;
  readonly body: Readable;
}

/**
 * The attachment an answer carries: a 2xx whose body is not JSON (the gateway answers refusals
 * with a JSON envelope). `undefined` for any other answer, whose body the caller reads as an error.
 */
export const attachmentOf = (answer: DownloadAnswer): StreamedAttachment | undefined => {
  const contentType = answer.headers['content-type'] ?? 'application/octet-stream';
  if (answer.status < 200 || answer.status >= 300 || contentType.startsWith('application/json'))
    return undefined;
  const length = contentLengthOf(answer.headers['content-length']);
  return {
    contentType,
    ...(length === undefined ? {} : { contentLength: length }),
    body: answer.stream,
  };
};

/** A `Content-Length` header as a number; `undefined` when missing or not a plain count. */
const contentLengthOf = (header: string | undefined): number | undefined => {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header);
};

/**
 * GETs an absolute URL without credentials (an MO attachment's `contentUrl`) through `pool`
 * (by default the shared keep-alive pool). Redirects are NOT followed: a 3xx is answered as it is,
 * so that the caller checks every hop against its own rules before it goes there. `timeoutMs`
 * limits the wait for the headers and each pause between body chunks, not the whole transfer.
 * The caller reads or destroys `stream`.
 */
export const downloadUrl = async (
  url: string,
  timeoutMs: number,
  pool: ConnectionPool = sharedPool,
): Promise<DownloadAnswer> => {
  try {
    const { response } = await exchange(pool, {
      method: 'GET',
      url,
      headers: {},
      idleMs: timeoutMs,
    });
    return {
      status: response.statusCode ?? 0,
      headers: flattenHeaders(response.headers),
      stream: response,
    };
  } catch (error) {
    throw toTransportFailure(error, timeoutMs);
  }
};

const toTransportFailure = (error: unknown, timeoutMs: number): HttpTransportFailure =>
  error instanceof CallTimeout
    ? new HttpTransportFailure('timeout', `no answer within ${timeoutMs} ms`, { cause: error })
    : new HttpTransportFailure('connection', `connection failed: ${(error as Error).message}`, {
        cause: error,
      });
