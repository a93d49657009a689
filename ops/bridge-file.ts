/**
 * `DIR/bridge.json`: where a running local bridge is and how to reach each part of it. The local
 * run writes it (`local/bridge-file.ts`) and removes it on a clean stop; `msgbridge --local DIR`,
 * the console and `npm run demo` read it here, and check that the run it describes still answers
 * before using it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../gateway/schemas/zod.ts';
import { GatewayHostsSchema } from '../gateway/settings.ts';

export const BRIDGE_FILE = 'bridge.json';

export const BridgeFileSchema = z.looseObject({
  reportWebhook: z.string(),
  moWebhook: z.string(),
  /** The webhook server; also serves the loopback-only control routes (`/_bridge/…`). */
  webhooks: z.url(),
  /** The token the control routes require (`Authorization: Bearer …`), new for every run. */
  controlToken: z.string().check(z.minLength(1)),
  simulator: z.url(),
  gatewayHosts: GatewayHostsSchema,
  apiKey: z.string().check(z.minLength(1)),
  apiPassword: z.string().check(z.minLength(1)),
  dynamodb: z.url(),
  sqs: z.url(),
  /** The local Secrets Manager and EventBridge endpoint. */
  services: z.url(),
  sendQueue: z.url(),
  sendDlq: z.url(),
  /** The publisher's on-failure queue (what `events republish` reads). */
  publisherFailures: z.url(),
  eventBusName: z.string().check(z.minLength(1)),
  /** The webhook URLs with `<secret>` in place of the secret, as the stack outputs them. */
  webhookUrlTemplates: z.object({ report: z.string(), mo: z.string() }),
  /** The synthesized template the run deployed, and each resource's local physical id. */
  template: z.string().check(z.minLength(1)),
  resources: z.record(z.string(), z.string()),
  /** The ARNs of the gateway credentials and the webhook secret, on the `services` endpoint. */
  secrets: z.object({ gatewayCredentials: z.string(), webhook: z.string() }),
  s3: z.url(),
  attachmentBucket: z.string(),
  eventsFile: z.string().check(z.minLength(1)),
  tables: z.strictObject({
    events: z.string().check(z.minLength(1)),
    state: z.string().check(z.minLength(1)),
  }),
  region: z.string().check(z.minLength(1)),
  /** The dummy credentials the local emulators accept. */
  credentials: z.object({ accessKeyId: z.string(), secretAccessKey: z.string() }),
  /** The process running the bridge; absent in files written before it was recorded. */
  pid: z.optional(z.int().check(z.positive())),
});
export type BridgeFile = z.infer<typeof BridgeFileSchema>;

/** What every reader of a stale or missing `bridge.json` tells the user. */
export const NOT_RUNNING = 'the local run is not running; start it with npm start';

/** The parts of a local run a reader talks to, each of which must answer. */
const ENDPOINTS = ['webhooks', 'simulator', 'dynamodb', 'sqs'] as const;
const PROBE_TIMEOUT_MS = 1_500;

export interface LivenessProbes {
  /** Whether a process with this id exists. */
  readonly processAlive: (pid: number) => boolean;
  /** Whether anything answers HTTP at this URL (any status counts). */
  readonly answers: (url: string) => Promise<boolean>;
}

/** Whether a process with this id exists (EPERM: it does, and belongs to someone else). */
export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const answers = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
};

/**
 * Why the run `bridge` describes is not running (its process has exited, or one of its servers
 * does not answer), or `undefined` when it is. A pid can be reused, so the servers are asked even
 * when the process exists.
 */
export const whyNotRunning = async (
  bridge: BridgeFile,
  probes: LivenessProbes = { processAlive, answers },
): Promise<string | undefined> => {
  if (bridge.pid !== undefined && !probes.processAlive(bridge.pid))
    return `process ${bridge.pid} that started it has exited`;
  const silent = (
    await Promise.all(
      ENDPOINTS.map(async (name) => ((await probes.answers(bridge[name])) ? [] : [name])),
    )
  ).flat();
  return silent.length === 0 ? undefined : `${silent.join(', ')} did not answer`;
};

/** There is no running local run at a data directory; the message says how to start one. */
export class LocalRunNotRunningError extends Error {
  override readonly name = 'LocalRunNotRunningError';
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${NOT_RUNNING} (${path}: ${detail})`);
  }
}

/**
 * The `bridge.json` of `dataDir`, once it is known to describe a run that answers; otherwise
 * {@link LocalRunNotRunningError} (missing, unreadable or stale file).
 */
export const readRunningBridge = async (
  dataDir: string,
  probes?: LivenessProbes,
): Promise<BridgeFile> => {
  const path = join(dataDir, BRIDGE_FILE);
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) throw new LocalRunNotRunningError(path, 'no such file');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LocalRunNotRunningError(path, 'not JSON');
  }
  const parsed = BridgeFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new LocalRunNotRunningError(path, 'not written by this version of msgbridge');
  }
  const stale = await whyNotRunning(parsed.data, probes);
  if (stale !== undefined) throw new LocalRunNotRunningError(path, stale);
  return parsed.data;
};
