import { Agent, type Dispatcher, request } from 'undici';
import { hashApiPassword, newRandomStr } from '../../protocol/api-password.ts';

/** The part of a running simulator these helpers need (a `Simulator` from `simulator/server.ts`). */
export interface SimulatorEndpoint {
  /** Origin the simulator listens on, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
}

export interface GatewayCall {
  readonly method: Dispatcher.HttpMethod;
  /** Path below the simulator's origin, e.g. `/msg/v1/sms`. */
  readonly path: string;
  /** Bearer token (access or refresh) sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** An object is sent as JSON; a string or Buffer as is (set `content-type` in `headers`). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** undici's `headersTimeout` in ms, to let a test give up on a held connection early. */
  readonly headersTimeout?: number;
  /**
   * Source address of the call's socket, e.g. `127.0.0.2` (all of 127/8 is loopback on Linux), so
   * a test can call from an address other than `127.0.0.1`. Default: the system's choice.
   */
  readonly localAddress?: string;
}

export interface GatewayAnswer {
  readonly status: number;
  /** The parsed JSON body, or the raw text when it is not JSON (`undefined` when empty). */
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * Calls the simulator over loopback and reads the whole answer. Never throws on a non-2xx status:
 * tests assert on `status` and `body` themselves. Network errors (including undici's own timeouts)
 * do throw, so a test can assert that a client timeout fired.
 */
export const callGateway = async (
  sim: SimulatorEndpoint,
  call: GatewayCall,
): Promise<GatewayAnswer> => {
  const headers: Record<string, string> = { ...call.headers };
  if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
  let body: string | Buffer | undefined;
  if (typeof call.body === 'string' || Buffer.isBuffer(call.body)) body = call.body;
  else if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(new URL(call.path, sim.url), {
    method: call.method,
    headers,
    body,
    ...(call.headersTimeout === undefined ? {} : { headersTimeout: call.headersTimeout }),
    ...(call.localAddress === undefined ? {} : { dispatcher: boundAgent(call.localAddress) }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: parseBody(text), headers: response.headers };
};

// One keep-alive pool per source address, for the life of the test process.
const boundAgents = new Map<string, Agent>();

/** An undici dispatcher whose sockets are bound to `localAddress`. */
export const boundAgent = (localAddress: string): Agent => {
  let agent = boundAgents.get(localAddress);
  if (agent === undefined) {
    agent = new Agent({ localAddress });
    boundAgents.set(localAddress, agent);
  }
  return agent;
};

const parseBody = (text: string): unknown => {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export interface Tokens {
  readonly token: string;
  readonly refreshToken: string;
}

/**
 * Issues a token pair the way a real client does: a fresh `randomStr`, the password proof from
 * `hashApiPassword`, `POST /auth/v1/{randomStr}`. Throws with the gateway's answer when refused,
 * so a test that needs a token fails loudly rather than with a confusing later 401. `from` binds
 * the call to a source address (see `GatewayCall.localAddress`).
 */
export const authenticate = async (
  sim: SimulatorEndpoint,
  credentials: { readonly apiKey: string; readonly apiPassword: string },
  from: { readonly localAddress?: string } = {},
): Promise<Tokens> => {
  const randomStr = newRandomStr();
  const answer = await callGateway(sim, {
    ...from,
    method: 'POST',
    path: `/auth/v1/${randomStr}`,
    body: {
      apiKey: credentials.apiKey,
      apiPwd: hashApiPassword(credentials.apiPassword, randomStr),
    },
  });
  const data = dataOf(answer.body);
  if (
    answer.status !== 200 ||
    typeof data?.token !== 'string' ||
    typeof data.refreshToken !== 'string'
  ) {
    throw new Error(`authentication refused: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return { token: data.token, refreshToken: data.refreshToken };
};

/** The `data` member of a gateway envelope when it is an object. */
const dataOf = (body: unknown): Record<string, unknown> | undefined => {
  if (body === null || typeof body !== 'object' || !('data' in body)) return undefined;
  const { data } = body;
  return data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : undefined;
};

export type Json = Record<string, unknown>;

/** Narrows an answer's JSON to an object, failing the test with the value when it is not one. */
export const asObject = (value: unknown): Json => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  }
  return value as Json;
};

/** Narrows an answer's JSON to a list of objects. */
export const asList = (value: unknown): Json[] => {
  if (!Array.isArray(value)) throw new Error(`expected a list, got ${JSON.stringify(value)}`);
  return value.map(asObject);
};

/** Posts `form` to the multipart MMS endpoint; Response serialises it the way fetch would, boundary and all. */
export const postMultipartMms = async (
  sim: SimulatorEndpoint,
  token: string,
  form: FormData,
): Promise<GatewayAnswer> => {
  const encoded = new Response(form);
  return callGateway(sim, {
    method: 'POST',
    path: '/xms/mms/file/v1',
    token,
    body: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
  });
};

/** The gateway date-time formats, each with the pattern of its text. */
const DATE_FORMATS: ReadonlyArray<readonly [string, RegExp]> = [
  ['space', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/],
  ['T', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/],
  ['compact', /^\d{14}$/],
  ['kst-zoned', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/],
  ['utc', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/],
];

/** Which gateway date-time format `date` is written in ('space', 'T', …), or `other: DATE`. */
export const dateFormatOf = (date: string): string =>
  DATE_FORMATS.find(([, pattern]) => pattern.test(date))?.[0] ?? `other: ${date}`;
