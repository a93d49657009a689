import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAuth } from './auth.ts';
import { SimClock } from './clock.ts';
import { envelope, type SentRecipient, type SimContext } from './context.ts';
import { createControl } from './control.ts';
import type { SimControls } from './controls.ts';
import { createMessenger } from './messenger.ts';
import { createMo } from './mo.ts';
import { createOptOut } from './opt-out.ts';
import {
  type Faults,
  FaultsSchema,
  type SimulatorOptions,
  type SimulatorOptionsInput,
  SimulatorOptionsSchema,
} from './options.ts';
import { mulberry32 } from './prng.ts';
import { createRcs } from './rcs.ts';
import { createReports } from './reports.ts';
import {
  isReadable,
  normaliseAddress,
  Router,
  type SimRequest,
  type SimResponse,
} from './router.ts';
import { Scheduler } from './scheduler.ts';
import { createSending } from './sending.ts';
import { createStatus } from './status.ts';
import { createTrackingUrls } from './tracking-urls.ts';

/** Largest request body read; larger bodies answer HTTP 413 `21413`. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The retryable code answered by the `errorRate` fault (the "every 49xxx" family). */
export const FAULT_ERROR_CODE = '49999';

export interface SimHosts {
  /** `{api_url}`: authentication, `/msg/...`, reports, MO, opt-out register/delete, tracking URLs. */
  readonly api: string;
  /** `{send_url}`: `/xms/...`, `/rcs/...`, `/msgr/...` sending. */
  readonly send: string;
  /** `{mnt_url}`: opt-out list queries (and management, not simulated). */
  readonly mnt: string;
}

/** A running gateway simulator; every host of spec 01 is served on `url`. */
export interface Simulator extends SimControls {
  /** Origin, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  readonly hosts: SimHosts;
  readonly clock: SimClock;
  readonly options: SimulatorOptions;
  /** Every recipient acceptance, in order (a `cliKey` accepted twice would appear twice). */
  acceptances(): readonly SentRecipient[];
  /** Stops the tick and the server, dropping keep-alive and held connections. */
  close(): Promise<void>;
}

/** Thrown by {@link startSimulator} when options are invalid; lists every problem. */
export class SimulatorOptionsError extends Error {
  override readonly name = 'SimulatorOptionsError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid simulator options:\n${problems.map((line) => `  - ${line}`).join('\n')}`);
  }
}

/**
 * The options with defaults applied, or every problem as `path: message` lines: the schema's and
 * the rules across fields it does not hold (a webhook delivery needs its URL).
 */
export const parseSimulatorOptions = (
  input: unknown,
): { options: SimulatorOptions } | { problems: string[] } => {
  const parsed = SimulatorOptionsSchema.safeParse(input);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(options)'}: ${issue.message}`,
      );
  // Read from the input, not the parse result, so this is reported next to schema problems.
  const raw = new Map<string, unknown>(
    typeof input === 'object' && input !== null ? Object.entries(input) : [],
  );
  const delivery = raw.get('reportDelivery');
  if (
    (delivery === 'webhook' || delivery === 'both') &&
    raw.get('reportWebhookUrl') === undefined
  ) {
    problems.push(`reportDelivery: '${delivery}' needs reportWebhookUrl`);
  }
  return parsed.success && problems.length === 0 ? { options: parsed.data } : { problems };
};

/** Starts the gateway simulator on `options.host`/`options.port` (0 = ephemeral). */
export const startSimulator = async (input: SimulatorOptionsInput): Promise<Simulator> => {
  const parsed = parseSimulatorOptions(input);
  if ('problems' in parsed) throw new SimulatorOptionsError(parsed.problems);
  const { options } = parsed;
  const clock = new SimClock(options.clock);
  const scheduler = new Scheduler(clock);
  // The token fault and its draws read the context, which is made below (called only later).
  const auth = createAuth({ options, clock, faults: () => ctx.faults, random: () => ctx.random() });
  // Reports is created from the context, and the context's hook calls reports: bind late.
  let acceptRecipient: (recipient: SentRecipient) => void = () => undefined;
  const acceptances: SentRecipient[] = [];
  const ctx: SimContext = {
    options,
    clock,
    scheduler,
    state: { recipients: new Map() },
    hooks: {
      onAccepted: (recipient) => {
        acceptances.push(recipient);
        acceptRecipient(recipient);
      },
    },
    faults: { ...options.faults },
    random: mulberry32(options.seed),
    nextId: idFactory(),
    requireBearer: (request) => auth.requireBearer(request),
    requireApiKeyHeader: (request) => auth.requireApiKeyHeader(request),
    log: options.verbose ? (line) => console.log(`[simulator] ${line}`) : () => undefined,
  };

  const reports = createReports(ctx);
  acceptRecipient = (recipient) => reports.onAccepted(recipient);
  const mo = createMo(ctx);
  const sending = createSending(ctx);

  const router = new Router();
  auth.register(router);
  sending.register(router);
  createStatus(ctx).register(router);
  reports.register(router);
  mo.register(router);
  createOptOut(ctx).register(router);
  createTrackingUrls(ctx).register(router);
  createMessenger(ctx).register(router);
  createRcs(ctx).register(router);

  const controls: SimControls = {
    async advance(ms) {
      clock.advance(ms);
      await scheduler.runDue();
    },
    settle: () => scheduler.runDue(),
    setFaults(partial) {
      const changes = Object.entries(partial).filter(([, value]) => value !== undefined);
      ctx.faults = FaultsSchema.parse({ ...ctx.faults, ...Object.fromEntries(changes) });
      return { ...ctx.faults };
    },
    revokeTokens: () => auth.revokeAll(),
    injectMo: (items) => mo.inject(items),
    snapshot: () => ({
      now: new Date(clock.now()).toISOString(),
      ...auth.snapshot(),
      ...sending.snapshot(),
      faults: { ...ctx.faults },
      reports: reports.snapshot(),
      mo: mo.snapshot(),
    }),
  };
  createControl(controls).register(router);

  // Its own sequence, so turning the jitter on or off leaves the outcome mix's draws as they were.
  const handle = handler(ctx, router, mulberry32(options.seed ^ LATENCY_SEED));
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('simulator: request failed', error);
      response.destroy();
    });
  });
  const url = await listen(server, options.host, options.port);
  mo.setBaseUrl(url); // MO content URLs are absolute, and port 0 is only known now
  scheduler.start();

  return {
    url,
    hosts: { api: url, send: url, mnt: url },
    clock,
    options,
    ...controls,
    acceptances: () => acceptances,
    async close() {
      scheduler.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets and calls held by the timeout fault would keep close() waiting.
      server.closeAllConnections();
      await closed;
    },
  };
};

const listen = (server: Server, host: string, port: number): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error(`unexpected listen address ${String(address)}`));
        return;
      }
      resolve(`http://${originHost(address.address)}:${address.port}`);
    });
  });

// A wildcard bind address is not something a client can connect to; loopback is.
const originHost = (address: string): string => {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
};

// A per-instance tag keeps keys of two simulators apart when their records meet in one store.
const idFactory = (): ((prefix: string) => string) => {
  const tag = randomBytes(3).toString('hex');
  let counter = 0;
  return (prefix) => `${prefix}${tag}${String(++counter).padStart(10, '0')}`;
};

/** Raised by `SimRequest.json()` so the server can tell a client's bad JSON from a bug. */
class MalformedJsonError extends SyntaxError {
  override readonly name = 'MalformedJsonError';
}

/** The request handler of the server: one simulator context, its routes. */
const handler =
  (ctx: SimContext, router: Router, latencyRandom: () => number) =>
  async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const url = new URL(incoming.url ?? '/', 'http://simulator');
    const method = incoming.method ?? 'GET';
    const arrivedAt = ctx.clock.now();
    const body = await readBody(incoming);
    if (body === 'aborted') return;
    if (body === 'too-large') {
      send(outgoing, envelope('21413', `body larger than ${MAX_BODY_BYTES} bytes`, undefined, 413));
      return;
    }
    // Control endpoints are the test's remote control: faults must never hit them.
    if (!url.pathname.startsWith('/_sim/')) {
      const fault = await drawFault(ctx, latencyRandom);
      if (fault === 'hold') return; // never answer; the socket is dropped by the client or close()
      if (fault) {
        ctx.log(`${method} ${url.pathname} -> ${fault.status} (fault)`);
        send(outgoing, fault);
        return;
      }
    }
    const response = await route(router, {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: incoming.headers,
      body,
      remoteAddress: normaliseAddress(incoming.socket.remoteAddress),
      arrivedAt,
    });
    if (!url.pathname.startsWith('/_sim/')) {
      ctx.log(`${method} ${url.pathname} -> ${response.status} ${codeOf(response)}`);
    }
    send(outgoing, response);
  };

/** Mixed into `seed` for the latency jitter's own PRNG. */
const LATENCY_SEED = 0x5eed1a7;

/**
 * The real delay of one gateway call: `latencyMs` plus a uniform whole number of milliseconds
 * from 0 to `latencyJitterMs`, drawn only when the jitter is on.
 */
export const callLatencyMs = (
  faults: Pick<Faults, 'latencyMs' | 'latencyJitterMs'>,
  random: () => number,
): number =>
  faults.latencyMs +
  (faults.latencyJitterMs > 0 ? Math.floor(random() * (faults.latencyJitterMs + 1)) : 0);

/**
 * The fault for this call, drawn with the seeded PRNG. A rate of 0 draws nothing, so turning a
 * fault off does not shift the outcome mix of reports.
 */
const drawFault = async (
  ctx: SimContext,
  latencyRandom: () => number,
): Promise<SimResponse | 'hold' | undefined> => {
  const { timeoutRate, errorRate, http200ErrorRate } = ctx.faults;
  const latencyMs = callLatencyMs(ctx.faults, latencyRandom);
  if (latencyMs > 0) await sleep(latencyMs);
  if (timeoutRate > 0 && ctx.random() < timeoutRate) return 'hold';
  if (errorRate > 0 && ctx.random() < errorRate) {
    return envelope(FAULT_ERROR_CODE, 'temporary failure (simulated); retry', undefined, 503);
  }
  if (http200ErrorRate > 0 && ctx.random() < http200ErrorRate) {
    const pick = Math.floor(ctx.random() * HTTP_200_FAULTS.length);
    const [code, message] = HTTP_200_FAULTS[pick] ?? [];
    return envelope(code ?? '29019', `${message ?? 'db error'} (simulated)`, undefined, 200);
  }
  return undefined;
};

/** Failures the gateway answers with HTTP 200 (field notes), drawn by `http200ErrorRate`. */
export const HTTP_200_FAULTS = [
  ['29018', 'send quota exceeded'],
  ['29019', 'db error'],
  ['29039', 'no response data'],
] as const;

const route = async (
  router: Router,
  request: Omit<SimRequest, 'params' | 'json'>,
): Promise<SimResponse> => {
  const match = router.match(request.method, request.path);
  if (match === undefined) {
    return envelope('21404', `no such endpoint: ${request.path}`, undefined, 404);
  }
  if (match === 'method-not-allowed') {
    return envelope('21405', `method ${request.method} not allowed here`, undefined, 405);
  }
  let parsed: { value: unknown } | undefined;
  const json = (): unknown => {
    if (parsed) return parsed.value;
    const text = request.body.toString('utf8');
    try {
      parsed = { value: text.trim() === '' ? undefined : JSON.parse(text) };
    } catch (error) {
      throw new MalformedJsonError('request body is not valid JSON', { cause: error });
    }
    return parsed.value;
  };
  try {
    return await match.handler({ ...request, params: match.params, json });
  } catch (error) {
    if (error instanceof MalformedJsonError) {
      return envelope('21000', error.message, undefined, 400);
    }
    console.error(`simulator: ${request.method} ${request.path} failed`, error);
    return envelope('49000', 'simulator internal error', undefined, 500);
  }
};

/** The whole body, or why there is none to use. Oversized bodies are drained, not buffered. */
const readBody = (incoming: IncomingMessage): Promise<Buffer | 'too-large' | 'aborted'> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    incoming.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    // After 'end' this is a no-op (a promise settles once); before it, the client went away.
    incoming.on('close', () => resolve('aborted'));
    incoming.on('error', () => resolve('aborted'));
  });

const send = (outgoing: ServerResponse, response: SimResponse): void => {
  if (outgoing.destroyed) return; // the client gave up (or close() ran) during latency
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const { body, status } = response;
  if (body === undefined) {
    outgoing.writeHead(status, headers).end();
  } else if (Buffer.isBuffer(body) || typeof body === 'string') {
    outgoing.writeHead(status, headers).end(body);
  } else if (isReadable(body)) {
    outgoing.writeHead(status, headers);
    body.on('error', () => outgoing.destroy());
    body.pipe(outgoing);
  } else {
    headers['content-type'] ??= 'application/json;charset=UTF-8';
    outgoing.writeHead(status, headers).end(JSON.stringify(body));
  }
};

const codeOf = (response: SimResponse): string => {
  const { body } = response;
  return body !== null && typeof body === 'object' && 'code' in body ? String(body.code) : '';
};
