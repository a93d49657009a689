import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  forbiddenImports,
  MODULES,
  type ModuleRule,
  moduleEdges,
  moduleOf,
  unusedPermissions,
  withModulesTable,
} from '../../scripts/architecture-rules.ts';
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
    expect(graph.get('bin/msgbridge-cli.mjs')).toContain('bin/cli.ts'); // dynamic import()
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

describe('module rules (scripts/architecture-rules.ts)', () => {
  const graph = importGraph();
  const OUTSIDE = new Set(['node_modules', 'dist', 'cdk.out', '.local', '.git']);

  /** The top-level folders (and `docs/examples`) that hold code, from the disk. */
  const foldersWithCode = (): string[] =>
    readdirSync(repositoryRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !OUTSIDE.has(entry.name))
      .flatMap((entry) =>
        readdirSync(join(repositoryRoot, entry.name), { recursive: true, encoding: 'utf8' })
          .filter((file) => /\.(?:ts|mjs)$/.test(file))
          .map((file) => `${entry.name}/${file}`),
      )
      .map((file) => (file.startsWith('docs/') ? 'docs/examples' : (file.split('/')[0] as string)))
      .filter((folder, index, all) => all.indexOf(folder) === index)
      .sort();

  it('scans every folder that holds code, and each is a module or inside one', () => {
    const scanned = new Set(SOURCE_FOLDERS.map((folder) => folder.split('/')[0]));
    for (const folder of foldersWithCode()) {
      if (folder !== 'test') expect(scanned.has(folder.split('/')[0] as string), folder).toBe(true);
      expect(moduleOf(`${folder}/a.ts`), folder).toBeDefined();
    }
    for (const file of graph.keys()) expect(moduleOf(file), file).toBeDefined();
  });

  it('allows every import between two modules', () => {
    expect(forbiddenImports(graph)).toEqual([]);
  });

  it('allows nothing that no import uses', () => {
    expect(unusedPermissions(graph)).toEqual([]);
  });

  it('keeps cli, console and local apart: none imports another', () => {
    const apart = new Set(['cli', 'console', 'local']);
    const between = moduleEdges(graph).filter((edge) => apart.has(edge.from) && apart.has(edge.to));
    expect(between).toEqual([]);
  });

  it('reports a planted import that breaks a rule, and a permission nothing uses', () => {
    const planted = new Map(graph);
    planted.set('functions/commons/planted.ts', ['cli/main.ts']);
    planted.set('bench/planted.ts', ['test/support/import-graph.ts']);
    planted.set('ops/planted.ts', ['local/bridge.ts']);
    expect(forbiddenImports(planted)).toEqual([
      'functions/commons may not import cli: functions/commons/planted.ts -> cli/main.ts',
      'bench may not import test: bench/planted.ts -> test/support/import-graph.ts',
      'ops may not import local: ops/planted.ts -> local/bridge.ts',
    ]);
    const looser: ModuleRule[] = MODULES.map((rule) =>
      rule.folder === 'protocol' ? { ...rule, mayImport: ['gateway'] } : rule,
    );
    expect(unusedPermissions(graph, looser)).toEqual([
      'protocol may import gateway, but nothing does',
    ]);
  });

  it('is the table of docs/architecture.md (npm run docs:architecture)', () => {
    const document = readFileSync(join(repositoryRoot, 'docs/architecture.md'), 'utf8');
    expect(withModulesTable(document)).toBe(document);
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
