/**
 * Scenario `cold-start`: for every Lambda entry in `functions/*.ts`, the deployed bundle's size and
 * the median time a fresh `node` takes to import it (11 runs), each as a ratio to an empty handler
 * bundled the same way — ratios, because the machine's speed cancels out of them. The imports run
 * in rounds, one of every bundle (the empty handler's included) per round, so that a busy moment
 * of a shared machine falls on all of them alike; besides the wall time, the CPU time of each
 * import (`process.cpuUsage()`, less disturbed by other processes) is kept as a second ratio.
 *
 * Bundled with `bundleLambdaAsync` (`lib/bundling.ts`), the settings the stack deploys with (ESM,
 * code splitting, minified, the SDK bundled, an external source map that is not loaded, the
 * `createRequire` banner), except the target: node20, the Node.js that runs here. *Bundle KiB* is
 * what a cold start reads (the handler module and the chunks it imports statically); the chunks
 * only a dynamic `import()` reaches are counted apart. The floor probes (`FLOORS`) are bundled and
 * imported the same way, in the same rounds. Each import runs with the
 * environment variables the synthesized template gives its function, resolved as in an account
 * (secret ARNs, not local credentials); nothing is called at import time. For comparison, the
 * receivers and the sender are also bundled with the AWS SDK left to `node_modules` (as a Lambda
 * that uses the runtime's SDK loads it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { StackTemplate } from '../aws-semantics/cloudformation-template.ts';
import { bundleLambdaAsync, filesReadAtStart, PREBUILT_BUNDLE_FILE } from '../lib/bundling.ts';
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

/** What every function loads at start: DynamoDB, the logger and metrics under middy. */
const FUNCTION_FLOOR = `
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const logger = new Logger({ serviceName: 'floor' });
const metrics = new Metrics({ namespace: 'floor', serviceName: 'floor' });`;

/** What every receiver request uses besides its own code: the same and the webhook secret. */
const RECEIVER_FLOOR = `${FUNCTION_FLOOR}
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
const secrets = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });`;

/**
 * What a function that writes to S3 on every request loads: the S3 client with what every function
 * loads. These read Secrets Manager only to renew a gateway token, on first use
 * (`test/unit/deployed-bundles.test.ts`), so it is not in their floor.
 */
const S3_FLOOR = `${FUNCTION_FLOOR}
import { S3Client } from '@aws-sdk/client-s3';
const s3 = new S3Client({});`;

/**
 * A probe on `floor`: `declarations` after it, and a handler under the logger and metrics
 * middlewares that answers `answer` (an expression of `event` and the floor's clients).
 */
const onFloor = (floor: string, declarations: string, answer: string): string => `${floor}
${declarations}
export const handler = middy(async (event) => ${answer})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
`;

/** One object schema with the checks the item and event schemas use, in zod/mini. */
const MINI_SCHEMA = `
import * as z from 'zod/mini';
const schema = z.looseObject({
  id: z.uuid(),
  at: z.iso.datetime({ offset: true }),
  code: z.string().check(z.minLength(1)),
  count: z.optional(z.number().check(z.int())),
  kind: z.enum(['report', 'mo']),
  item: z.record(z.string(), z.unknown()),
});`;

/** {@link MINI_SCHEMA} with the English messages `gateway/schemas/zod.ts` installs, as the functions load it. */
const MINI_SCHEMA_WITH_MESSAGES = `${MINI_SCHEMA}
import en from 'zod/v4/locales/en.js';
z.config(en());`;

/**
 * What the AWS SDK and the libraries every function uses cost on their own, bundled and imported
 * like the functions in the same rounds: the floor below which no function that loads them at
 * start can go.
 */
const FLOORS: Readonly<Record<string, string>> = {
  'floor: DynamoDB document client': `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => documents;
`,
  'floor: a receiver (DynamoDB, Secrets Manager, logger, metrics, middy)': onFloor(
    RECEIVER_FLOOR,
    '',
    '[documents, secrets]',
  ),
  // The same floor with the validation every receiver request runs: one object schema with the
  // checks the item and event schemas use, in zod and in zod/mini.
  'floor: a receiver with zod, one schema': onFloor(
    RECEIVER_FLOOR,
    `
import * as z from 'zod';
const schema = z.looseObject({
  id: z.uuid(),
  at: z.iso.datetime({ offset: true }),
  code: z.string().min(1),
  count: z.number().int().optional(),
  kind: z.enum(['report', 'mo']),
  item: z.record(z.string(), z.unknown()),
});`,
    '[documents, secrets, schema.parse(event)]',
  ),
  'floor: a receiver with zod/mini, the same schema': onFloor(
    RECEIVER_FLOOR,
    MINI_SCHEMA,
    '[documents, secrets, schema.parse(event)]',
  ),
  // What the functions load: zod/mini with the English messages gateway/schemas/zod.ts installs.
  'floor: a receiver with zod/mini and its messages, the same schema': onFloor(
    RECEIVER_FLOOR,
    MINI_SCHEMA_WITH_MESSAGES,
    '[documents, secrets, schema.parse(event)]',
  ),
  // The clients `fetch-attachments`, `sweep-attachments` and `export-statistics` use on every
  // request, alone and with what every function loads besides: the floor of the functions that
  // write to S3 on every request.
  'floor: S3 + DynamoDB clients': `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const s3 = new S3Client({});
export const handler = async () => [documents, s3];
`,
  'floor: S3 + DynamoDB, logger, metrics, middy': onFloor(S3_FLOOR, '', '[documents, s3]'),
  'floor: the same with zod/mini and its messages, one schema': onFloor(
    S3_FLOOR,
    MINI_SCHEMA_WITH_MESSAGES,
    '[documents, s3, schema.parse(event)]',
  ),
  'zod, one small object schema': `
import * as z from 'zod';
const schema = z.object({ id: z.string(), count: z.number().int() });
export const handler = async (event) => schema.parse(event);
`,
  'zod/mini, the same schema': `
import * as z from 'zod/mini';
const schema = z.object({ id: z.string(), count: z.int() });
export const handler = async (event) => schema.parse(event);
`,
  // What the receivers' first items build (each receiver its own kind's, on first use:
  // item-records.ts), in zod/mini with its English messages, as the receivers bundle them.
  'zod/mini, the gateway report and MO item schemas': `
import { MoItemSchema } from '${join(root, 'gateway/schemas/mo.ts')}';
import { ReportItemSchema } from '${join(root, 'gateway/schemas/report-items.ts')}';
export const handler = async (event) => [ReportItemSchema.parse(event), MoItemSchema.parse(event)];
`,
};

/** The receivers, whose goals are stricter than the other functions'. */
const RECEIVERS = new Set(['receive-reports', 'receive-inbound']);
/** Bundled a second time with the AWS SDK external, to show what bundling it changes. */
const SDK_EXTERNAL_COMPARED = ['receive-reports', 'send-messages'];

/** What a bundle is: the file imported, the bytes read at start and the bytes of every chunk. */
interface Bundle {
  readonly file: string;
  /** The handler module and the chunks it imports statically: what a cold start reads. */
  readonly bytes: number;
  /** Every chunk of the bundle, the ones loaded on first use (a dynamic `import()`) included. */
  readonly totalBytes: number;
}

/**
 * Bundles `entry` into `outdir` with the deployed settings (`bundleLambdaAsync`, code splitting
 * included), or with the SDK left external, for Node.js 20 (the Node.js that runs here).
 */
const bundle = async (entry: string, outdir: string, sdkExternal = false): Promise<Bundle> => {
  const { outputs: metafileOutputs } = await bundleLambdaAsync({ build }, entry, outdir, {
    target: 'node20',
    ...(sdkExternal ? { external: ['@aws-sdk/*'] } : {}),
  });
  const outputs = Object.keys(metafileOutputs).filter((file) => !file.endsWith('.map'));
  const index = outputs.find((file) => file.endsWith(`/${PREBUILT_BUNDLE_FILE}`));
  if (index === undefined) throw new Error(`cold-start: no ${PREBUILT_BUNDLE_FILE} for ${entry}`);
  const size = (files: readonly string[]) =>
    files.reduce((sum, file) => sum + statSync(resolve(file)).size, 0);
  return {
    file: resolve(index),
    bytes: size(filesReadAtStart(metafileOutputs, index)),
    totalBytes: size(outputs),
  };
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
    const emptyBundle = await bundle(emptyEntry, join(dir, 'empty'));
    const emptyBytes = emptyBundle.bytes;
    const environments = deployedEnvironment();
    const deployed: ({ name: string } & Bundle)[] = [];
    for (const name of entries()) {
      if (environments[name] === undefined)
        throw new Error(`cold-start: the stack deploys no function for functions/${name}.ts`);
      deployed.push({
        name,
        ...(await bundle(join(root, 'functions', `${name}.ts`), join(dir, name))),
      });
    }
    const external: ({ name: string } & Bundle)[] = [];
    for (const name of SDK_EXTERNAL_COMPARED)
      external.push({
        name,
        ...(await bundle(
          join(root, 'functions', `${name}.ts`),
          join(dir, `${name}.sdk-external`),
          true,
        )),
      });
    const floors: ({ name: string } & Bundle)[] = [];
    for (const [name, source] of Object.entries(FLOORS)) {
      const probe = join(dir, `floor-${floors.length}.ts`);
      writeFileSync(probe, source);
      floors.push({ name, ...(await bundle(probe, join(dir, `floor-${floors.length}`))) });
    }
    const [empty = { wall: Number.NaN, cpu: Number.NaN }, ...times] = importTimes([
      { file: emptyBundle.file, environment: {} },
      ...[...deployed, ...external, ...floors].map(({ name, file }) => ({
        file,
        environment: environments[name] ?? {},
      })),
    ]);
    const emptyImportMs = empty.wall;
    const lambdas: Record<
      string,
      {
        bytes: number;
        totalBytes: number;
        bytesRatio: number;
        importMs: number;
        importRatio: number;
        cpuImportRatio: number;
      }
    > = {};
    deployed.forEach(({ name, bytes, totalBytes }, index) => {
      const time = times[index] ?? { wall: Number.NaN, cpu: Number.NaN };
      lambdas[name] = {
        bytes,
        totalBytes,
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
    const floor: Record<string, { bytes: number; importRatio: number; cpuImportRatio: number }> =
      {};
    floors.forEach(({ name, bytes }, index) => {
      const time = times[deployed.length + external.length + index] ?? {
        wall: Number.NaN,
        cpu: Number.NaN,
      };
      floor[name] = {
        bytes,
        importRatio: ratio(time.wall, emptyImportMs, 1),
        cpuImportRatio: ratio(time.cpu, empty.cpu, 1),
      };
    });
    const of = (receivers: boolean) =>
      Object.entries(lambdas).filter(([name]) => RECEIVERS.has(name) === receivers);
    const maxOf = (rows: [string, { bytes: number; importRatio: number }][], bytes: boolean) =>
      Math.max(...rows.map(([, l]) => (bytes ? round(l.bytes / 1024, 0) : l.importRatio)));
    /** A table row a bundle: its name, its size in KiB, then the `figures` of it. */
    const bundleRows = <B extends { readonly bytes: number }>(
      bundles: Readonly<Record<string, B>>,
      figures: (bundle: B, name: string) => readonly number[],
    ) =>
      Object.entries(bundles).map(([name, l]) => [
        name,
        round(l.bytes / 1024, 0),
        ...figures(l, name),
      ]);
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
        floor,
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
            'with chunks KiB',
            'bytes ratio',
            'import ms',
            'import ratio',
            'CPU ratio',
          ],
          rows: bundleRows(lambdas, (l) => [
            round(l.totalBytes / 1024, 0),
            l.bytesRatio,
            l.importMs,
            l.importRatio,
            l.cpuImportRatio,
          ]),
        },
        {
          title:
            'cold-start: the floor, what the SDK and the libraries cost alone, imported in the same rounds',
          columns: ['bundle', 'bundle KiB', 'import ratio', 'CPU ratio'],
          rows: bundleRows(floor, (l) => [l.importRatio, l.cpuImportRatio]),
        },
        {
          title:
            'cold-start: the same functions with the AWS SDK left to node_modules (not deployed)',
          columns: ['function', 'bundle KiB', 'import ratio', 'deployed import ratio'],
          rows: bundleRows(sdkExternal, (l, name) => [
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
