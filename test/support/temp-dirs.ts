/** Temporary directories a test file makes, removed after each test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Answers a maker of fresh directories `msgbridge-NAME-…`; each is removed after its test. */
export const useTempDirs = (name: string): (() => string) => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `msgbridge-${name}-`));
    dirs.push(dir);
    return dir;
  };
};
