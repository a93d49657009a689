import { join } from 'node:path';

/**
 * How every Lambda is bundled: the one description that the CDK construct
 * (`msgbridge-function.ts`) and the cold-start benchmark (`bench/cold-start.ts`) both read, so the
 * benchmark measures the bundles the stack deploys.
 */
export const LAMBDA_BUNDLING = {
  /** ESM, so the bundler tree-shakes and top-level code runs once per container. */
  format: 'esm',
  /** The Lambda runtime's Node.js (`Runtime.NODEJS_24_X`). */
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  /**
   * Nothing is left to the runtime: the AWS SDK is bundled, tree-shaken and minified with the
   * code, at the exact version the tests ran against. Measured with `npm run bench -- cold-start`,
   * one minified file imports two to three times faster than the same code loading the SDK from
   * `node_modules`, as the runtime's own copy would be (docs/performance.md).
   */
  externalModules: [] as string[],
  /**
   * A source map is written beside the bundle, for reading a stack trace offline, and not loaded:
   * `--enable-source-maps` parses the whole map at start and again on every stack trace.
   */
  sourceMap: 'external',
  /**
   * The map holds the mappings and the names of the source files, not their text (a third of the
   * size): a stack trace still resolves to file and line of the published sources.
   */
  sourcesContent: false,
  /**
   * Modules replaced in the bundle: the SDK's default credential chain by the provider a Lambda
   * uses, its environment variables (`functions/commons/clients/lambda-credentials.ts`).
   */
  alias: {
    '@aws-sdk/credential-provider-node': join(
      import.meta.dirname,
      '../functions/commons/clients/lambda-credentials.ts',
    ),
  } as Readonly<Record<string, string>>,
  /** ESM bundles still meet CommonJS dependencies that call `require()`. */
  banner:
    "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
} as const;

/** What differs between the callers of {@link lambdaBuildOptions}. */
export interface LambdaBuildChoices {
  /** @default LAMBDA_BUNDLING.target (the benchmark builds for the Node.js that runs it) */
  readonly target?: string;
  /** @default LAMBDA_BUNDLING.externalModules */
  readonly external?: readonly string[];
  /** @default true (false: the files are only answered, as esbuild's `write: false`) */
  readonly write?: boolean;
}

/**
 * The esbuild options that bundle the Lambda entry `entry` into `outdir` as deployed: the handler
 * module `index.mjs` (handler `index.handler`) and, with code splitting, a file under `chunks/` for
 * each part only a dynamic `import()` reaches, which is read and evaluated when first imported, not
 * at cold start. The stack (`MsgbridgeFunction`), the package build and the cold-start benchmark
 * all bundle with these. `NodejsFunction`'s own bundling writes one file (`--outfile`), which
 * cannot split, so the stack runs this step itself.
 */
export const lambdaBuildOptions = (
  entry: string,
  outdir: string,
  choices: LambdaBuildChoices = {},
) => ({
  entryPoints: { [PREBUILT_BUNDLE_FILE.replace(/\.mjs$/, '')]: entry },
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node' as const,
  format: LAMBDA_BUNDLING.format,
  target: choices.target ?? LAMBDA_BUNDLING.target,
  mainFields: [...LAMBDA_BUNDLING.mainFields],
  minify: LAMBDA_BUNDLING.minify,
  external: [...(choices.external ?? LAMBDA_BUNDLING.externalModules)],
  sourcemap: LAMBDA_BUNDLING.sourceMap,
  sourcesContent: LAMBDA_BUNDLING.sourcesContent,
  // Every chunk is a module of its own, so each gets its own `require`.
  banner: { js: LAMBDA_BUNDLING.banner },
  alias: { ...LAMBDA_BUNDLING.alias },
  metafile: true as const,
  write: choices.write ?? true,
  logLevel: 'warning' as const,
});

/**
 * The output files (of `metafile.outputs`, maps left out) that importing `entryOutput` reads at
 * once: the entry and every chunk it reaches through static imports. The chunks only a dynamic
 * `import()` reaches are left out: they are read when first used.
 */
export const filesReadAtStart = (
  outputs: Readonly<
    Record<string, { readonly imports: readonly { path: string; kind: string }[] }>
  >,
  entryOutput: string,
): string[] => {
  const read = new Set<string>();
  const visit = (file: string) => {
    if (read.has(file)) return;
    read.add(file);
    for (const imported of outputs[file]?.imports ?? [])
      if (imported.kind === 'import-statement' && imported.path in outputs) visit(imported.path);
  };
  visit(entryOutput);
  return [...read];
};

/**
 * The file of a prebuilt bundle (`npm run build` writes `dist/lambda/<name>/index.mjs`), and so
 * the handler `index.handler`: what `NodejsFunction` names its own ESM bundle.
 */
export const PREBUILT_BUNDLE_FILE = 'index.mjs';
