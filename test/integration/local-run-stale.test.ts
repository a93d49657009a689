/**
 * A `bridge.json` left by a local run that has stopped: the CLI and `npm run demo` say that the
 * local run is not running and how to start it, exit non-zero, and print no stack trace; the file
 * of a running run is recognised as such, also where LOCAL_DATA_DIR puts it, and a clean stop
 * removes only its own file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeBridgeFile } from '../../local/bridge-file.ts';
import { findFreePort } from '../../local/dynamodb-local.ts';
import {
  BRIDGE_FILE,
  type BridgeFile,
  LocalRunNotRunningError,
  NOT_RUNNING,
  readRunningBridge,
  whyNotRunning,
} from '../../ops/bridge-file.ts';
import { finishedChild } from '../support/child-runs.ts';
import { runCli } from '../support/cli-gateway.ts';

const dirs: string[] = [];
const servers: Server[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'msgbridge-stale-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has certainly exited. */
const exitedPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
};

/** A bridge.json whose every endpoint is on `base` (a port nothing listens on, unless served). */
const bridgeFile = (base: string, pid: number | undefined): BridgeFile => ({
  reportWebhook: `${base}/webhooks/s/report`,
  moWebhook: `${base}/webhooks/s/mo`,
  webhooks: base,
  controlToken: 'stale-run-token',
  simulator: base,
  gatewayHosts: { api: base, send: base, mnt: base },
  apiKey: 'k',
  apiPassword: 'p',
  dynamodb: base,
  sqs: base,
  services: base,
  sendQueue: `${base}/000000000000/msgbridge-send`,
  sendDlq: `${base}/000000000000/msgbridge-send-dlq`,
  publisherFailures: `${base}/000000000000/msgbridge-publisher-failures`,
  webhookUrlTemplates: {
    report: `${base}/webhooks/<secret>/report`,
    mo: `${base}/webhooks/<secret>/mo`,
  },
  template: '/nonexistent/msgbridge.template.json',
  resources: {},
  secrets: { gatewayCredentials: 'arn:gateway', webhook: 'arn:webhook' },
  eventBusName: 'msgbridge-bus',
  s3: base,
  attachmentBucket: 'msgbridge-attachments',
  eventsFile: '/tmp/events.jsonl',
  tables: { events: 'msgbridge-events', state: 'msgbridge-state' },
  region: 'ap-northeast-2',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  ...(pid === undefined ? {} : { pid }),
});

const writeStale = async (pid: number | undefined): Promise<string> => {
  const dir = freshDir();
  const closed = `http://127.0.0.1:${await findFreePort()}`;
  writeFileSync(join(dir, BRIDGE_FILE), JSON.stringify(bridgeFile(closed, pid)));
  return dir;
};

/** A stand-in for a running run's servers: 404 to everything, 200 to a replay it records. */
const serve = async (replays: string[] = []): Promise<string> => {
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/_bridge/replay') {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        replays.push(body);
        response.end('{}');
      });
      return;
    }
    response.statusCode = 404;
    response.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
};

const STACK_LINE = /^\s+at /m;

describe('msgbridge --local on a stale bridge.json', () => {
  it.each([
    ['its process has exited', () => exitedPid(), /process \d+ that started it has exited/],
    ['its servers do not answer', () => process.pid, /webhooks, simulator, dynamodb, sqs did not/],
    ['it names no process and its servers do not answer', () => undefined, /did not answer/],
  ])('says the local run is not running when %s', async (_case, pid, detail) => {
    // Prepare
    const dir = await writeStale(pid());

    // Act
    const result = await runCli(['dlq', 'redrive', '--local', dir]);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`msgbridge dlq redrive: ${NOT_RUNNING}`);
    expect(result.stderr).toMatch(detail);
    expect(result.stderr).not.toMatch(/ECONNREFUSED/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });
});

describe('msgbridge and LOCAL_DATA_DIR', () => {
  it('finds a run whose data directory is elsewhere through LOCAL_DATA_DIR, as npm run demo does', async () => {
    // Prepare: a running run (its servers answer) in a directory of its own, with one event.
    const replays: string[] = [];
    const base = await serve(replays);
    const dir = freshDir();
    const eventsFile = join(dir, 'events.jsonl');
    writeFileSync(
      eventsFile,
      `${JSON.stringify({ time: '2026-11-21T01:00:00.000Z', source: 'msgbridge', 'detail-type': 'Message Accepted', detail: { data: { cliKey: 'k-1' } } })}\n`,
    );
    writeFileSync(
      join(dir, BRIDGE_FILE),
      JSON.stringify({ ...bridgeFile(base, process.pid), eventsFile }),
    );
    const replay = [
      'events',
      'replay',
      '--from',
      '2026-11-21T00:00:00Z',
      '--to',
      '2026-11-21T06:00:00Z',
      '--name',
      'r-1',
    ];

    // Act
    const result = await runCli(replay, { env: { LOCAL_DATA_DIR: dir } });
    const inUtc = await runCli([...replay, '--utc'], { env: { LOCAL_DATA_DIR: dir } });

    // Assess: the range in KST, or in UTC with --utc.
    expect(result.stderr).toBe('replaying r-1 1/1…');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'replay r-1 (2026-11-21 09:00:00 KST to 2026-11-21 15:00:00 KST): 1 events put on the local bus again',
    );
    expect(inUtc.stdout).toBe(
      'replay r-1 (2026-11-21 00:00:00 UTC to 2026-11-21 06:00:00 UTC): 1 events put on the local bus again',
    );
    expect(replays).toHaveLength(2);
    expect(JSON.parse(replays[0] ?? '{}')).toMatchObject({ replayName: 'r-1' });
  });

  it('names --local DIR and LOCAL_DATA_DIR when no run is where it looked', async () => {
    const dir = freshDir();

    const result = await runCli(['dlq', 'redrive'], { env: { LOCAL_DATA_DIR: dir } });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `msgbridge dlq redrive: ${NOT_RUNNING} (${join(dir, BRIDGE_FILE)}, from LOCAL_DATA_DIR: no such file); for a run on another data directory pass --local DIR or set LOCAL_DATA_DIR=DIR as for npm start; for a deployed stack, --stack NAME`,
    );
  });
});

describe('npm run demo on a stale or missing bridge.json', () => {
  const demo = (dataDir: string) =>
    finishedChild(
      spawn(
        process.execPath,
        ['--import', 'tsx', join(import.meta.dirname, '../../local/demo.ts')],
        { env: { ...process.env, LOCAL_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );

  it('says the local run is not running, exits 1 and prints no stack trace', async () => {
    const stale = await writeStale(exitedPid());

    const result = await demo(stale);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(NOT_RUNNING);
    expect(result.stderr).not.toMatch(/ECONNREFUSED/);
    expect(result.stderr).not.toMatch(STACK_LINE);
    expect(result.stdout).not.toMatch(/queued/);
  });

  it('says the same when there is no bridge.json at all', async () => {
    const result = await demo(freshDir());

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(NOT_RUNNING);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });
});

describe('the liveness check and the clean stop', () => {
  it('accepts the bridge.json of a run whose process and servers answer', async () => {
    const base = await serve();
    const dir = freshDir();
    writeFileSync(join(dir, BRIDGE_FILE), JSON.stringify(bridgeFile(base, process.pid)));

    expect(await whyNotRunning(bridgeFile(base, process.pid))).toBeUndefined();
    expect((await readRunningBridge(dir)).webhooks).toBe(base);
  });

  it('refuses a file that is not JSON or not a bridge file, naming the file', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, BRIDGE_FILE), '{');
    await expect(readRunningBridge(dir)).rejects.toBeInstanceOf(LocalRunNotRunningError);
    writeFileSync(join(dir, BRIDGE_FILE), '{"simulator":"http://127.0.0.1:1"}');
    await expect(readRunningBridge(dir)).rejects.toThrow(join(dir, BRIDGE_FILE));
  });

  it('removes the file of this process on a clean stop, and leaves another run’s file alone', async () => {
    const own = freshDir();
    writeFileSync(join(own, BRIDGE_FILE), JSON.stringify(bridgeFile('http://x', process.pid)));
    const other = freshDir();
    writeFileSync(join(other, BRIDGE_FILE), JSON.stringify(bridgeFile('http://x', 1)));

    await removeBridgeFile(own);
    await removeBridgeFile(other);
    await removeBridgeFile(freshDir());

    expect(existsSync(join(own, BRIDGE_FILE))).toBe(false);
    expect(existsSync(join(other, BRIDGE_FILE))).toBe(true);
  });
});
