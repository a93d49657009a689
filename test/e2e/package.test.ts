/**
 * The package as a customer gets it: `npm run build`, `npm pack ./dist`, and `npm install` of the
 * tarball into an empty CDK app that has only its own dependencies (the CDK, cdk-nag, and the SQS
 * client its producer uses), from npm as a user installs it. Then: what the tarball holds and
 * how large it is; what installing it adds; that everything it ships imports only what it
 * declares; the README's links; a CDK app that imports it by its name, synthesized by plain
 * `node` with no esbuild, no TypeScript loader and no Docker; the producer and the types; and the
 * `msgbridge` command (`npx msgbridge`), npm-installed into an empty folder, against a local run.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageExamples } from '../../scripts/doc-examples.ts';
import { linkTargets, packageLinkBase } from '../../scripts/package-manifest.ts';
import { cliLocalRun } from '../support/cli-local-run.ts';

const run = promisify(execFile);
const repository = join(import.meta.dirname, '../..');
const BIG = { maxBuffer: 64 * 1024 * 1024 };

/** How large the package may grow before a change has to say why (npm pack's own figures). */
const MAX_TARBALL_BYTES = 4 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 12 * 1024 * 1024;
/** What installing msgbridge adds to a CDK app: itself and its two dependencies, nothing else. */
const ADDED_PACKAGES = ['msgbridge', 'uplot', 'zod'];

interface Manifest {
  name: string;
  version: string;
  license: string;
  keywords: string[];
  bin: Record<string, string>;
  exports: Record<string, { types: string; default: string } | string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

/** The versions this checkout was tested with, for the app's own dependencies. */
const devVersion = async (name: string): Promise<string> =>
  (
    JSON.parse(await readFile(join(repository, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

/** Every package directory under `node_modules` of `dir` (scoped ones by scope/name). */
const installedPackages = async (dir: string): Promise<string[]> => {
  const { stdout } = await run('npm', ['ls', '--all', '--parseable'], { cwd: dir, ...BIG });
  return stdout
    .split('\n')
    .filter((line) => line.includes(`${join(dir, 'node_modules')}/`))
    .map((line) => relative(join(dir, 'node_modules'), line).split('/node_modules/').at(-1) ?? '')
    .sort();
};

/** The files below `dir`, recursively, by their path from it. */
const filesBelow = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));

/**
 * The bare module names each JavaScript file below `dir` imports (statically, dynamically or by
 * `require`), as esbuild's parser reads them: a name inside a string or a comment is no import.
 */
const bareImports = async (dir: string): Promise<Array<{ file: string; specifier: string }>> => {
  const code = (await filesBelow(dir)).filter((file) => /\.m?js$/.test(file));
  const { metafile } = await build({
    entryPoints: code.map((file) => join(dir, file)),
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: join(dir, '.scan'),
    logLevel: 'silent',
  });
  return Object.entries(metafile.inputs).flatMap(([input, { imports }]) =>
    imports
      .filter((imported) => imported.external)
      .map((imported) => ({ file: relative(dir, input), specifier: imported.path })),
  );
};

/** The package a module name belongs to: `aws-cdk-lib/aws-iam` → `aws-cdk-lib`. */
const packageOf = (specifier: string) =>
  specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : (specifier.split('/')[0] ?? specifier);

describe('the msgbridge package, installed into a CDK app of its own', () => {
  let work: string;
  let app: string;
  /** A folder that held nothing before `npm i` of the tarball: the command's user's. */
  let empty: string;
  let installed: string;
  let packed: { size: number; unpackedSize: number; files: { path: string }[] };
  let files: string[];
  let manifest: Manifest;
  let beforeInstall: string[];
  let afterInstall: string[];
  let path: string;
  const local = cliLocalRun({ name: 'package', seed: 28 });

  /** `npx msgbridge ARGS…` where it was installed into an empty folder, as its user runs it. */
  const msgbridge = (...args: string[]) =>
    run('npx', ['msgbridge', ...args], { cwd: empty, env: { ...process.env, PATH: path }, ...BIG });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'msgbridge-package-'));
    await run('npm', ['run', 'build'], { cwd: repository, ...BIG });
    const pack = await run('npm', ['pack', './dist', '--json', '--pack-destination', work], {
      cwd: repository,
      ...BIG,
    });
    const [tarball] = JSON.parse(pack.stdout) as [typeof packed & { filename: string }];
    if (!tarball) throw new Error('npm pack wrote no tarball');
    packed = tarball;
    files = tarball.files.map((file) => file.path);

    // Without this checkout's node_modules/.bin on the PATH: no esbuild, no tsc, no tsx, and
    // `npx msgbridge` finds only the app's own.
    path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((entry) => !entry.includes('node_modules'))
      .join(delimiter);
    app = join(work, 'app');
    await mkdir(app);
    const own = ['aws-cdk-lib', 'constructs', 'cdk-nag', '@aws-sdk/client-sqs', '@types/node'];
    const dependencies = Object.fromEntries(
      await Promise.all(own.map(async (name) => [name, await devVersion(name)] as const)),
    );
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'customer-app', private: true, type: 'module', dependencies }),
    );
    const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];
    await run('npm', install, { cwd: app, env: { ...process.env, PATH: path }, ...BIG });
    beforeInstall = await installedPackages(app);
    await run('npm', [...install, join(work, tarball.filename)], {
      cwd: app,
      env: { ...process.env, PATH: path },
      ...BIG,
    });
    afterInstall = await installedPackages(app);
    installed = join(app, 'node_modules', 'msgbridge');
    // npm i <tarball> in a folder with nothing in it (npm installs the peers too).
    empty = join(work, 'empty');
    await mkdir(empty);
    await run('npm', [...install, join(work, tarball.filename)], {
      cwd: empty,
      env: { ...process.env, PATH: path },
      ...BIG,
    });
    manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));

    await writeFile(join(app, 'app.mjs'), CUSTOMER_APP);
    await writeFile(join(app, 'producer.mjs'), PRODUCER);
    await writeFile(join(app, 'typed.ts'), TYPED_APP);
    for (const example of EXAMPLES)
      await copyFile(join(repository, 'docs/examples', example), join(app, example));
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await writeFile(join(app, 'node10.ts'), NODE10_APP);
    await writeFile(join(app, 'tsconfig.node10.json'), JSON.stringify(TSCONFIG_NODE10));
    await copyFile(join(repository, 'messages.jsonl'), join(empty, 'messages.jsonl'));
    await local.start();
  }, 420_000);

  afterAll(async () => {
    await local.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  describe('what it holds', () => {
    it('ships JavaScript, declarations, the Lambda bundles, the command and its docs, not the sources', () => {
      for (const file of [
        'package.json',
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'lib/index.js',
        'lib/index.d.ts',
        'producer/send.js',
        'lambda/send-messages/index.mjs',
        'cli/msgbridge.mjs',
        'cli/assets/console.js',
        'docs/props.md',
        'docs/deploy.md',
      ])
        expect(files).toContain(file);
      expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
      expect(
        files.filter((file) => /^(?:test|scripts|bench|local|simulator)\//.test(file)),
      ).toEqual([]);
    });

    it('stays within 4 MiB packed, without source maps (docs/deploy.md, "The package")', () => {
      expect(packed.size).toBeLessThanOrEqual(MAX_TARBALL_BYTES);
      expect(packed.unpackedSize).toBeLessThanOrEqual(MAX_UNPACKED_BYTES);
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
      // Each function's bundle is split: its handler module, chunks beside it loaded on first use,
      // and where S3 is a rare path the S3 part built apart (lib/bundling.ts).
      expect(files).toEqual(
        expect.arrayContaining([
          'lambda/send-messages/index.mjs',
          'lambda/send-messages/s3-part.mjs',
          expect.stringMatching(/^lambda\/send-messages\/(?!index\.|s3-part\.)[^/]+\.mjs$/),
        ]),
      );
      expect(files).not.toContain('lambda/fetch-attachments/s3-part.mjs');
    });

    it('has a file for every entry of its exports map, and the command it names', async () => {
      const targets = Object.values(manifest.exports).flatMap((target) =>
        typeof target === 'string' ? [target] : [target.types, target.default],
      );
      expect(targets.length).toBeGreaterThanOrEqual(7);
      for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ''));
      const command = manifest.bin.msgbridge?.replace(/^\.\//, '') ?? '';
      expect(files).toContain(command);
      expect(
        (await readFile(join(installed, command), 'utf8')).startsWith('#!/usr/bin/env node\n'),
      ).toBe(true);
    });

    it('carries the metadata of a construct library', async () => {
      const repositoryManifest = JSON.parse(
        await readFile(join(repository, 'package.json'), 'utf8'),
      ) as Manifest;
      expect(manifest).toMatchObject({
        name: 'msgbridge',
        version: repositoryManifest.version,
        license: 'Apache-2.0',
        keywords: expect.arrayContaining(['aws-cdk', 'cdk-construct']),
      });
      expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toContain('Apache License');
      expect(await readFile(join(installed, 'CHANGELOG.md'), 'utf8')).toContain(
        `## ${repositoryManifest.version}`,
      );
      expect(manifest.peerDependenciesMeta['@aws-sdk/client-sqs']).toEqual({ optional: true });
    });

    it('has a README whose every link works from the registry, into files the package holds', async () => {
      const readme = await readFile(join(installed, 'README.md'), 'utf8');
      const base = packageLinkBase(manifest);
      const targets = linkTargets(readme);
      expect(targets.length).toBeGreaterThanOrEqual(8);
      for (const target of targets) {
        expect(target, 'a link the registry cannot follow').toMatch(/^(?:https:\/\/|#)/);
        if (target.startsWith(base)) {
          const file = target.slice(base.length).split('#')[0] ?? '';
          expect(files, target).toContain(file);
        }
      }
    });
  });

  describe('what installing it adds', () => {
    it('adds itself and its two dependencies to a CDK app, nothing else', () => {
      const added = afterInstall.filter((name) => !beforeInstall.includes(name));
      expect(added).toEqual(ADDED_PACKAGES);
      expect(Object.keys(manifest.dependencies).sort()).toEqual(['uplot', 'zod']);
    });

    it('ships nothing that imports a package it does not declare', async () => {
      const declared = new Set([
        ...Object.keys(manifest.dependencies),
        ...Object.keys(manifest.peerDependencies),
      ]);
      const builtins = new Set(builtinModules);
      const imports = await bareImports(installed);
      // The constructs, the producer and the command import the CDK, zod and the SQS client.
      expect(imports.map(({ specifier }) => packageOf(specifier))).toEqual(
        expect.arrayContaining(['aws-cdk-lib', 'constructs', 'zod', '@aws-sdk/client-sqs']),
      );
      const undeclared = imports.filter(
        ({ specifier }) =>
          !specifier.startsWith('node:') &&
          !builtins.has(packageOf(specifier)) &&
          !declared.has(packageOf(specifier)),
      );
      expect(undeclared).toEqual([]);
      // A Lambda bundle runs with nothing beside it: Node.js's own modules only.
      expect(
        imports.filter(
          ({ file, specifier }) =>
            file.startsWith('lambda/') &&
            !specifier.startsWith('node:') &&
            !builtins.has(specifier),
        ),
      ).toEqual([]);
    });
  });

  describe('in a CDK app', () => {
    it('synthesizes an app that imports it by its name, with cdk-nag AwsSolutions clean', async () => {
      const outDir = join(work, 'cdk.out');
      const synth = await run(process.execPath, ['app.mjs'], {
        cwd: app,
        env: { PATH: path, CDK_OUTDIR: outDir, CDK_DISABLE_CLI_TELEMETRY: 'true' },
        ...BIG,
      });
      expect(`${synth.stdout}\n${synth.stderr}`).not.toMatch(/AwsSolutions-|\[(Error|Warning) at /);
      const template = JSON.parse(
        await readFile(join(outDir, 'customer-app.template.json'), 'utf8'),
      ) as {
        Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
        Outputs: Record<string, unknown>;
      };
      // Under the names the msgbridge command looks for, whatever the construct's id.
      expect(Object.keys(template.Outputs)).toEqual(
        expect.arrayContaining(['SendQueueUrl', 'EventBusName', 'ReportWebhookUrl', 'EventSource']),
      );
      const functions = Object.values(template.Resources).filter(
        (resource) => resource.Type === 'AWS::Lambda::Function',
      );
      // Every msgbridge function, from its prebuilt bundle (the custom resources' handlers aside).
      const bridgeFunctions = functions.filter(
        (fn) => fn.Properties.Handler === 'index.handler' && fn.Properties.Runtime === 'nodejs24.x',
      );
      expect(bridgeFunctions.length).toBeGreaterThanOrEqual(8);
      // The producer's queue permission comes from the construct's own grant.
      expect(JSON.stringify(template.Resources)).toContain('"sqs:SendMessage"');
      const assets = await readdir(outDir);
      const bundles = assets.filter((name) => existsSync(join(outDir, name, 'index.mjs')));
      expect(bundles.length).toBe(bridgeFunctions.length);
    }, 300_000);

    it('gives producers the send-message check and the producer from msgbridge/send', async () => {
      const { stdout } = await run(process.execPath, ['producer.mjs'], { cwd: app });
      expect(JSON.parse(stdout)).toEqual({
        valid: true,
        problems: [{ path: '$.recvInfoLst', message: expect.any(String) }],
        enqueueSend: 'function',
      });
    });

    it('type-checks an app and the examples of docs/examples against its declarations', async () => {
      await typeCheck(app, 'tsconfig.json');
    }, 120_000);

    it('type-checks all three entries under TypeScript’s classic node10 resolution too', async () => {
      // module: commonjs, as many CDK apps' tsconfig still has: no `exports`, only `types` and
      // `typesVersions` lead to the declarations.
      await typeCheck(app, 'tsconfig.node10.json');
    }, 120_000);
  });

  describe('the msgbridge command, npm-installed into an empty folder', () => {
    it('prints its help and its version', async () => {
      const help = await msgbridge('--help');
      const version = await msgbridge('--version');

      expect(help.stdout).toMatch(/^Usage: msgbridge COMMAND/);
      for (const command of ['doctor', 'send', 'trace', 'console', 'events'])
        expect(help.stdout).toContain(`  ${command}`);
      expect(version.stdout.trim()).toBe(`msgbridge ${manifest.version}`);
    });

    it('finds the local run working, with doctor', async () => {
      const { stdout } = await msgbridge('doctor', '--local', local.dataDir);

      expect(stdout).toMatch(/^msgbridge doctor: the local run at /);
      expect(stdout).toMatch(/all \d+ checks passed/);
    });

    it('validates and queues the example messages on the local run', async () => {
      const { stdout } = await msgbridge('send', 'messages.jsonl', '--local', local.dataDir);

      expect(stdout).toMatch(/^queued 2 of 2 messages \(3 recipients\) on local run at /);
    });
  });
});

/** `tsc -p project` in `dir`, with this checkout's TypeScript. */
const typeCheck = (dir: string, project: string) =>
  run(process.execPath, [join(repository, 'node_modules/typescript/bin/tsc'), '-p', project], {
    cwd: dir,
  });

const GATEWAY = `{
  hosts: {
    api: 'https://api.gateway.example',
    send: 'https://send.gateway.example',
    mnt: 'https://mnt.gateway.example',
  },
  tpsQuota: 100,
}`;

/** A customer's app: msgbridge beside a producer function of their own that may send. */
const CUSTOMER_APP = `
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MsgBridge } from 'msgbridge';

const app = new App();
const stack = new Stack(app, 'customer-app');
const bridge = new MsgBridge(stack, 'msgbridge', { gateway: ${GATEWAY} });
const producer = new Role(stack, 'order-service', {
  assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
});
bridge.sendPipeline.grantSendMessages(producer);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
`;

/** A producer checks messages with the sender's own rules before it queues them. */
const PRODUCER = `
import { enqueueSend, parseSendMessage } from 'msgbridge/send';

const now = new Date('2026-12-01T00:00:00Z');
const message = {
  channel: 'sms',
  callback: '0215880000',
  msg: '주문이 접수되었습니다.',
  recvInfoLst: [{ cliKey: 'order-1001', phone: '01012345678' }],
};
const valid = parseSendMessage(message, { now });
const invalid = parseSendMessage({ ...message, recvInfoLst: [] }, { now });
console.log(JSON.stringify({
  valid: valid.ok,
  problems: invalid.ok ? [] : invalid.problems,
  enqueueSend: typeof enqueueSend,
}));
`;

/** The same, typed: the declarations of both entries must serve a strict TypeScript app. */
const TYPED_APP = `
import { App, Stack } from 'aws-cdk-lib';
import { MsgBridge, type MsgBridgeProps } from 'msgbridge';
import { type EnqueueSendResult, type SendMessageInput, parseSendMessage } from 'msgbridge/send';

const props: MsgBridgeProps = { gateway: ${GATEWAY}, moPolling: true };
const bridge: MsgBridge = new MsgBridge(new Stack(new App(), 'typed'), 'msgbridge', props);
const queueUrl: string = bridge.sendPipeline.queue.queueUrl;
const message: SendMessageInput = {
  channel: 'sms',
  callback: '0215880000',
  msg: 'hello',
  recvInfoLst: [{ cliKey: 'k-1', phone: '01012345678' }],
};
const result = parseSendMessage(message, { now: new Date() });
const outcome: EnqueueSendResult | undefined = undefined;
export { queueUrl, result, outcome };
`;

/** An app on `module: commonjs` (node10 resolution) that uses every entry of the package. */
const NODE10_APP = `
import { MsgBridge } from 'msgbridge';
import { parseSendMessage } from 'msgbridge/send';
import { DetailType, isDeliveryReportReceived, type MsgbridgeEvent } from 'msgbridge/events';

const checked = parseSendMessage({}, { now: new Date() });
const onEvent = (event: MsgbridgeEvent): string | undefined =>
  isDeliveryReportReceived(event) ? event.detail.data.msgKey : undefined;
export { MsgBridge, checked, onEvent, DetailType };
`;

const TSCONFIG_NODE10 = {
  compilerOptions: {
    target: 'ES2022',
    module: 'commonjs',
    moduleResolution: 'node10',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
  files: ['node10.ts'],
};

/** The producer example: a stack beside msgbridge's, and its Lambda using `msgbridge/send`. */
// Every example of the docs that imports the package (scripts/doc-examples.ts): the app has only
// the package, its peers and its own dependencies.
const EXAMPLES = packageExamples();

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
  files: ['typed.ts', ...EXAMPLES],
};
