import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reachable, repositoryRoot as root, sourceFiles } from '../support/import-graph.ts';

/**
 * The simulator is only a check of the bridge when it reads the spec on its own: a schema,
 * type or constant shared with `functions/` would let one misreading pass on both sides. These
 * tests follow every relative import (including `import type` and re-exports) from each file of
 * a folder, transitively, and list the files it reaches.
 */

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
