/** Child processes a test starts: what they write on their piped stdout and stderr, read as it comes, and how they end. */
import { type ChildProcess, execFile } from 'node:child_process';
import { join } from 'node:path';

/** What a child has written so far. */
export interface ChildOutput {
  /** stdout and stderr, interleaved as they came. */
  output(): string;
  stdout(): string;
  stderr(): string;
}

/** Collects what `child` writes on its stdout and stderr from now on. */
export const childOutput = (child: ChildProcess): ChildOutput => {
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
    output += chunk;
  });
  return { output: () => output, stdout: () => stdout, stderr: () => stderr };
};

/** A child still running: what it has written so far, and its exit code once it exits. */
export interface RunningChild {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

/** Watches `child` from now on: its interleaved output and its exit. */
export const runningChild = (child: ChildProcess): RunningChild => {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: childOutput(child).output, exited };
};

/** A child that has run to its end: its exit code and all it wrote. */
export interface FinishedChild {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Waits for `child` to close; rejects if it cannot be started. */
export const finishedChild = (child: ChildProcess): Promise<FinishedChild> => {
  const written = childOutput(child);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: written.stdout(), stderr: written.stderr() }),
    );
  });
};

/**
 * The environment of `npm start` (bin/start.ts) on `dataDir`, on free ports, with `webhookSecret`:
 * this process's environment, then `env`, then these.
 */
export const localStartEnv = (
  dataDir: string,
  webhookSecret: string,
  env: Record<string, string> = {},
): NodeJS.ProcessEnv => ({
  ...process.env,
  ...env,
  LOCAL_DATA_DIR: dataDir,
  PORT: '0',
  SIMULATOR_PORT: '0',
  WEBHOOK_SECRET: webhookSecret,
});

/** What a command that has run to its end said: its exit code (-1 where it has none) and output. */
export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const ROOT = join(import.meta.dirname, '../..');

/** `node bin/msgbridge-cli.mjs ARGS…` (the `msgbridge` command) from the repository root. */
export const msgbridge = (...args: string[]): Promise<CommandRun> =>
  new Promise((resolve) => {
    execFile('node', ['bin/msgbridge-cli.mjs', ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
