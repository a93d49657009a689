import { readFile } from 'node:fs/promises';
import type { CliDeps } from '../../cli/framework.ts';
import type { CliIo } from '../../cli/io.ts';
import { main } from '../../cli/main.ts';
import { startConsoleServer } from '../../console/serve.ts';
import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import type { TokenProvider } from '../../gateway/bearer/token-provider.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayManagementClient } from '../../gateway/management/messenger-client.ts';
import { GatewayRcsManagementClient } from '../../gateway/management/rcs-client.ts';
import type { GatewayHosts } from '../../gateway/settings.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import type { HttpCall, HttpTransport } from '../../gateway/transport.ts';
import type { GatewayClients, Target } from '../../ops/target.ts';

/*
 * Test helpers for the CLI: a capturing io (in memory or on the file system), `runCli` to run
 * `main(argv)` on one, a Target whose gateway clients are the real ones on given hosts, tokens and
 * transport (nothing else of the target is usable), a scripted transport that answers gateway
 * envelopes by `METHOD /path` and records every call, and `runScriptedCli` joining the two.
 */

/** The smallest valid PNG: signature, IHDR (1×1 grey), IDAT, IEND. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UWCQAAAABJRU5ErkJggg==',
  'base64',
);

type Reads = Pick<CliIo, 'readFile' | 'readBytes'>;

/** An io on `reads` that records stdout and stderr lines, and raw stderr writes (`raw`). */
const capturing = (reads: Reads, tty: boolean) => {
  const out: string[] = [];
  const err: string[] = [];
  const raw: string[] = [];
  const io: CliIo = {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    ...reads,
    stderrIsTty: tty,
    stderrWrite: (text) => raw.push(text),
  };
  return { io, out, err, raw, stdout: () => out.join('\n'), stderr: () => err.join('\n') };
};
export type CapturedIo = ReturnType<typeof capturing>;

/** What a capturing io can read, and whether its stderr is a terminal (default not). */
export interface CaptureOptions {
  readonly files?: Readonly<Record<string, string>>;
  readonly bytes?: Readonly<Record<string, Uint8Array>>;
  readonly tty?: boolean;
}

/** An io that records its output; `files` and `bytes` are all it can read. */
export const captureIo = ({ files = {}, bytes = {}, tty = false }: CaptureOptions = {}) => {
  const missing = (path: string) =>
    Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
  return capturing(
    {
      readFile: async (path) => {
        const text = files[path];
        if (text === undefined) throw missing(path);
        return text;
      },
      readBytes: async (path) => {
        const data = bytes[path];
        if (data === undefined) throw missing(path);
        return data;
      },
    },
    tty,
  );
};

/** An io that records its output and reads the file system. */
export const captureDiskIo = () =>
  capturing(
    { readFile: (path) => readFile(path, 'utf8'), readBytes: (path) => readFile(path) },
    false,
  );

/** Runs `msgbridge ARGV…` in process on `captured` (the file system by default). */
export const runCli = async (
  argv: string[],
  deps: CliDeps = {},
  captured: CapturedIo = captureDiskIo(),
) => {
  const code = await main(argv, captured.io, { serveConsole: startConsoleServer, ...deps });
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
};

export const TEST_HOSTS: GatewayHosts = {
  api: 'https://api.gateway.test',
  send: 'https://send.gateway.test',
  mnt: 'https://mnt.gateway.test',
};

/** A token provider that always has the same token. */
export const fixedTokens = (token = 'test-token'): TokenProvider => ({
  getToken: async () => token,
  invalidate: async () => {},
});

const unavailable = (what: string): never => {
  throw new Error(`${what} is not part of this test target (gateway clients only)`);
};

/** A target with only the gateway clients, built on `hosts` and `tokens` (and `transport`). */
export const gatewayTarget = (options: {
  readonly hosts: GatewayHosts;
  readonly tokens: TokenProvider;
  readonly transport?: HttpTransport;
}): Target => {
  const http = {
    hosts: options.hosts,
    tokens: options.tokens,
    ...(options.transport === undefined ? {} : { transport: options.transport }),
  };
  const clients: GatewayClients = {
    messaging: new GatewayClient(http),
    management: new GatewayManagementClient(http),
    rcs: (portal) => new GatewayRcsManagementClient({ ...http, portal }),
    optOut: async () => unavailable('optOut'),
  };
  return {
    kind: 'local',
    describe: () => `gateway at ${options.hosts.mnt}`,
    gateway: () => clients,
    get sqs() {
      return unavailable('sqs');
    },
    get queues() {
      return unavailable('queues');
    },
    get events() {
      return unavailable('events');
    },
    get tables() {
      return unavailable('tables');
    },
    get documents() {
      return unavailable('documents');
    },
  };
};

/**
 * A target on the gateway (simulator) at `hosts`, whose tokens a session token provider takes
 * from that gateway's auth API with `credentials`.
 */
export const authenticatingTarget = (
  hosts: GatewayHosts,
  credentials: { readonly apiKey: string; readonly apiPassword: string },
): Target =>
  gatewayTarget({
    hosts,
    tokens: new SessionTokenProvider({
      auth: new GatewayAuthApi({ hosts }),
      credentials: () => credentials,
    }),
  });

/** The arguments of `msgbridge channels create CHANNEL --category CATEGORY --token TOKEN`. */
export const channelCreateArgs = (channel: string, category: string, token: string): string[] => {
  const flags = ['--category', category, '--token', token];
  return ['channels', 'create', channel, ...flags];
};

/** One call the scripted gateway received. */
export interface RecordedCall {
  readonly method: HttpCall['method'];
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, the FormData of a multipart call, or undefined. */
  readonly body: unknown;
}

/** What the scripted gateway answers: an envelope (HTTP 200 unless `status`). */
export interface ScriptedAnswer {
  readonly status?: number;
  readonly code?: string;
  readonly message?: string;
  readonly data?: unknown;
  /** Extra top-level fields of the body (the RCS brand list puts `result` beside `code`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * A transport answering `METHOD /path` from `script` (success envelopes unless a code is given).
 * A call not in the script fails the test with a clear error.
 */
export const scriptedGateway = (
  script: Readonly<Record<string, ScriptedAnswer | ((call: RecordedCall) => ScriptedAnswer)>>,
) => {
  const calls: RecordedCall[] = [];
  const transport: HttpTransport = async (call) => {
    const url = new URL(call.url);
    const recorded: RecordedCall = {
      method: call.method,
      path: url.pathname,
      query: url.searchParams,
      headers: call.headers,
      body:
        typeof call.body === 'string' ? JSON.parse(call.body) : (call.body as FormData | undefined),
    };
    calls.push(recorded);
    const key = `${call.method} ${url.pathname}`;
    const entry = script[key];
    if (entry === undefined) throw new Error(`unexpected gateway call ${key}`);
    const answer = typeof entry === 'function' ? entry(recorded) : entry;
    return {
      status: answer.status ?? 200,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify({
        code: answer.code ?? '10000',
        message: answer.message ?? 'success',
        ...(answer.data === undefined ? {} : { data: answer.data }),
        ...answer.extra,
      }),
    };
  };
  return { transport, calls };
};

/** What `scriptedGateway` answers, by `METHOD /path`. */
export type GatewayScript = Parameters<typeof scriptedGateway>[0];

/**
 * Runs `msgbridge ARGS…` against a scripted gateway on an in-memory io (`reads`); answers the
 * output and the calls made.
 */
export const runScriptedCli = async (
  args: string[],
  script: GatewayScript = {},
  reads: Pick<CaptureOptions, 'files' | 'bytes'> = {},
) => {
  const gateway = scriptedGateway(script);
  const target = gatewayTarget({
    hosts: TEST_HOSTS,
    tokens: fixedTokens(),
    transport: gateway.transport,
  });
  const run = await runCli(args, { resolveTarget: async () => target }, captureIo(reads));
  return { code: run.code, out: run.stdout, err: run.stderr, calls: gateway.calls };
};
