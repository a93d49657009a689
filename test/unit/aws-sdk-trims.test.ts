/**
 * The rewrites of the AWS SDK's modules at bundle time (`lib/aws-sdk-trims.ts`): each module
 * evaluates to what it did before, and the bundle leaves out what its commands do not use.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  awsSdkTrims,
  CLIENT_MANIFEST,
  literalTraitKeys,
  SCHEMAS_MODULE,
  versionOnly,
} from '../../lib/aws-sdk-trims.ts';
import { lambdaBuildOptions } from '../../lib/bundling.ts';

const root = join(import.meta.dirname, '../..');
const sdk = join(root, 'node_modules/@aws-sdk');
const work = mkdtempSync(join(tmpdir(), 'msgbridge-sdk-trims-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Every generated schemas module of the installed SDK clients, nested clients included (not the
 * copies under a package's own node_modules).
 */
const schemasModules = (): string[] =>
  readdirSync(sdk, { recursive: true, encoding: 'utf8' })
    .filter((file) => !file.includes('node_modules'))
    .map((file) => join(sdk, file))
    .filter((path) => SCHEMAS_MODULE.test(path))
    .sort();

/**
 * `value` as text: functions by their source (a schema's members are thunks, `() => Owner$`),
 * maps and sets by their entries, objects by their own enumerable fields, cycles named once.
 */
const serialise = (value: unknown): string => {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'function') return `function ${item.name}: ${String(item)}`;
    if (typeof item === 'bigint') return `${item}n`;
    if (item === null || typeof item !== 'object') return item;
    if (seen.has(item)) return '[seen]';
    seen.add(item);
    if (item instanceof Map) return { map: [...item.entries()] };
    if (item instanceof Set) return { set: [...item.values()] };
    return item;
  });
};

/** The module `entry` bundled alone and imported, with or without the trims. */
const evaluate = async (entry: string, trimmed: boolean): Promise<Record<string, unknown>> => {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    write: false,
    plugins: trimmed ? [awsSdkTrims] : [],
    logLevel: 'silent',
  });
  const file = join(work, `${trimmed ? 'trimmed' : 'published'}-${entry.replace(/\W+/g, '_')}.mjs`);
  writeFileSync(file, result.outputFiles[0]?.contents ?? new Uint8Array());
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
};

describe('literalTraitKeys', () => {
  it('writes a computed key that names a string constant as that string, and nothing else', () => {
    // Prepare
    const source = [
      'const _e = "error";',
      'const _c = "client";',
      'const _q = "say \\"hi\\"";',
      'const _p = "__proto__";',
      'const n0 = "com.amazonaws.s3";',
      'let _l = "not a constant of the generator";',
      'export var A$ = [-3, n0, "A", { [_e]: _c, [_q]: 1, [_p]: 2, [_l]: 3, [other]: 4 }, [], []];',
    ].join('\n');

    // Act
    const rewritten = literalTraitKeys(source);

    // Assess
    expect(rewritten.split('\n').at(-1)).toBe(
      'export var A$ = [-3, n0, "A", { "error": _c, "say \\"hi\\"": 1, [_p]: 2, [_l]: 3, [other]: 4 }, [], []];',
    );
    expect(rewritten.split('\n').slice(0, -1)).toEqual(source.split('\n').slice(0, -1));
  });
});

describe('versionOnly', () => {
  it('keeps the version, the one field the SDK reads of its manifest, and refuses one without', () => {
    // Prepare
    const manifest = readFileSync(join(sdk, 'client-s3/package.json'), 'utf8');

    // Act
    const trimmed = JSON.parse(versionOnly(manifest)) as unknown;

    // Assess
    expect(trimmed).toEqual({ version: (JSON.parse(manifest) as { version: string }).version });
    expect(() => versionOnly('{"name":"x"}')).toThrow(/without a version/);
    expect(CLIENT_MANIFEST.test(join(sdk, 'client-s3/package.json'))).toBe(true);
    expect(CLIENT_MANIFEST.test(join(root, 'node_modules/zod/package.json'))).toBe(false);
  });
});

describe('every schemas module of the installed SDK', () => {
  const modules = schemasModules();

  it('is found: the clients the functions call and the nested ones among them', () => {
    const names = modules.map((path) => path.slice(sdk.length + 1).split('/dist-es/')[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        'client-dynamodb',
        'client-eventbridge',
        'client-s3',
        'client-secrets-manager',
        'client-sqs',
        'nested-clients',
      ]),
    );
  });

  it.each(modules.map((path) => [path.slice(sdk.length + 1), path]))(
    '%s evaluates to the same schemas, registries and errors rewritten',
    async (_name, path) => {
      // Prepare: the generator's computed keys are there to rewrite, and none is left after.
      const source = readFileSync(path, 'utf8');
      const computed = (text: string) => text.match(/\{ ?\[_\w+\]:/g)?.length ?? 0;
      expect(computed(source)).toBeGreaterThan(0);
      expect(computed(literalTraitKeys(source))).toBe(0);

      // Act
      const [published, trimmed] = await Promise.all([evaluate(path, false), evaluate(path, true)]);

      // Assess
      expect(Object.keys(trimmed).sort()).toEqual(Object.keys(published).sort());
      expect(serialise(trimmed)).toBe(serialise(published));
    },
    60_000,
  );
});

describe('a bundle with the trims', () => {
  /** Bytes each input contributes to a bundle of an S3 client sending one PutObject. */
  const inputBytes = async (plugins: boolean) => {
    const entry = join(work, 'put-object.mjs');
    writeFileSync(
      entry,
      "import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';\n" +
        "export const handler = () => new S3Client({}).send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'x' }));\n",
    );
    const options = lambdaBuildOptions(entry, join(work, `out-${plugins}`), { write: false });
    const result = await build({
      ...options,
      nodePaths: [join(root, 'node_modules')],
      ...(plugins ? {} : { plugins: [] }),
    });
    const bytes = new Map<string, number>();
    for (const output of Object.values(result.metafile.outputs))
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
        bytes.set(input, (bytes.get(input) ?? 0) + bytesInOutput);
    const of = (pattern: RegExp) =>
      [...bytes].filter(([input]) => pattern.test(input)).reduce((sum, [, n]) => sum + n, 0);
    return {
      s3Schemas: of(/client-s3\/dist-es\/schemas\/schemas_0\.js$/),
      s3Manifest: of(/client-s3\/package\.json$/),
      text: result.outputFiles?.map((file) => file.text).join('\n') ?? '',
    };
  };

  it('keeps the schemas of the commands it sends and the client version, not the whole service', async () => {
    // Act: the deployed build options (the trims in them) and the same without any plugin.
    const [trimmed, published] = await Promise.all([inputBytes(true), inputBytes(false)]);

    // Assess: S3's other operations gone (the published schemas keep every one of them).
    const has = (text: string, fragment: string) => text.includes(fragment);
    expect(has(published.text, 'ListBuckets')).toBe(true);
    expect(has(trimmed.text, 'ListBuckets')).toBe(false);
    expect(has(trimmed.text, 'PutObject')).toBe(true);
    expect(trimmed.s3Schemas).toBeLessThan(published.s3Schemas / 2);
    // The manifest: its version alone, where the whole of it was.
    const { version } = JSON.parse(readFileSync(join(sdk, 'client-s3/package.json'), 'utf8')) as {
      version: string;
    };
    expect(has(trimmed.text, `"${version}"`)).toBe(true);
    expect(published.s3Manifest).toBeGreaterThan(1_000);
    expect(trimmed.s3Manifest).toBeLessThan(100);
  }, 60_000);
});
