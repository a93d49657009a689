import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, errors, type FormData, request } from 'undici';

/** One HTTP call to the gateway, as the client builds it. */
export interface HttpCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | FormData;
  /** Time allowed for the whole call (or, when `stream` is set, until the headers arrive). */
  readonly timeoutMs: number;
  /** Hand the body back as a stream instead of reading it; for attachment downloads. */
  readonly stream?: boolean;
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

// One keep-alive pool per process (per Lambda container), shared by every client instance.
const sharedAgent = new Agent({
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 60_000,
  connections: 64,
});

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

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

/** Sends a call over undici with the process-wide keep-alive agent and maps failures. */
export const undiciTransport: HttpTransport = async (call) => {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  try {
    const response = await request(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      dispatcher: sharedAgent,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
      signal: call.stream ? undefined : deadline,
    });
    const headers = flattenHeaders(response.headers);
    if (call.stream) return { status: response.statusCode, headers, stream: response.body };
    return { status: response.statusCode, headers, text: await response.body.text() };
  } catch (error) {
    throw toTransportFailure(error, call);
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
 * GETs an absolute URL without credentials (an MO attachment's `contentUrl`) through `dispatcher`
 * (by default the shared keep-alive pool). Redirects are NOT followed: a 3xx is answered as it is,
 * so that the caller checks every hop against its own rules before it goes there. `timeoutMs`
 * limits the wait for the headers and each pause between body chunks, not the whole transfer.
 * The caller reads or destroys `stream`.
 */
export const downloadUrl = async (
  url: string,
  timeoutMs: number,
  dispatcher: Dispatcher = sharedAgent,
): Promise<DownloadAnswer> => {
  try {
    const response = await request(url, {
      method: 'GET',
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      stream: response.body,
    };
  } catch (error) {
    throw toTransportFailure(error, { method: 'GET', url, headers: {}, timeoutMs });
  }
};

const toTransportFailure = (error: unknown, call: HttpCall): HttpTransportFailure => {
  const code = (error as { code?: unknown }).code;
  const name = (error as { name?: unknown }).name;
  const timedOut =
    (typeof code === 'string' && TIMEOUT_CODES.has(code)) ||
    name === 'TimeoutError' ||
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError;
  return timedOut
    ? new HttpTransportFailure('timeout', `no answer within ${call.timeoutMs} ms`, { cause: error })
    : new HttpTransportFailure('connection', `connection failed: ${(error as Error).message}`, {
        cause: error,
      });
};
