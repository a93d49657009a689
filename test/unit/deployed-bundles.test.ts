/**
 * Every Lambda bundled as the stack deploys it (`lambdaBuildOptions`: ESM with code splitting), and
 * what each one's cold start reads: the handler module and the chunks it imports statically. A rare
 * path's modules must sit in a chunk only a dynamic `import()` reaches (docs/performance.md,
 * `cold-start`), and no bundle may carry the X-Ray SDK (docs/operations.md, "Tracing").
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesReadAtStart, lambdaBuildOptions } from '../../lib/bundling.ts';

const functions = join(import.meta.dirname, '../../functions');
const entries = readdirSync(functions).filter((file) => file.endsWith('.ts'));

/** Where a module lands in a function's bundle: read at start, in a lazy chunk, or nowhere. */
type Placement = 'start' | 'lazy' | 'absent';

const RARE = {
  s3: /node_modules\/@aws-sdk\/client-s3\//,
  sendSchemas: /gateway\/schemas\/send\.ts$/,
  cp949Table: /protocol\/cp949-table\.ts$/,
  secretsManager: /node_modules\/@aws-sdk\/client-secrets-manager\//,
} as const;

/** Where each of a function's rare modules must land. */
type Expected = Partial<Record<keyof typeof RARE, Placement>>;

/** A receiver reads its webhook secret on every request, S3 only for a body too large for its item. */
const RECEIVER: Expected = { s3: 'lazy', sendSchemas: 'absent', secretsManager: 'start' };

/** A gateway caller that never sends: S3 for its quarantine, the credentials to authenticate. */
const GATEWAY_READER: Expected = {
  s3: 'lazy',
  sendSchemas: 'lazy',
  cp949Table: 'lazy',
  secretsManager: 'lazy',
};

/** A function that uses S3 on every request and the gateway client, which never sends from it. */
const S3_ON_EVERY_REQUEST: Expected = { ...GATEWAY_READER, s3: 'start' };

const bundles = new Map<string, Metafile>();

const placement = (name: string, module: RegExp): Placement => {
  const { outputs } = bundles.get(name) ?? expect.fail(`${name} was not bundled`);
  const entry = Object.keys(outputs).find((file) => file.endsWith('index.mjs')) ?? '';
  const holds = (file: string) =>
    Object.keys(outputs[file]?.inputs ?? {}).some((input) => module.test(input));
  if (filesReadAtStart(outputs, entry).some(holds)) return 'start';
  return Object.keys(outputs).some(holds) ? 'lazy' : 'absent';
};

describe('the deployed bundles', () => {
  beforeAll(async () => {
    await Promise.all(
      entries.map(async (file) => {
        const options = lambdaBuildOptions(join(functions, file), tmpdir(), { write: false });
        bundles.set(file.replace(/\.ts$/, ''), (await build(options)).metafile);
      }),
    );
  }, 120_000);

  it('carry neither the X-Ray SDK nor Powertools Tracer', () => {
    expect(bundles.size).toBeGreaterThan(9);
    for (const { inputs } of bundles.values()) {
      const files = Object.keys(inputs);
      expect(files.length).toBeGreaterThan(0);
      expect(
        files.filter((file) => /aws-xray-sdk|powertools\/tracer|cls-hooked/.test(file)),
      ).toEqual([]);
    }
  });

  // Each row: a function, and where its rarely used modules are.
  it.each([
    ['receive-reports', RECEIVER],
    ['receive-inbound', RECEIVER],
    ['poll-reports', GATEWAY_READER],
    ['reconcile-status', GATEWAY_READER],
    [
      'send-messages',
      { s3: 'lazy', sendSchemas: 'start', cp949Table: 'start', secretsManager: 'lazy' },
    ],
    ['fetch-attachments', S3_ON_EVERY_REQUEST],
    ['sweep-attachments', S3_ON_EVERY_REQUEST],
    ['export-statistics', S3_ON_EVERY_REQUEST],
    ['refresh-token', { s3: 'absent', sendSchemas: 'absent', secretsManager: 'lazy' }],
    ['publish-events', { s3: 'absent', sendSchemas: 'absent', secretsManager: 'absent' }],
  ] satisfies [string, Expected][])(
    '%s reads its rare paths when first used: %o',
    (name, expected) => {
      const found = Object.fromEntries(
        Object.keys(expected).map((key) => [key, placement(name, RARE[key as keyof typeof RARE])]),
      );
      expect(found).toEqual(expected);
    },
  );
});
