/**
 * `npm run build` (and `npm pack`/`npm publish`, through `prepack`): the package in `dist/`.
 *
 * - `tsc -p tsconfig.build.json`: JavaScript and declarations of the constructs (`lib/`), the
 *   producer (`producer/send.ts`), the event types (`events/`) and what they import, with the
 *   `.ts` import specifiers rewritten to `.js`.
 * - One bundle per Lambda (`functions/*.ts`) in `dist/lambda/<name>/`, built with the settings
 *   `MsgbridgeFunction` bundles with (`LAMBDA_BUNDLING`), so that a CDK app using the package
 *   synthesizes without esbuild, Docker or the functions' sources: `MsgbridgeFunction` deploys
 *   the prebuilt bundle when it finds one.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { LAMBDA_BUNDLING, PREBUILT_BUNDLE_FILE } from '../lib/bundling.ts';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});

// Every top-level file of functions/ is one Lambda's entry (one entry file per Lambda).
const entries = readdirSync(join(root, 'functions')).filter((name) => name.endsWith('.ts'));
await Promise.all(
  entries.map((file) =>
    build({
      entryPoints: [join(root, 'functions', file)],
      outfile: join(dist, 'lambda', file.replace(/\.ts$/, ''), PREBUILT_BUNDLE_FILE),
      bundle: true,
      platform: 'node',
      format: LAMBDA_BUNDLING.format,
      target: LAMBDA_BUNDLING.target,
      mainFields: [...LAMBDA_BUNDLING.mainFields],
      minify: LAMBDA_BUNDLING.minify,
      external: [...LAMBDA_BUNDLING.externalModules],
      sourcemap: LAMBDA_BUNDLING.sourceMap,
      banner: { js: LAMBDA_BUNDLING.banner },
      alias: LAMBDA_BUNDLING.alias,
      logLevel: 'warning',
    }),
  ),
);
process.stdout.write(`dist/: declarations and JavaScript, and ${entries.length} Lambda bundles\n`);
