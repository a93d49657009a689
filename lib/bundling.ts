import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { awsSdkTrims } from './aws-sdk-trims.ts';

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
  /**
   * Whether `import('…/s3-part.mjs')` is left to the file {@link s3PartBuildOptions} builds apart.
   * @default true
   */
  readonly s3Apart?: boolean;
}

/**
 * The module the rare S3 paths import (`functions/commons/clients/s3-part.mts`), by the file name
 * every importer writes and the bundle keeps: `s3-part.mjs`, beside the handler.
 */
export const S3_PART = {
  source: join(import.meta.dirname, '../functions/commons/clients/s3-part.mts'),
  file: 's3-part.mjs',
} as const;

/**
 * The esbuild options that bundle the Lambda entry `entry` into `outdir` as deployed: the handler
 * module `index.mjs` (handler `index.handler`) and, with code splitting, a file beside it for each
 * part only a dynamic `import()` reaches, which is read and evaluated when first imported, not at
 * cold start. Every file sits in `outdir` itself, so the `./s3-part.mjs` an import keeps names the
 * same file from each of them. `NodejsFunction`'s own bundling writes one file (`--outfile`),
 * which cannot split, so the stack runs this step itself; {@link bundleLambdaAsync} runs it for
 * the stack (`MsgbridgeFunction`, through {@link bundleLambdaSync}), the package build and the
 * cold-start benchmark alike.
 */
export const lambdaBuildOptions = (
  entry: string,
  outdir: string,
  choices: LambdaBuildChoices = {},
) => ({
  entryPoints: { [PREBUILT_BUNDLE_FILE.replace(/\.mjs$/, '')]: entry },
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node' as const,
  format: LAMBDA_BUNDLING.format,
  target: choices.target ?? LAMBDA_BUNDLING.target,
  mainFields: [...LAMBDA_BUNDLING.mainFields],
  minify: LAMBDA_BUNDLING.minify,
  external: [
    ...(choices.external ?? LAMBDA_BUNDLING.externalModules),
    // Matched against the import as written, so the bundle keeps `import("./s3-part.mjs")`.
    ...(choices.s3Apart === false ? [] : [`*/${S3_PART.file}`]),
  ],
  sourcemap: LAMBDA_BUNDLING.sourceMap,
  sourcesContent: LAMBDA_BUNDLING.sourcesContent,
  // Every chunk is a module of its own, so each gets its own `require`.
  banner: { js: LAMBDA_BUNDLING.banner },
  alias: { ...LAMBDA_BUNDLING.alias },
  // The SDK's schemas rewritten so that a bundle keeps only its commands' (`aws-sdk-trims.ts`).
  plugins: [awsSdkTrims],
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

/**
 * The esbuild options of the S3 part (`S3_PART`): one file, `outdir/s3-part.mjs`, with its own copy
 * of the SDK's core. Built in the same build as the handler, the SDK modules S3 shares with
 * DynamoDB would sit in the files a cold start reads, S3's serialisers with them, because esbuild
 * places a module by which entries reach it, not by which of its exports each one uses (esbuild
 * issue #3704): about 43 KiB of a receiver (docs/performance.md, `cold-start`).
 */
export const s3PartBuildOptions = (outdir: string, choices: LambdaBuildChoices = {}) => ({
  ...lambdaBuildOptions(S3_PART.source, outdir, { ...choices, s3Apart: false }),
  entryPoints: { [S3_PART.file.replace(/\.mjs$/, '')]: S3_PART.source },
  splitting: false,
});

/** What {@link bundleLambdaAsync} needs of esbuild (`build`). */
export interface AsyncBundler {
  build(options: ReturnType<typeof lambdaBuildOptions>): Promise<BundleResult>;
}

/** The part of esbuild's answer the callers read. */
export interface BundleResult {
  readonly metafile: { readonly outputs: Record<string, BundleOutput> };
  readonly outputFiles?: readonly { readonly path: string; readonly contents: Uint8Array }[];
}

/** One output file of esbuild's metafile. */
export interface BundleOutput {
  readonly imports: readonly { path: string; kind: string; external?: boolean }[];
  readonly inputs: Record<string, { readonly bytesInOutput: number }>;
}

/** A bundled Lambda: its builds' output files, as esbuild's metafile describes them. */
export interface BundledLambda {
  readonly outputs: Record<string, BundleOutput>;
  readonly outputFiles: readonly { readonly path: string; readonly contents: Uint8Array }[];
}

const S3_SDK = /node_modules\/@aws-sdk\/client-s3\//;

/**
 * The builds that bundle `entry` as deployed, chosen from the first one's metafile: the handler's
 * files alone when nothing imports the S3 part; with the part built apart when S3 is a rare path;
 * and, for a function that reads S3 on every request (S3 already in its handler's files), one
 * build with the part as an ordinary chunk, so that it keeps one copy of the S3 client.
 */
const nextBuilds = (
  entry: string,
  outdir: string,
  choices: LambdaBuildChoices,
  first: BundleResult,
) => {
  const { outputs } = first.metafile;
  const partImports = Object.values(outputs).flatMap((output) =>
    output.imports.filter((imported) => imported.external && imported.path.endsWith(S3_PART.file)),
  );
  const misplaced = partImports.find((imported) => imported.path !== `./${S3_PART.file}`);
  if (misplaced !== undefined)
    throw new Error(
      `${entry}: import('${misplaced.path}') would not find the S3 part beside the handler; import it through s3OnFirstUse (functions/commons/clients/s3-on-first-use.ts)`,
    );
  const importsPart = partImports.length > 0;
  if (!importsPart) return { keepFirst: true, more: [] };
  const s3InHandler = Object.values(outputs).some((output) =>
    Object.keys(output.inputs).some((input) => S3_SDK.test(input)),
  );
  if (s3InHandler)
    return {
      keepFirst: false,
      more: [lambdaBuildOptions(entry, outdir, { ...choices, s3Apart: false })],
    };
  return { keepFirst: true, more: [s3PartBuildOptions(outdir, choices)] };
};

const bundled = (results: readonly BundleResult[]): BundledLambda => ({
  outputs: Object.assign({}, ...results.map((result) => result.metafile.outputs)),
  outputFiles: results.flatMap((result) => result.outputFiles ?? []),
});

/**
 * Bundles the Lambda entry `entry` into `outdir` as deployed ({@link lambdaBuildOptions}, and the S3
 * part apart where S3 is a rare path), with esbuild's `build`.
 */
export const bundleLambdaAsync = async (
  esbuild: AsyncBundler,
  entry: string,
  outdir: string,
  choices: LambdaBuildChoices = {},
): Promise<BundledLambda> => {
  const first = await esbuild.build(
    lambdaBuildOptions(entry, outdir, { ...choices, write: false }),
  );
  const { keepFirst, more } = nextBuilds(entry, outdir, choices, first);
  const results = await Promise.all(more.map((options) => esbuild.build(options)));
  return finish(keepFirst ? [first, ...results] : results, keepFirst ? first : undefined, choices);
};

/** Writes the first build's files, built in memory, when they are kept and the caller writes. */
const finish = (
  results: readonly BundleResult[],
  kept: BundleResult | undefined,
  choices: LambdaBuildChoices,
): BundledLambda => {
  if (kept !== undefined && (choices.write ?? true))
    for (const file of kept.outputFiles ?? []) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.contents);
    }
  return bundled(results);
};

/** The command that bundles one entry in a process of its own (`bundleLambdaSync`). */
export const BUNDLE_COMMAND = join(import.meta.dirname, '..', 'scripts', 'bundle-lambda.ts');

/**
 * {@link bundleLambdaAsync} for a caller that must bundle synchronously, the stack's local bundling
 * (CDK calls `tryBundle` and reads the directory when it returns): esbuild runs plugins only in its
 * asynchronous API, so a child `node` bundles (`scripts/bundle-lambda.ts`, through the checkout's
 * `tsx`) while this waits, as `NodejsFunction` waits for the esbuild it spawns. Only a checkout
 * bundles: the package ships its bundles prebuilt.
 */
export const bundleLambdaSync = (entry: string, outdir: string): void => {
  execFileSync(process.execPath, ['--import', 'tsx', BUNDLE_COMMAND, entry, outdir], {
    // `--import tsx` is resolved from the checkout's node_modules.
    cwd: join(import.meta.dirname, '..'),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
};
