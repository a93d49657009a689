import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A small scanner of the repository's relative imports, for architecture tests (independence of
 * the simulator, no import cycles). It reads source text with a regular expression rather than
 * the compiler: the code only uses relative specifiers with their extension, so a regex over
 * `import … from`, `export … from`, bare `import '…'` and dynamic `import('…')` finds every edge
 * without resolving packages. A pattern in a comment or string may add an edge; that only makes
 * the checks stricter.
 *
 * `import type` counts as an edge. It is erased when compiled, so a cycle through it can never
 * fail at load time, but it still ties the two modules together: neither can be understood,
 * moved or tested without the other.
 */

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The folders holding the project's own code (tests excepted, their shared support included):
 * every top-level folder with code, which the architecture test checks.
 */
export const SOURCE_FOLDERS: readonly string[] = [
  'functions',
  'gateway',
  'protocol',
  'lib',
  'bin',
  'ops',
  'cli',
  'console',
  'local',
  'aws-semantics',
  'simulator',
  'producer',
  'events',
  'fixtures',
  'bench',
  'chaos',
  'scripts',
  'docs/examples',
  'test/support',
];

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|(?:^|[\s;])import\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

const SOURCE = /\.(?:ts|mjs)$/;

/** Every `.ts` and `.mjs` file under `folder` (relative to the root), as absolute paths. */
export const sourceFiles = (folder: string, root: string = repositoryRoot): string[] =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => SOURCE.test(file))
    .map((file) => join(root, folder, file));

/**
 * The file a specifier names. A `.js` specifier (TypeScript's NodeNext style) stands for the
 * `.ts` file next to it when there is no `.js` file.
 */
const resolveSpecifier = (from: string, specifier: string): string => {
  const target = resolve(dirname(from), specifier);
  if (target.endsWith('.js') && !existsSync(target)) {
    const typescript = `${target.slice(0, -3)}.ts`;
    if (existsSync(typescript)) return typescript;
  }
  return target;
};

/** The files `source` (the text of `file`) imports through relative specifiers, absolute. */
export const importsIn = (file: string, source: string): string[] =>
  [...source.matchAll(IMPORT)].map((match) =>
    resolveSpecifier(file, match[1] ?? match[2] ?? match[3] ?? ''),
  );

/** The relative imports of one file on disk, as absolute paths. */
export const importsOf = (file: string): string[] => importsIn(file, readFileSync(file, 'utf8'));

/** Every file reachable from `entries` through relative imports, as paths from the root. */
export const reachable = (
  entries: readonly string[],
  root: string = repositoryRoot,
): Set<string> => {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    const key = relative(root, file);
    if (seen.has(key)) continue;
    seen.add(key);
    if (SOURCE.test(file) && existsSync(file)) pending.push(...importsOf(file));
  }
  return seen;
};

/** Who imports whom: each file (path from the root) to the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The import graph of every source file under `folders`, keyed and valued by paths from the root. */
export const importGraph = (
  folders: readonly string[] = SOURCE_FOLDERS,
  root: string = repositoryRoot,
): ImportGraph => {
  const graph = new Map<string, readonly string[]>();
  for (const folder of folders) {
    for (const file of sourceFiles(folder, root)) {
      const imports = importsOf(file).map((target) => relative(root, target));
      graph.set(relative(root, file), [...new Set(imports)].sort());
    }
  }
  return graph;
};

/**
 * The import cycles of a graph: each strongly connected component of more than one file, and
 * each file that imports itself, with its files sorted. Tarjan's algorithm, iterative so a deep
 * chain of imports cannot overflow the stack.
 */
export const importCycles = (graph: ImportGraph): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;

  const edgesOf = (node: string): readonly string[] => graph.get(node) ?? [];

  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);

    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const edges = edgesOf(frame.node);
      if (frame.next < edges.length) {
        const target = edges[frame.next] as string;
        frame.next += 1;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(
          parent.node,
          Math.min(low.get(parent.node) as number, low.get(frame.node) as number),
        );
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edgesOf(frame.node).includes(frame.node)) {
          cycles.push(component.sort());
        }
      }
    }
  }
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
};
