import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  forbiddenImports,
  MODULES,
  type ModuleRule,
  moduleEdges,
  moduleOf,
  refusedImports,
  UNFOLLOWED_IMPORTS,
  type UnfollowedImport,
  unusedExemptions,
  unusedPermissions,
  withModulesTable,
} from '../../scripts/architecture-rules.ts';
import {
  type ImportGraph,
  importCycles,
  importsIn,
  type PathNames,
  reachable,
  repositoryRoot,
  SOURCE_FOLDERS,
  scanImports,
  tsconfigPathNames,
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

/** The graph of the project's imports, and the imports the scan could not follow. */
const { graph, unresolved } = scanImports();

describe('import graph', () => {
  const at = (file: string) => `${repositoryRoot}/${file}`;
  /** What `source`, planted as `file`, imports: files from the root, and what it cannot follow. */
  const planted = (file: string, source: string) => {
    const found = importsIn(at(file), source);
    return {
      files: found.files.map((target) => relative(repositoryRoot, target)),
      unresolved: found.unresolved.map((each) => `${each.specifier} ${each.why}`),
    };
  };

  it('sees the imports it checks (the check can fail)', () => {
    // Known edges of each kind; a scanner that missed them would find no cycle anywhere.
    expect(graph.get('simulator/auth.ts')).toContain('protocol/api-password.ts');
    expect(graph.get('bin/msgbridge-cli.mjs')).toContain('bin/cli.ts'); // dynamic import()
    expect(graph.get('cli/framework.ts')).toContain('cli/io.ts'); // import type
    expect(graph.get('simulator/index.ts')).toContain('simulator/server.ts'); // export … from
    expect(graph.get('docs/examples/construct-app.ts')).toContain('lib/index.ts'); // path name
    for (const folder of SOURCE_FOLDERS) {
      expect(
        [...graph.keys()].some((file) => file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it('reads every form of import, .js specifiers as the .ts file, and no text that is not one', () => {
    const source = [
      "import { a } from './io.ts';",
      "import type {\n  B,\n  C,\n} from '../lib/msgbridge.ts';",
      "export * from './errors.ts';",
      "export { d } from './output.ts';",
      "import './suggest.ts';",
      "const e = await import('./validate.ts');",
      "type F = import('./version.ts').F;",
      "import { z } from 'zod';",
      "import { join, relative } from 'node:path';",
      "import { main } from './main.js';",
      `const k = await import('${pathToFileURL(at('cli/framework.ts')).href}');`,
      "// import { g } from './commented-out.ts'; and import(name) in a comment",
      "const h = 'import(name) in a string';",
      "const i = `import { j } from './in-a-template.ts'`;",
    ].join('\n');
    expect(planted('cli/example.ts', source)).toEqual({
      files: [
        'cli/io.ts',
        'lib/msgbridge.ts',
        'cli/errors.ts',
        'cli/output.ts',
        'cli/suggest.ts',
        'cli/validate.ts',
        'cli/version.ts',
        'cli/main.ts',
        'cli/framework.ts',
      ],
      unresolved: [],
    });
  });

  it("resolves tsconfig.json's path names to the files they map to", () => {
    const source = [
      "import type { MsgBridgeProps } from 'msgbridge';",
      "export { enqueueSend } from 'msgbridge/send';",
      "const events = await import('msgbridge/events');",
    ].join('\n');
    expect(planted('functions/sending/planted.ts', source)).toEqual({
      files: ['lib/index.ts', 'producer/send.ts', 'events/index.ts'],
      unresolved: [],
    });
    // The names come from tsconfig.json: a path added there is followed too.
    const names = tsconfigPathNames();
    expect(Object.keys(names.paths)).toContain('msgbridge');
    const wider: PathNames = {
      ...names,
      paths: { ...names.paths, 'msgbridge/cli/*': ['./cli/*'] },
    };
    expect(importsIn(at('ops/planted.ts'), "import 'msgbridge/cli/io.ts';", wider).files).toEqual([
      at('cli/io.ts'),
    ]);
  });

  it('reports a planted path-name import that breaks a rule and closes a cycle', () => {
    // A file of functions/ that lib/ reaches: importing the package's entry from it is a loop.
    const reached = reachable([at('lib/index.ts')]);
    const inFunctions = [...reached].filter((file) => file.startsWith('functions/')).sort()[0];
    expect(inFunctions).toBeDefined();
    const file = inFunctions as string;
    const { files } = planted(file, "import type { MsgBridgeProps } from 'msgbridge';");
    const loop = new Map(graph).set(file, [...(graph.get(file) ?? []), ...files]);
    const module = moduleOf(file) as string;
    expect(forbiddenImports(loop)).toContain(
      `${module} may not import lib: ${file} -> lib/index.ts`,
    );
    expect(importCycles(loop).some((cycle) => cycle.includes(file))).toBe(true);
  });

  it('refuses a planted import() of anything but a quoted name', () => {
    const source = [
      `const a = await import(\`./x/\${name}.ts\`);`,
      'const b = await import(`./io.ts`);',
      'const c = await import(name);',
      "const d = await import('./' + name);",
    ].join('\n');
    expect(planted('cli/example.ts', source)).toEqual({
      files: [],
      unresolved: [
        `\`./x/\${name}.ts\` is an expression, not a quoted name: it could name any file`,
        '`./io.ts` is an expression, not a quoted name: it could name any file',
        'name is an expression, not a quoted name: it could name any file',
        "'./' + name is an expression, not a quoted name: it could name any file",
      ],
    });
  });

  it('refuses a planted relative or path-name import of a file that does not exist', () => {
    const source = [
      "import { a } from './missing.ts';",
      "export * from '../nowhere/b.js';",
      "const c = await import('./missing-too.ts');",
      "import '/nowhere/at-all.ts';",
      "import type { D } from 'msgbridge/nothing';",
      "import { z } from 'zod';", // a package: not followed, not refused
    ].join('\n');
    expect(planted('cli/example.ts', source)).toEqual({
      files: [],
      unresolved: [
        "'./missing.ts' names no file",
        "'../nowhere/b.js' names no file",
        "'./missing-too.ts' names no file",
        "'/nowhere/at-all.ts' names no file",
        "'msgbridge/nothing' matches no path of tsconfig.json",
      ],
    });
    const names = tsconfigPathNames();
    const moved: PathNames = { ...names, paths: { msgbridge: ['./lib/moved-away.ts'] } };
    expect(importsIn(at('ops/planted.ts'), "import 'msgbridge';", moved).unresolved).toEqual([
      { file: 'ops/planted.ts', specifier: "'msgbridge'", why: 'names no file' },
    ]);
  });

  it('follows every import, but for the named exemptions, each needed', () => {
    expect(refusedImports(unresolved)).toEqual([]);
    expect(unusedExemptions(unresolved)).toEqual([]);
  });

  it('lets an exemption pass only the file and specifier it names', () => {
    const found = [
      { file: 'ops/planted.ts', specifier: 'name', why: 'is an expression' },
      { file: 'local/planted.ts', specifier: 'other', why: 'is an expression' },
    ];
    const exemptions: UnfollowedImport[] = [
      { file: 'ops/planted.ts', specifier: 'name', reason: 'a planted reason' },
      { file: 'local/planted.ts', specifier: 'name', reason: 'a planted reason' },
    ];
    expect(refusedImports(found, exemptions)).toEqual(['local/planted.ts: other is an expression']);
    expect(unusedExemptions(found, exemptions)).toEqual([
      'local/planted.ts may import name, but does not',
    ]);
  });

  it('has no import cycle', () => {
    const cycles = importCycles(graph);
    expect(cycles, describeCycles(cycles)).toEqual([]);
  });
});

describe('module rules (scripts/architecture-rules.ts)', () => {
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

  it('names each exemption of the import scan in docs/architecture.md', () => {
    const document = readFileSync(join(repositoryRoot, 'docs/architecture.md'), 'utf8');
    for (const exemption of UNFOLLOWED_IMPORTS) {
      expect(document).toContain(`\`${exemption.file}\``);
      expect(document).toContain(`\`import(${exemption.specifier})\``);
    }
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
