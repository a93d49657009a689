/**
 * `npm start` with a setting it cannot use (bin/start.ts in its own process): a taken PORT or a
 * PORT that is not a number is one line naming the setting and what to do, exit non-zero, no stack
 * trace, and nothing started. Loopback only; each run is bounded in time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childOutput } from '../support/child-runs.ts';

const ROOT = join(import.meta.dirname, '../..');
const dirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const STACK_LINE = /^\s+at /m;
/** Long enough for tsx to load bin/start.ts on a busy machine; a run that starts takes far longer. */
const BOUND_MS = 60_000;

/** Runs bin/start.ts with `env` until it exits, or kills it after BOUND_MS. */
const start = (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-settings-'));
  dirs.push(dataDir);
  return new Promise<{ code: number | null; stdout: string; stderr: string; dataDir: string }>(
    (resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/start.ts')], {
        cwd: ROOT,
        env: { ...process.env, LOCAL_DATA_DIR: dataDir, SIMULATOR_PORT: '0', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
      const written = childOutput(child);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: written.stdout(), stderr: written.stderr(), dataDir });
      });
    },
  );
};

/** A server holding a loopback port, as another program would. */
const holdPort = async (): Promise<number> => {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

describe('npm start with a setting it cannot use', () => {
  it('names PORT, the port and what to do when the port is taken, and starts nothing', async () => {
    // Prepare
    const port = await holdPort();

    // Act
    const result = await start({ PORT: String(port) });

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^msgbridge local run: PORT ${port} is already in use \\(by another program, or an npm start with another LOCAL_DATA_DIR\\): choose another, e\\.g\\. PORT=\\d+ npm start, or stop what listens on it\\n$`,
      ),
    );
    expect(result.stderr).not.toContain('EADDRINUSE');
    expect(result.stderr).not.toMatch(STACK_LINE);
    expect(result.stdout).not.toContain('starting msgbridge locally');
    // The run lock is given back: the next start on this directory is not refused.
    expect(readdirSync(result.dataDir)).toEqual([]);
  });

  it('names PORT and the value when PORT is not a port number', async () => {
    const result = await start({ PORT: 'abc' });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'msgbridge local run: invalid settings\n  PORT must be a port number (1-65535, or 0 for any free port), got "abc"\n',
    );
  });
});
