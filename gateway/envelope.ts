import type { Readable } from 'node:stream';
import {
  errorForCode,
  GatewayAuthenticationError,
  type GatewayError,
  GatewayResponseError,
  GatewayRetryableError,
  GatewayTransportError,
} from './errors.ts';
import { type GatewayEnvelope, GatewayEnvelopeSchema } from './schemas/lenient.ts';
import * as z from './schemas/zod.ts';
import type { GatewayHost, GatewayHosts } from './settings.ts';
import {
  attachmentOf,
  type HttpAnswer,
  type HttpTransport,
  HttpTransportFailure,
  nodeTransport,
  type StreamedAttachment,
} from './transport.ts';

/** One gateway operation: which host, which method, which path. */
export interface Endpoint {
  readonly host: GatewayHost;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
}

/** How a call authenticates: a bearer token, the `apiKey` header (opt-out list), or nothing. */
export type CallAuth = { bearer: string } | { apiKey: string } | 'none';

export interface GatewayCall {
  readonly endpoint: Endpoint;
  readonly auth: CallAuth;
  /** Values for `{name}` segments of the endpoint's path. */
  readonly pathParams?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly json?: unknown;
  /**
   * A `multipart/form-data` body (the platform's `FormData`; the transport sets the boundary). Give a function
   * to have the form built afresh for every send, so a call that is repeated (the token retry)
   * never depends on a body that was already read.
   */
  readonly form?: FormData | (() => FormData);
  /** Extra request headers (RCS brand `apiId`/`apiSecret`, chatbot `brandKey`); auth wins. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Leaves out the `Content-Type` header that every other call carries: only for the calls whose
   * spec section says "no Content-Type header" (the tracking URL list, spec 01 §4.16).
   */
  readonly withoutContentType?: true;
  /** Runs immediately before the request's first byte is written (see `HttpCall.beforeWrite`). */
  readonly beforeWrite?: () => Promise<void>;
}

export interface GatewayHttpOptions {
  readonly hosts: GatewayHosts;
  /** Per-call time limit; default 10 s. */
  readonly timeoutMs?: number;
  readonly transport?: HttpTransport;
}

/**
 * The wire layer of the gateway client: builds the request, applies the envelope rules of the
 * field notes (success only on code `10000`, whatever the HTTP status) and turns every failure into
 * a typed {@link GatewayError}.
 */
export class GatewayHttp {
  private readonly hosts: GatewayHosts;
  private readonly timeoutMs: number;
  private readonly transport: HttpTransport;

  constructor(options: GatewayHttpOptions) {
    this.hosts = options.hosts;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.transport = options.transport ?? nodeTransport;
  }

  /** Calls the gateway and returns the successful envelope. */
  async call(call: GatewayCall): Promise<GatewayEnvelope> {
    const name = endpointName(call.endpoint);
    const answer = await this.send(call, false);
    return parseEnvelope(answer, name);
  }

  /**
   * Calls an endpoint that answers raw bytes (an MO attachment) and returns the stream. An answer
   * that is a JSON envelope is read as a gateway error.
   */
  async download(call: GatewayCall): Promise<StreamedAttachment> {
    const name = endpointName(call.endpoint);
    const answer = await this.send(call, true);
    const stream = answer.stream;
    if (!stream)
      throw new GatewayResponseError({ code: 'NO_BODY', message: 'no body', endpoint: name });
    const attachment = attachmentOf({ status: answer.status, headers: answer.headers, stream });
    if (attachment) return attachment;
    const text = await readText(stream);
    parseEnvelope({ ...answer, text }, name);
    throw new GatewayResponseError({
      code: 'UNEXPECTED_JSON',
      message: 'expected attachment bytes, got a JSON success envelope',
      endpoint: name,
      httpStatus: answer.status,
    });
  }

  private async send(call: GatewayCall, stream: boolean): Promise<HttpAnswer> {
    const name = endpointName(call.endpoint);
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.auth !== 'none') {
      if ('bearer' in call.auth) headers.authorization = `Bearer ${call.auth.bearer}`;
      else headers.apiKey = call.auth.apiKey;
    }
    let body: string | FormData | undefined;
    if (call.form) {
      // The transport sets `multipart/form-data` with its boundary.
      body = typeof call.form === 'function' ? call.form() : call.form;
    } else {
      // Every call carries it, GET and DELETE without a body too: spec 01 §4, 02 §4.5 and 03 §2
      // list it among the headers of every request.
      if (!call.withoutContentType) headers['content-type'] = 'application/json;charset=UTF-8';
      if (call.json !== undefined) body = JSON.stringify(call.json);
    }
    try {
      return await this.transport({
        method: call.endpoint.method,
        url: this.url(call),
        headers,
        ...(body === undefined ? {} : { body }),
        timeoutMs: this.timeoutMs,
        stream,
        ...(call.beforeWrite ? { beforeWrite: call.beforeWrite } : {}),
      });
    } catch (error) {
      if (error instanceof HttpTransportFailure) {
        throw new GatewayTransportError(error.kind, {
          code: error.kind === 'timeout' ? 'TIMEOUT' : 'CONNECTION',
          message: error.message,
          endpoint: name,
          cause: error,
        });
      }
      throw error;
    }
  }

  private url(call: GatewayCall): string {
    const path = call.endpoint.path.replace(/\{(\w+)\}/g, (_, key: string) => {
      const value = call.pathParams?.[key];
      if (value === undefined)
        throw new Error(`missing path parameter ${key} for ${call.endpoint.path}`);
      return encodeURIComponent(value);
    });
    const url = new URL(path.replace(/^\//, ''), withTrailingSlash(this.hosts[call.endpoint.host]));
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }
}

export const endpointName = (endpoint: Endpoint): string => `${endpoint.method} ${endpoint.path}`;

const withTrailingSlash = (base: string): string => (base.endsWith('/') ? base : `${base}/`);

const readText = async (stream: Readable): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
};

/** Applies the envelope rules to an answer; throws the typed error for any failure. */
const parseEnvelope = (answer: HttpAnswer, endpoint: string): GatewayEnvelope => {
  const status = answer.status;
  let json: unknown;
  try {
    json = answer.text === undefined || answer.text === '' ? undefined : JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  const parsed = GatewayEnvelopeSchema.safeParse(json);
  if (!parsed.success) throw errorWithoutEnvelope(status, endpoint, answer.text);
  const envelope = parsed.data;
  if (envelope.code !== '10000') {
    throw errorForCode({
      code: envelope.code,
      message: envelope.message,
      endpoint,
      httpStatus: status,
    });
  }
  return envelope;
};

const errorWithoutEnvelope = (
  status: number,
  endpoint: string,
  text: string | undefined,
): GatewayError => {
  const context = {
    code: `HTTP_${status}`,
    message: `answer without a gateway envelope: ${(text ?? '').slice(0, 200)}`,
    endpoint,
    httpStatus: status,
  };
  if (status === 401 || status === 403) return new GatewayAuthenticationError(context);
  if (status >= 500) return new GatewayRetryableError(context);
  return new GatewayResponseError(context);
};

/**
 * A parse function for one side of a call: `(schema, value, endpoint)` answers the parsed value,
 * or throws the error `failure` builds from the mismatch.
 */
export const schemaParser =
  (failure: (error: z.core.$ZodError, endpoint: Endpoint) => Error) =>
  <S extends z.ZodMiniType>(schema: S, value: unknown, endpoint: Endpoint): z.output<S> => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw failure(parsed.error, endpoint);
  };

/** Parses `data` with the endpoint's schema; a mismatch is a {@link GatewayResponseError}. */
export const parseData = schemaParser(
  (error, endpoint) =>
    new GatewayResponseError({
      code: 'INVALID_RESPONSE',
      message: z.prettifyError(error),
      endpoint: endpointName(endpoint),
      cause: error,
    }),
);
