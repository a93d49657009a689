import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The simulator is only a check of the bridge when it reads the spec on its own: a schema,
 * type or constant shared with `functions/` would let one misreading pass on both sides. These
 * tests follow every relative import (including `import type` and re-exports) from each file of
 * a folder, transitively, and list the files it reaches.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

const sourceFiles = (folder: string): string[] =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(root, folder, file));

const importsOf = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) =>
    resolve(dirname(file), match[1] ?? match[2] ?? ''),
  );
};

/** Every file reachable from `entries` through relative imports, as paths from the root. */
const reachable = (entries: readonly string[]): Set<string> => {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    const key = relative(root, file);
    if (seen.has(key)) continue;
    seen.add(key);
    if (file.endsWith('.ts')) pending.push(...importsOf(file));
  }
  return seen;
};

const under = (files: Set<string>, folder: string): string[] =>
  [...files].filter((file) => file.startsWith(`${folder}/`)).sort();

describe('simulator independence', () => {
  it('finds the imports it follows (the check can fail)', () => {
    // A file known to import protocol/ must be seen to reach it, or the scan proves nothing.
    const files = reachable([join(root, 'simulator/auth.ts')]);
    expect(under(files, 'protocol')).toContain('protocol/api-password.ts');
  });

  it('the simulator reaches nothing in functions/', () => {
    const files = reachable(sourceFiles('simulator'));
    expect(files.size).toBeGreaterThan(10);
    expect(under(files, 'functions')).toEqual([]);
  });

  it('the neutral protocol module imports neither side', () => {
    const files = reachable(sourceFiles('protocol'));
    expect(under(files, 'functions')).toEqual([]);
    expect(under(files, 'simulator')).toEqual([]);
  });

  it('the bridge reaches nothing in simulator/', () => {
    const files = reachable(sourceFiles('functions'));
    expect(under(files, 'simulator')).toEqual([]);
  });
});
