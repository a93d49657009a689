/**
 * The local run imports at start every module a function imports on first use
 * (`local/first-use-modules.ts`): the list must name each dynamic `import()` of the functions and
 * the gateway client, and nothing else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FIRST_USE_MODULES, loadFirstUseModules } from '../../local/first-use-modules.ts';
import { repositoryRoot, sourceFiles } from '../support/import-graph.ts';

/** The repository files the `import()` calls of `file` name, as paths from the root. */
const dynamicImportsOf = (file: string): string[] => {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0]) &&
      node.arguments[0].text.startsWith('.')
    ) {
      const target = resolve(dirname(file), node.arguments[0].text);
      const typescript = target.replace(/\.(m?)js$/, '.$1ts');
      found.push(relative(repositoryRoot, existsSync(target) ? target : typescript));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe('the modules the local run imports at start', () => {
  it('are every module the functions and the gateway client import on first use', () => {
    const lazy = ['functions', 'gateway']
      .flatMap((folder) => sourceFiles(folder))
      .flatMap((file) => dynamicImportsOf(file));
    const listed = dynamicImportsOf(join(repositoryRoot, 'local/first-use-modules.ts'));

    expect(lazy.length).toBeGreaterThanOrEqual(5);
    expect(listed.length).toBe(FIRST_USE_MODULES.length);
    expect([...new Set(listed)].sort()).toEqual([...new Set(lazy)].sort());
    for (const file of listed) expect(existsSync(join(repositoryRoot, file)), file).toBe(true);
  });

  it('load', async () => {
    await expect(loadFirstUseModules()).resolves.toBeUndefined();
    const [s3Part] = await Promise.all(FIRST_USE_MODULES.map((load) => load()));
    expect(typeof (s3Part as { s3Client?: unknown }).s3Client).toBe('function');
  });
});
