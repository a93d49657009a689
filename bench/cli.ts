/**
 * Scenario `cli`: the package as npm installs it, and how fast its `msgbridge` command starts.
 * It builds and packs the package (`npm run build`, `npm pack ./dist`), installs the tarball into
 * a CDK app that has only `aws-cdk-lib` and `constructs` and into an empty folder, and times
 * commands that read no network: `--version` and `--help` of the installed command run by `node`
 * and by `npx` (which adds npm's own start), beside the checkout's command (TypeScript through
 * tsx) and Node.js starting an empty script.
 *
 * Figures: the tarball's size, unpacked size and file count (npm pack's own), the packages each
 * install adds, and the median wall time of each command over `runs` runs, with the ratios that
 * say what the compiled command saves.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { figuresTable, median, ratio, round, type ScenarioResult } from './report.ts';

const ROOT = join(import.meta.dirname, '..');
const BIG = { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' } as const;

const npm = (args: readonly string[], cwd: string) => execFileSync('npm', args, { cwd, ...BIG });

/** The packages installed below `dir`, by npm's own listing. */
const packages = (dir: string): number =>
  npm(['ls', '--all', '--parseable'], dir)
    .split('\n')
    .filter((line) => line.includes('/node_modules/')).length;

/** The median wall time of `command args…` in `cwd`, in milliseconds, over `runs` runs. */
const startMs = (command: string, args: readonly string[], cwd: string, runs: number) => {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    execFileSync(command, args, { cwd, stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return round(median(times), 0);
};

export const runCli = async (runs = 11): Promise<ScenarioResult> => {
  const work = mkdtempSync(join(tmpdir(), 'msgbridge-bench-cli-'));
  try {
    npm(['run', 'build'], ROOT);
    const [packed] = JSON.parse(
      npm(['pack', './dist', '--json', '--pack-destination', work], ROOT),
    ) as [{ filename: string; size: number; unpackedSize: number; entryCount: number }];
    if (!packed) throw new Error('npm pack wrote no tarball');
    const tarball = join(work, packed.filename);
    const devVersion = (name: string) =>
      (
        JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'cdk-app',
        private: true,
        type: 'module',
        dependencies: {
          'aws-cdk-lib': devVersion('aws-cdk-lib'),
          constructs: devVersion('constructs'),
        },
      }),
    );
    npm(install, app);
    const cdkApp = packages(app);
    npm([...install, tarball], app);
    const withMsgbridge = packages(app);

    const empty = join(work, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'package.json'), JSON.stringify({ name: 'empty', private: true }));
    npm([...install, tarball], empty);
    const fromEmpty = packages(empty);

    const command = join(app, 'node_modules/msgbridge/cli/msgbridge.mjs');
    const nodeOnly = startMs(process.execPath, ['-e', '0'], app, runs);
    const version = startMs(process.execPath, [command, '--version'], app, runs);
    const help = startMs(process.execPath, [command, '--help'], app, runs);
    const npxVersion = startMs('npx', ['msgbridge', '--version'], app, runs);
    const checkoutVersion = startMs(
      process.execPath,
      [join(ROOT, 'bin/msgbridge-cli.mjs'), '--version'],
      ROOT,
      runs,
    );

    const figures = {
      tarballBytes: packed.size,
      unpackedBytes: packed.unpackedSize,
      files: packed.entryCount,
      packagesAddedToCdkApp: withMsgbridge - cdkApp,
      packagesInEmptyFolder: fromEmpty,
      runs,
      nodeStartMs: nodeOnly,
      versionMs: version,
      helpMs: help,
      npxVersionMs: npxVersion,
      checkoutVersionMs: checkoutVersion,
      checkoutToInstalledRatio: ratio(checkoutVersion, version, 2),
      commandOverNodeMs: round(version - nodeOnly, 0),
    };
    return {
      figures,
      tables: [
        figuresTable('The package (npm pack ./dist, npm install)', [
          ['tarball (MB)', round(packed.size / 1e6, 2)],
          ['unpacked (MB)', round(packed.unpackedSize / 1e6, 2)],
          ['files', packed.entryCount],
          ['packages it adds to a CDK app', figures.packagesAddedToCdkApp],
          ['packages in an empty folder after npm i (peers included)', fromEmpty],
        ]),
        figuresTable(`Starting the command (median of ${runs}, ms; this machine is noisy)`, [
          ['node -e 0', nodeOnly],
          ['installed: node cli/msgbridge.mjs --version', version],
          ['installed: node cli/msgbridge.mjs --help', help],
          ['installed: npx msgbridge --version', npxVersion],
          ['checkout: node bin/msgbridge-cli.mjs --version (tsx)', checkoutVersion],
          ['checkout ÷ installed', figures.checkoutToInstalledRatio],
        ]),
      ],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
