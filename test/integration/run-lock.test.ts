/**
 * One local run per data directory (local/run-lock.ts): of processes that take the lock at the
 * same moment exactly one gets it, also when they all find the lock of a run that was killed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirInUseError, RUN_LOCK_FILE, takeRunLock } from '../../local/run-lock.ts';
import { useTempDirs } from '../support/temp-dirs.ts';

const LOCK_MODULE = join(import.meta.dirname, '../../local/run-lock.ts');
const freshDir = useTempDirs('lock');

/** The pid of a process that has certainly exited. */
const exitedPid = (): number =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);

/**
 * `count` processes that take the lock together; each says whether it got it, and a winner holds
 * the lock until every one has answered (a winner that exited early would leave a stale lock a
 * slow starter rightly takes over).
 */
const race = async (dir: string, count: number): Promise<string[]> => {
  const script = `
    const { takeRunLock } = await import(${JSON.stringify(LOCK_MODULE)});
    try {
      await takeRunLock(${JSON.stringify(dir)}, { settleMs: 300 });
      process.stdout.write('won');
      process.stdin.resume();
      await new Promise((resolve) => process.stdin.on('end', resolve));
    } catch (error) {
      process.stdout.write(error.name === 'DataDirInUseError' ? 'refused' : 'error ' + error.message);
    }`;
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    let output = '';
    const answered = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (/^(won|refused|error )/.test(output)) resolve(output);
      });
      void exited.then(() => resolve(output));
    });
    return { child, exited, answered };
  });
  const outcomes = await Promise.all(children.map(({ answered }) => answered));
  for (const { child } of children) child.stdin.end();
  await Promise.all(children.map(({ exited }) => exited));
  return outcomes;
};

describe('the run lock', () => {
  it('is refused to a second taker while its run lives, and released by its own run only', async () => {
    const dir = freshDir();
    const lock = await takeRunLock(dir);

    await expect(takeRunLock(dir, { pid: exitedPid() })).rejects.toBeInstanceOf(DataDirInUseError);
    await lock.release();
    const next = await takeRunLock(dir, { pid: process.pid });

    expect(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')).toBe(String(process.pid));
    await next.release();
  });

  it('is taken over from a run that was killed', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, RUN_LOCK_FILE), String(exitedPid()));

    const lock = await takeRunLock(dir, { settleMs: 10 });

    expect(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')).toBe(String(process.pid));
    await lock.release();
  });

  it.each([
    ['a free directory', false],
    ['the lock of a killed run', true],
  ])(
    'goes to exactly one of six processes racing for %s',
    async (_, stale) => {
      const dir = freshDir();
      if (stale) writeFileSync(join(dir, RUN_LOCK_FILE), String(exitedPid()));

      const outcomes = await race(dir, 6);

      expect(outcomes.filter((outcome) => outcome === 'won')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'refused')).toHaveLength(5);
    },
    60_000,
  );
});
