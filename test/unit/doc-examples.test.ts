/**
 * Every TypeScript example of the docs is a complete program: a file of docs/examples/ (which the
 * type-check tier compiles, and the package test again in an app with only the package and its
 * peers), copied into the doc by `npm run docs:examples`. A block without a file, or one that
 * differs from its file, fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DOCS_WITH_EXAMPLES,
  exampleBlocks,
  packageExamples,
  readRepositoryFile,
  renderExamples,
} from '../../scripts/doc-examples.ts';

const root = join(import.meta.dirname, '..', '..');

describe('the docs’ TypeScript examples', () => {
  it.each(DOCS_WITH_EXAMPLES)('%s: every block is a file of docs/examples, as it is', (doc) => {
    const markdown = readRepositoryFile(doc);
    for (const block of exampleBlocks(markdown)) {
      expect(block.example, `${doc}:${block.line}: a TypeScript block names no example`).toMatch(
        /^docs\/examples\//,
      );
      expect(existsSync(join(root, block.example ?? '')), block.example).toBe(true);
      expect(block.code, `${doc}:${block.line}: run npm run docs:examples`).toBe(
        readRepositoryFile(block.example ?? ''),
      );
    }
    expect(renderExamples(markdown, readRepositoryFile)).toBe(markdown);
  });

  it('finds a block without its file, and one that differs from it', () => {
    const stale = '<!-- example: docs/examples/check-message.ts -->\n```ts\nconst x = 1;\n```\n';
    const bare = 'Text.\n\n```ts\nconst y = 2;\n```\n';

    expect(exampleBlocks(stale)).toEqual([
      { line: 2, example: 'docs/examples/check-message.ts', code: 'const x = 1;\n' },
    ]);
    expect(renderExamples(stale, readRepositoryFile)).toContain("from 'msgbridge/send'");
    expect(exampleBlocks(bare)).toEqual([{ line: 3, example: undefined, code: 'const y = 2;\n' }]);
  });

  it('compiles every example here and those that import the package in the package test', () => {
    const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as {
      include: string[];
    };
    expect(tsconfig.include).toContain('docs/examples');
    expect(packageExamples()).toEqual(
      expect.arrayContaining(['check-message.ts', 'construct-app.ts', 'failed-deliveries.ts']),
    );
    expect(packageExamples()).not.toContain('delivery-subscriber.ts');
  });
});
