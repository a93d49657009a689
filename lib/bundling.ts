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

/**
 * The file of a prebuilt bundle (`npm run build` writes `dist/lambda/<name>/index.mjs`), and so
 * the handler `index.handler`: what `NodejsFunction` names its own ESM bundle.
 */
export const PREBUILT_BUNDLE_FILE = 'index.mjs';
