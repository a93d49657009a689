import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FaultsSchema, SimulatorOptionsSchema } from '../../simulator/options.ts';
import { type FinishedChild, finishedChild } from '../support/child-runs.ts';
import { authenticate } from '../support/simulator-http.ts';

const CLI_ENV = { ...process.env, SIMULATOR_API_PASSWORD: '' };

const runCli = (args: readonly string[]): Promise<FinishedChild> =>
  finishedChild(
    spawn('npx', ['tsx', 'simulator/cli.ts', ...args], { cwd: process.cwd(), env: CLI_ENV }),
  );

/** The flag of an option key: kebab-case, except the two webhook URLs named as in the brief. */
const RENAMED_FLAGS: Record<string, string> = {
  reportWebhookUrl: 'report-webhook',
  moWebhookUrl: 'mo-webhook',
};

const flagOf = (key: string): string =>
  RENAMED_FLAGS[key] ?? key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

describe('simulator CLI', () => {
  it('--help exits 0 and lists a flag for every option', async () => {
    // Prepare
    const keys = [
      ...Object.keys(SimulatorOptionsSchema.shape).filter((key) => key !== 'faults'),
      ...Object.keys(FaultsSchema.shape),
    ];

    // Act
    const run = await runCli(['--help']);

    // Assess
    expect(run.code).toBe(0);
    for (const key of keys) expect(run.stdout).toContain(`--${flagOf(key)}`);
  });

  it('exits 2 and names every bad flag at once', async () => {
    // Act
    const run = await runCli(['--port', 'abc', '--bogus', '--error-rate', '2', 'stray']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port');
    expect(run.stderr).toContain('--bogus');
    expect(run.stderr).toContain('--error-rate');
    expect(run.stderr).toContain('stray');
  });

  it('starts with no password, prints the generated one and the hosts, and stops on SIGTERM', async () => {
    // Prepare: node directly (not npx), so the signal reaches the simulator's own process.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'simulator/cli.ts', '--port', '0', '--api-key', 'cli-key'],
      { cwd: process.cwd(), env: CLI_ENV },
    );
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const started = new Promise<{ url: string; password: string }>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const url = /listening on (\S+)/.exec(stdout)?.[1];
        const password = /password\s+(\S+)\s+\(generated/.exec(stdout)?.[1];
        if (url && password && stdout.includes('send_url')) resolve({ url, password });
      });
      child.on('close', () => reject(new Error(`CLI exited early:\n${stdout}`)));
    });

    try {
      // Act
      const { url, password } = await started;
      const tokens = await authenticate({ url }, { apiKey: 'cli-key', apiPassword: password });
      child.kill('SIGTERM');

      // Assess
      expect(tokens.token).toMatch(/\./);
      expect(stdout).toContain(`api_url   ${url}`);
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
