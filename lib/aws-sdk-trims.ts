import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/**
 * Two rewrites of the AWS SDK's published modules as esbuild loads them, each keeping what the
 * module evaluates to and letting the bundle leave out what no command of the function uses.
 *
 * **Schema trait keys.** Since 3.930 each client describes every operation and shape of its
 * service in one generated module, `dist-es/schemas/schemas_0.js`, as array literals that a bundler
 * drops when nothing names them. Their trait objects are written with computed keys, the trait
 * names held in module constants (`const _e = "error"; … { [_e]: _c, [_hE]: 400 }`), and esbuild
 * keeps any statement whose object literal has a computed key that is not itself a literal (the
 * key's conversion to a string could run code), so the whole service stays in the bundle: S3's is
 * 64 KiB of a function that calls four of its operations (aws/aws-sdk-js-v3 issue 7607, open on
 * 2026-12-07; smithy-lang/smithy-typescript pull request 1889 generates literal keys instead, not
 * released in 3.1178.0, the newest on the registry that day). The rewrite puts each constant's
 * string in its place, `{ "error": _c, "httpError": 400 }`, the object the module built before.
 *
 * **Each client's `package.json`.** A client imports its whole manifest (2 to 3 KiB of
 * dependencies and scripts) to read `version` for the `User-Agent` header; the bundle gets
 * `{"version": …}` alone, which is all any module of the SDK reads of it.
 *
 * `test/unit/aws-sdk-trims.test.ts` evaluates every client's schemas both ways and compares them.
 */
export const awsSdkTrims: Plugin = {
  name: 'msgbridge-aws-sdk-trims',
  setup(build) {
    build.onLoad({ filter: SCHEMAS_MODULE }, async ({ path }) => ({
      contents: literalTraitKeys(await readFile(path, 'utf8')),
      loader: 'js',
    }));
    build.onLoad({ filter: CLIENT_MANIFEST }, async ({ path }) => ({
      contents: versionOnly(await readFile(path, 'utf8')),
      loader: 'json',
    }));
  },
};

/** A client's generated schemas module, in `@aws-sdk/client-*` or `@aws-sdk/nested-clients`. */
export const SCHEMAS_MODULE =
  /[\\/]node_modules[\\/]@aws-sdk[\\/][^\\/]+[\\/]dist-es[\\/](?:.+[\\/])?schemas[\\/]schemas_\d+\.js$/;

/** The manifest of an `@aws-sdk` package, imported by its clients for their version. */
export const CLIENT_MANIFEST = /[\\/]node_modules[\\/]@aws-sdk[\\/][^\\/]+[\\/]package\.json$/;

/** A module-level string constant as the SDK's code generator writes it, one per line. */
const STRING_CONSTANT = /^const (\w+) = ("(?:[^"\\\n]|\\.)*");$/gm;

/** A computed key naming one identifier: `[_hE]:`. */
const COMPUTED_KEY = /\[(\w+)\]:/g;

/**
 * `source` with every computed key that names one of its module-level string constants written as
 * that string. `__proto__` stays computed: as a literal key it would set the object's prototype
 * instead of an own property.
 */
export const literalTraitKeys = (source: string): string => {
  const strings = new Map<string, string>();
  for (const [, name, literal] of source.matchAll(STRING_CONSTANT))
    if (name !== undefined && literal !== undefined) strings.set(name, literal);
  return source.replace(COMPUTED_KEY, (key, name: string) => {
    const literal = strings.get(name);
    return literal === undefined || JSON.parse(literal) === '__proto__' ? key : `${literal}:`;
  });
};

/** The manifest `text` reduced to its `version`, the one field the SDK reads of it. */
export const versionOnly = (text: string): string => {
  const { version } = JSON.parse(text) as { version?: unknown };
  if (typeof version !== 'string') throw new Error('an @aws-sdk package.json without a version');
  return JSON.stringify({ version });
};
