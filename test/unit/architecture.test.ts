import { describe, expect, it } from 'vitest';
import {
  type ImportGraph,
  importCycles,
  importGraph,
  importsIn,
  repositoryRoot,
  SOURCE_FOLDERS,
} from '../support/import-graph.ts';

/**
 * No import cycles anywhere in the project's code. Two modules that import each other (directly
 * or around a longer loop) can only be read, moved and tested together, and a value cycle makes
 * what is initialised first depend on which file happens to be loaded first. `import type`
 * counts too: it is erased at run time, but it ties the modules just the same.
 */

const describeCycles = (cycles: readonly (readonly string[])[]): string =>
  cycles
    .map((cycle, n) => `cycle ${n + 1}:\n${cycle.map((file) => `  ${file}`).join('\n')}`)
    .join('\n');

describe('import graph', () => {
  const graph = importGraph();

  it('sees the imports it checks (the check can fail)', () => {
    // Known edges of each kind; a scanner that missed them would find no cycle anywhere.
    expect(graph.get('simulator/auth.ts')).toContain('protocol/api-password.ts');
    expect(graph.get('bin/msgbridge-cli.mjs')).toContain('cli/main.ts'); // dynamic import()
    expect(graph.get('cli/framework.ts')).toContain('cli/io.ts'); // import type
    expect(graph.get('simulator/index.ts')).toContain('simulator/server.ts'); // export … from
    for (const folder of SOURCE_FOLDERS) {
      expect(
        [...graph.keys()].some((file) => file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it('reads every form of relative import, and .js specifiers as the .ts file', () => {
    const file = `${repositoryRoot}/cli/example.ts`;
    const source = [
      "import { a } from './a.ts';",
      "import type {\n  B,\n  C,\n} from '../lib/b.ts';",
      "export * from './c.ts';",
      "export { d } from './d.ts';",
      "import './side-effect.ts';",
      "const e = await import('./e.ts');",
      "import { z } from 'zod';",
      "import { join } from 'node:path';",
      "import { main } from './main.js';",
    ].join('\n');
    expect(importsIn(file, source)).toEqual([
      `${repositoryRoot}/cli/a.ts`,
      `${repositoryRoot}/lib/b.ts`,
      `${repositoryRoot}/cli/c.ts`,
      `${repositoryRoot}/cli/d.ts`,
      `${repositoryRoot}/cli/side-effect.ts`,
      `${repositoryRoot}/cli/e.ts`,
      `${repositoryRoot}/cli/main.ts`,
    ]);
  });

  it('has no import cycle', () => {
    const cycles = importCycles(graph);
    expect(cycles, describeCycles(cycles)).toEqual([]);
  });
});

describe('importCycles', () => {
  const graphOf = (edges: Record<string, readonly string[]>): ImportGraph =>
    new Map(Object.entries(edges));

  it('reports a loop through several files, a pair and a self-import, each once', () => {
    const graph = graphOf({
      'a.ts': ['b.ts'],
      'b.ts': ['c.ts', 'leaf.ts'],
      'c.ts': ['a.ts'],
      'd.ts': ['e.ts', 'a.ts'],
      'e.ts': ['d.ts'],
      'self.ts': ['self.ts'],
      'leaf.ts': [],
    });
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts', 'e.ts'], ['self.ts']]);
  });

  it('reports nothing for a graph without cycles, diamonds included', () => {
    const graph = graphOf({
      'top.ts': ['left.ts', 'right.ts'],
      'left.ts': ['bottom.ts'],
      'right.ts': ['bottom.ts', 'outside.ts'],
      'bottom.ts': [],
    });
    expect(importCycles(graph)).toEqual([]);
  });

  it('follows a long chain without overflowing the stack', () => {
    const files = Array.from({ length: 20_000 }, (_, n) => `f${n}.ts`);
    const graph = graphOf(
      Object.fromEntries(files.map((file, n) => [file, [files[(n + 1) % files.length] as string]])),
    );
    expect(importCycles(graph)).toEqual([[...files].sort()]);
  });
});
