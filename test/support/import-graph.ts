import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * A scanner of the repository's imports, for architecture tests (independence of the simulator,
 * no import cycles, the module rules). It parses each file with the TypeScript compiler (a parse
 * only, no type check) and reads every `import … from`, `export … from`, bare `import '…'`,
 * `import x = require('…')`, dynamic `import(…)` and `import('…')` type; a pattern in a comment or
 * a string is not an import.
 *
 * Each import names a file of the repository or a package. A relative specifier names the file
 * next to the importer (a `.js` specifier, TypeScript's NodeNext style, the `.ts` file when there
 * is no `.js` one), and an absolute path or a `file:` URL names that file; a path name of tsconfig.json's `compilerOptions.paths` (`msgbridge`,
 * `msgbridge/send`, …) names the file the paths map it to; any other bare specifier names a
 * package and is no edge. An import that names no file it can follow is reported, not skipped: a
 * relative or path-name specifier whose file does not exist, a specifier of a path name's package
 * that no path matches, and a dynamic `import()` of anything but a quoted string (a variable, a
 * concatenation, a template literal), which could name any file.
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

const SOURCE = /\.(?:ts|mts|mjs)$/;

/** Every `.ts`, `.mts` and `.mjs` file under `folder` (relative to the root), as absolute paths. */
export const sourceFiles = (folder: string, root: string = repositoryRoot): string[] =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => SOURCE.test(file))
    .map((file) => join(root, folder, file));

/** The path names of a tsconfig.json: each name (or `*` pattern) to the files it may stand for. */
export interface PathNames {
  /** The folder the targets are relative to (`baseUrl`, else the folder of tsconfig.json). */
  readonly base: string;
  readonly paths: Readonly<Record<string, readonly string[]>>;
}

/** The path names of `root`'s tsconfig.json, as the compiler reads them. */
export const tsconfigPathNames = (root: string = repositoryRoot): PathNames => {
  const { config, error } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (error !== undefined)
    throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  // A base configuration could hold paths of its own, which this reading would miss.
  if (config.extends !== undefined)
    throw new Error('tsconfig.json extends another configuration; read its paths too');
  const options = (config.compilerOptions ?? {}) as {
    baseUrl?: string;
    paths?: PathNames['paths'];
  };
  return { base: resolve(root, options.baseUrl ?? '.'), paths: options.paths ?? {} };
};

/** The package a bare specifier names: `@scope/name` or its first segment. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The file `target` (absolute) stands for: itself, or for a missing `.js` file the `.ts` one and
 * for a missing `.mjs` file the `.mts` one, as TypeScript reads them.
 */
const existingFile = (target: string): string | undefined => {
  const isFile = (path: string) => existsSync(path) && statSync(path).isFile();
  if (isFile(target)) return target;
  const typescript = target.replace(/\.(m?)js$/, '.$1ts');
  return typescript !== target && isFile(typescript) ? typescript : undefined;
};

/**
 * The targets a path name maps `specifier` to, as the compiler matches them (an exact name first,
 * else the `*` pattern with the longest prefix), or undefined when no path matches.
 */
const pathTargets = (specifier: string, names: PathNames): string[] | undefined => {
  const exact = names.paths[specifier];
  if (exact !== undefined) return exact.map((target) => resolve(names.base, target));
  const matches = Object.keys(names.paths)
    .filter((pattern) => pattern.split('*').length === 2)
    .map((pattern) => {
      const [prefix, suffix] = pattern.split('*') as [string, string];
      return { pattern, prefix, suffix };
    })
    .filter(
      ({ prefix, suffix }) =>
        specifier.length >= prefix.length + suffix.length &&
        specifier.startsWith(prefix) &&
        specifier.endsWith(suffix),
    )
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const best = matches[0];
  if (best === undefined) return undefined;
  const star = specifier.slice(best.prefix.length, specifier.length - best.suffix.length);
  return (names.paths[best.pattern] ?? []).map((target) =>
    resolve(names.base, target.replace('*', star)),
  );
};

/** An import the scanner cannot follow to a file of the repository. */
export interface UnresolvedImport {
  /** The importing file, from the root. */
  readonly file: string;
  /** The specifier as written: a quoted name, or the expression `import()` was given. */
  readonly specifier: string;
  /** Why it names no file. */
  readonly why: string;
}

/** The files one source file imports (absolute), and the imports it cannot follow. */
export interface FileImports {
  readonly files: string[];
  readonly unresolved: UnresolvedImport[];
}

/**
 * The specifier of each import in `source`: a string literal, or whatever `import()` was given
 * (undefined when it was given nothing).
 */
const specifierNodes = (source: ts.SourceFile): (ts.Node | undefined)[] => {
  const found: (ts.Node | undefined)[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier !== undefined) found.push(node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference))
        found.push(node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      found.push(node.arguments[0]);
    } else if (ts.isImportTypeNode(node)) {
      found.push(ts.isLiteralTypeNode(node.argument) ? node.argument.literal : node.argument);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

/**
 * What `source` (the text of `file`, an absolute path) imports: the files of the repository its
 * relative and path-name specifiers name, and every import it cannot follow.
 */
export const importsIn = (
  file: string,
  source: string,
  names: PathNames = tsconfigPathNames(),
  root: string = repositoryRoot,
): FileImports => {
  const parsed = ts.createSourceFile(
    file,
    source,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    false,
    file.endsWith('.mjs') || file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS,
  );
  const files: string[] = [];
  const unresolved: UnresolvedImport[] = [];
  const refuse = (specifier: string, why: string) =>
    unresolved.push({ file: relative(root, file), specifier, why });
  const pathPackages = new Set(Object.keys(names.paths).map(packageOf));

  for (const node of specifierNodes(parsed)) {
    if (node === undefined) {
      refuse('import()', 'has no specifier');
      continue;
    }
    const written = source.slice(node.getStart(parsed), node.end);
    if (!ts.isStringLiteral(node)) {
      refuse(written, 'is an expression, not a quoted name: it could name any file');
      continue;
    }
    const specifier = node.text;
    let candidates: string[];
    if (/^(?:\.{1,2}(?:\/|$)|\/)/.test(specifier)) {
      candidates = [resolve(dirname(file), specifier)];
    } else if (specifier.startsWith('file:')) {
      candidates = [fileURLToPath(specifier)];
    } else {
      const targets = pathTargets(specifier, names);
      if (targets === undefined) {
        if (pathPackages.has(packageOf(specifier)))
          refuse(written, 'matches no path of tsconfig.json');
        continue; // a package
      }
      candidates = targets;
    }
    const target = candidates.map(existingFile).find((found) => found !== undefined);
    if (target === undefined) refuse(written, 'names no file');
    else files.push(target);
  }
  return { files, unresolved };
};

/** The imports of one file on disk. */
export const importsOf = (
  file: string,
  names: PathNames = tsconfigPathNames(),
  root: string = repositoryRoot,
): FileImports => importsIn(file, readFileSync(file, 'utf8'), names, root);

/** Every file reachable from `entries` through imports, as paths from the root. */
export const reachable = (
  entries: readonly string[],
  root: string = repositoryRoot,
): Set<string> => {
  const names = tsconfigPathNames(root);
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    const key = relative(root, file);
    if (seen.has(key)) continue;
    seen.add(key);
    if (SOURCE.test(file) && existsSync(file)) pending.push(...importsOf(file, names, root).files);
  }
  return seen;
};

/** Who imports whom: each file (path from the root) to the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The import graph of the files under some folders, and the imports it could not follow. */
export interface ScannedImports {
  readonly graph: ImportGraph;
  readonly unresolved: readonly UnresolvedImport[];
}

/** Scans every source file under `folders`; files are keyed and valued by paths from the root. */
export const scanImports = (
  folders: readonly string[] = SOURCE_FOLDERS,
  root: string = repositoryRoot,
): ScannedImports => {
  const names = tsconfigPathNames(root);
  const graph = new Map<string, readonly string[]>();
  const unresolved: UnresolvedImport[] = [];
  for (const folder of folders) {
    for (const file of sourceFiles(folder, root)) {
      const found = importsOf(file, names, root);
      const imports = found.files.map((target) => relative(root, target));
      graph.set(relative(root, file), [...new Set(imports)].sort());
      unresolved.push(...found.unresolved);
    }
  }
  return { graph, unresolved };
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
