/**
 * `npm run build`: the package, whole, in `dist/` — what `npm pack ./dist` and `npm publish
 * ./dist` take (the repository's own package.json is private): the constructs, the producer and
 * the event types compiled by tsc; one bundle per Lambda, built as `MsgbridgeFunction` bundles
 * (`bundleLambdaAsync`; their source maps go to `dist-sourcemaps/`, outside the package), which
 * it deploys when it finds them; the `msgbridge` command compiled into `cli/`; and the manifest, README, docs, LICENSE and CHANGELOG (scripts/package-manifest.ts).
 * docs/deploy.md ("The package") says what each holds and why.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { bundleLambdaAsync, LAMBDA_BUNDLING } from '../lib/bundling.ts';
import { PACKAGE_DOCS, packageManifest, packageReadme } from './package-manifest.ts';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});

// Every top-level file of functions/ is one Lambda's entry (one entry file per Lambda).
const entries = readdirSync(join(root, 'functions')).filter((name) => name.endsWith('.ts'));
// Built with their maps, as a checkout's stack bundles them (a map changes the chunks' names), and
// the maps then moved out of the package into `dist-sourcemaps/`: they were half of it
// (docs/deploy.md, "The package", says what that costs and how to get them).
const sourceMaps = join(root, 'dist-sourcemaps');
rmSync(sourceMaps, { recursive: true, force: true });
const lambdas = entries.map((file) =>
  bundleLambdaAsync(
    { build },
    join(root, 'functions', file),
    join(dist, 'lambda', file.replace(/\.ts$/, '')),
  ),
);

const cliDir = join(dist, 'cli');
const cli = build({
  entryPoints: { msgbridge: join(root, 'bin/cli.ts') },
  outdir: cliDir,
  outExtension: { '.js': '.mjs' },
  // Chunks stay beside the entry: the console finds its assets next to its own module.
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  // The command runs on the operator's Node.js, 20.18 or later (`engines`).
  target: 'node20',
  mainFields: ['module', 'main'],
  minify: true,
  // The command reports errors by their messages; a trace of the bundle is not what it shows.
  sourcemap: false,
  banner: { js: `#!/usr/bin/env node\n${LAMBDA_BUNDLING.banner}` },
  logLevel: 'warning',
});

await Promise.all([...lambdas, cli]);
for (const file of readdirSync(join(dist, 'lambda'), { recursive: true, encoding: 'utf8' }))
  if (file.endsWith('.map')) {
    mkdirSync(dirname(join(sourceMaps, 'lambda', file)), { recursive: true });
    renameSync(join(dist, 'lambda', file), join(sourceMaps, 'lambda', file));
  }
cpSync(join(root, 'console/assets'), join(cliDir, 'assets'), { recursive: true });

const manifest = packageManifest(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
writeFileSync(join(dist, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(
  join(dist, 'README.md'),
  packageReadme(readFileSync(join(root, 'docs/package/README.md'), 'utf8'), manifest),
);
for (const file of ['LICENSE', 'CHANGELOG.md', ...PACKAGE_DOCS]) {
  mkdirSync(dirname(join(dist, file)), { recursive: true });
  cpSync(join(root, file), join(dist, file), { recursive: true });
}
process.stdout.write(
  `dist/: the package msgbridge ${manifest.version}: declarations and JavaScript, ${entries.length} Lambda bundles, the msgbridge command, its README and docs (npm pack ./dist)\n`,
);
