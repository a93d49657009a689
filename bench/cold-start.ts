/**
 * Scenario `cold-start`: for every Lambda entry in `functions/*.ts`, the deployed bundle's size and
 * the median time a fresh `node` takes to import it (11 runs), each as a ratio to an empty handler
 * bundled the same way — ratios, because the machine's speed cancels out of them. The imports run
 * in rounds, one of every bundle (the empty handler's included) per round, so that a busy moment
 * of a shared machine falls on all of them alike; besides the wall time, the CPU time of each
 * import (`process.cpuUsage()`, less disturbed by other processes) is kept as a second ratio.
 *
 * Bundled with `LAMBDA_BUNDLING` (`lib/bundling.ts`), the settings the stack deploys with (ESM,
 * minified, the SDK bundled, an external source map that is not loaded, the `createRequire`
 * banner), except the target: node20, the Node.js that runs here. Each import runs with the
 * environment variables the synthesized template gives its function, resolved as in an account
 * (secret ARNs, not local credentials); nothing is called at import time. For comparison, the
 * receivers and the sender are also bundled with the AWS SDK left to `node_modules` (as a Lambda
 * that uses the runtime's SDK loads it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { StackTemplate } from '../aws-semantics/cloudformation-template.ts';
import { LAMBDA_BUNDLING } from '../lib/bundling.ts';
import { DeploymentModel } from '../local/stack/deployment-model.ts';
import { synthesizeStack } from '../local/stack/synthesize.ts';
import { median, ratio, round, type ScenarioResult } from './report.ts';

const root = join(import.meta.dirname, '..');
const IMPORT_RUNS = 11;

/**
 * What each entry reads at cold start: the environment the synthesized template gives its function,
 * resolved as a deployment would resolve it (ARNs, queue URLs, table names of an account), with
 * every optional function deployed (reports by polling and webhook, the statistics export).
 */
const deployedEnvironment = (): Record<string, Record<string, string>> => {
  const { template, stackName } = synthesizeStack({
    stackName: 'msgbridge',
    settings: {
      reportDelivery: 'both',
      statisticsExport: { messengerChannels: ['@bench'], s3Export: true },
    },
  });
  const stack = new StackTemplate(template);
  const model = new DeploymentModel(stack, {
    region: 'ap-northeast-2',
    account: '123456789012',
    partition: 'aws',
    stackName,
  });
  return Object.fromEntries(
    stack
      .functions()
      .map((fn) => [
        fn.name,
        Object.fromEntries(
          Object.entries(fn.environment).map(([name, value]) => [
            name,
            model.resolveString(value, `${fn.name}.${name}`),
          ]),
        ),
      ]),
  );
};

/** Set for every function, as Lambda sets them (region) or the stack does (namespace). */
const COMMON_ENVIRONMENT = {
  AWS_REGION: 'ap-northeast-2',
  POWERTOOLS_METRICS_NAMESPACE: 'msgbridge',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  // The bundled SDK warns on every start under Node.js 20 (about 2 ms of a receiver's import);
  // the deployed Node.js 24 runtime does not, so neither does the measurement.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** The receivers, whose goals are stricter than the other functions'. */
const RECEIVERS = new Set(['receive-reports', 'receive-inbound']);
/** Bundled a second time with the AWS SDK external, to show what bundling it changes. */
const SDK_EXTERNAL_COMPARED = ['receive-reports', 'send-messages'];

/** Bundles `entry` with the deployed settings (or with the SDK left external); answers its bytes. */
const bundle = async (entry: string, outfile: string, sdkExternal = false): Promise<number> => {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: LAMBDA_BUNDLING.format,
    target: 'node20',
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    minify: LAMBDA_BUNDLING.minify,
    external: sdkExternal ? ['@aws-sdk/*'] : LAMBDA_BUNDLING.externalModules,
    sourcemap: LAMBDA_BUNDLING.sourceMap,
    sourcesContent: LAMBDA_BUNDLING.sourcesContent,
    logLevel: 'silent',
    banner: { js: LAMBDA_BUNDLING.banner },
    alias: LAMBDA_BUNDLING.alias,
  });
  return statSync(outfile).size;
};

/** One import in a fresh `node`: wall and CPU time from before the import to after it, in ms. */
const importOnce = (
  file: string,
  environment: Record<string, string>,
): { wall: number; cpu: number } => {
  const result = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const c=process.cpuUsage();const t=performance.now();await import(${JSON.stringify(file)});const w=performance.now()-t;const u=process.cpuUsage(c);console.log(w+' '+(u.user+u.system)/1000)`,
    ],
    {
      env: { PATH: process.env.PATH ?? '', ...COMMON_ENVIRONMENT, ...environment },
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) {
    // The bundle's own source line is in the trace too; the error lines are what tell.
    const errors = result.stderr.split('\n').filter((line) => /^\w*Error\b/.test(line));
    throw new Error(`importing ${file} failed: ${errors.join('; ') || result.stderr.slice(-500)}`);
  }
  const [wall = Number.NaN, cpu = Number.NaN] = (result.stdout.trim().split('\n').at(-1) ?? '')
    .split(' ')
    .map(Number);
  return { wall, cpu };
};

/**
 * Median wall and CPU time of importing each bundle, `IMPORT_RUNS` rounds of one import of every
 * bundle each, in a fresh `node` every time.
 */
const importTimes = (
  bundles: readonly { readonly file: string; readonly environment: Record<string, string> }[],
): { wall: number; cpu: number }[] => {
  const times = bundles.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let run = 0; run < IMPORT_RUNS; run++)
    bundles.forEach(({ file, environment }, index) => {
      const { wall, cpu } = importOnce(file, environment);
      times[index]?.wall.push(wall);
      times[index]?.cpu.push(cpu);
    });
  return times.map(({ wall, cpu }) => ({ wall: median(wall), cpu: median(cpu) }));
};

/** The Lambda entries: every `functions/*.ts` file (the use cases live in sub-directories). */
const entries = (): string[] =>
  readdirSync(join(root, 'functions'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();

export const runColdStart = async (): Promise<ScenarioResult> => {
  // Inside the project, so a bundle with the SDK external finds it in node_modules.
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'msgbridge-bench-cold-'));
  try {
    const emptyEntry = join(dir, 'empty.ts');
    writeFileSync(emptyEntry, 'export const handler = async () => ({ statusCode: 200 });\n');
    const emptyBytes = await bundle(emptyEntry, join(dir, 'empty.mjs'));
    const environments = deployedEnvironment();
    const deployed: { name: string; file: string; bytes: number }[] = [];
    for (const name of entries()) {
      if (environments[name] === undefined)
        throw new Error(`cold-start: the stack deploys no function for functions/${name}.ts`);
      const file = join(dir, `${name}.mjs`);
      deployed.push({
        name,
        file,
        bytes: await bundle(join(root, 'functions', `${name}.ts`), file),
      });
    }
    const external: { name: string; file: string; bytes: number }[] = [];
    for (const name of SDK_EXTERNAL_COMPARED) {
      const file = join(dir, `${name}.sdk-external.mjs`);
      external.push({
        name,
        file,
        bytes: await bundle(join(root, 'functions', `${name}.ts`), file, true),
      });
    }
    const [empty = { wall: Number.NaN, cpu: Number.NaN }, ...times] = importTimes([
      { file: join(dir, 'empty.mjs'), environment: {} },
      ...[...deployed, ...external].map(({ name, file }) => ({
        file,
        environment: environments[name] ?? {},
      })),
    ]);
    const emptyImportMs = empty.wall;
    const lambdas: Record<
      string,
      {
        bytes: number;
        bytesRatio: number;
        importMs: number;
        importRatio: number;
        cpuImportRatio: number;
      }
    > = {};
    deployed.forEach(({ name, bytes }, index) => {
      const time = times[index] ?? { wall: Number.NaN, cpu: Number.NaN };
      lambdas[name] = {
        bytes,
        bytesRatio: ratio(bytes, emptyBytes, 0),
        importMs: round(time.wall, 1),
        importRatio: ratio(time.wall, emptyImportMs, 1),
        cpuImportRatio: ratio(time.cpu, empty.cpu, 1),
      };
    });
    const sdkExternal: Record<string, { bytes: number; importRatio: number }> = {};
    external.forEach(({ name, bytes }, index) => {
      const time = times[deployed.length + index] ?? { wall: Number.NaN, cpu: Number.NaN };
      sdkExternal[name] = { bytes, importRatio: ratio(time.wall, emptyImportMs, 1) };
    });
    const of = (receivers: boolean) =>
      Object.entries(lambdas).filter(([name]) => RECEIVERS.has(name) === receivers);
    const maxOf = (rows: [string, { bytes: number; importRatio: number }][], bytes: boolean) =>
      Math.max(...rows.map(([, l]) => (bytes ? round(l.bytes / 1024, 0) : l.importRatio)));
    return {
      figures: {
        target: 'node20',
        importRuns: IMPORT_RUNS,
        emptyHandler: {
          bytes: emptyBytes,
          importMs: round(emptyImportMs, 2),
          importCpuMs: round(empty.cpu, 2),
        },
        lambdas,
        sdkExternal,
        maxImportRatioReceivers: maxOf(of(true), false),
        maxImportRatio: maxOf(of(false), false),
        maxBundleKiBReceivers: maxOf(of(true), true),
        maxBundleKiB: maxOf(of(false), true),
      },
      tables: [
        {
          title: `cold-start: bundle size and import time as ratios to an empty handler (${emptyBytes} B, ${round(emptyImportMs, 1)} ms wall, ${round(empty.cpu, 1)} ms CPU; medians of ${IMPORT_RUNS} interleaved rounds)`,
          columns: [
            'function',
            'bundle KiB',
            'bytes ratio',
            'import ms',
            'import ratio',
            'CPU ratio',
          ],
          rows: Object.entries(lambdas).map(([name, l]) => [
            name,
            round(l.bytes / 1024, 0),
            l.bytesRatio,
            l.importMs,
            l.importRatio,
            l.cpuImportRatio,
          ]),
        },
        {
          title:
            'cold-start: the same functions with the AWS SDK left to node_modules (not deployed)',
          columns: ['function', 'bundle KiB', 'import ratio', 'deployed import ratio'],
          rows: Object.entries(sdkExternal).map(([name, l]) => [
            name,
            round(l.bytes / 1024, 0),
            l.importRatio,
            lambdas[name]?.importRatio ?? Number.NaN,
          ]),
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
