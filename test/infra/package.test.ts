import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repository = join(import.meta.dirname, '../..');

/**
 * The package as a customer gets it: `npm pack` after the build `prepack` runs (`dist/`), the
 * tarball unpacked into a fresh app's node_modules beside only what npm would install with it
 * (its dependencies and peer dependencies, and the app's own cdk-nag), and a CDK app that imports
 * it by its name, synthesized by plain `node` with no esbuild, no TypeScript loader and no Docker.
 */
describe('the msgbridge package in a CDK app of its own', () => {
  let work: string;
  let app: string;
  let files: string[];
  let manifest: {
    exports: Record<string, { types: string; default: string } | string>;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  let synth: { stdout: string; stderr: string };
  let outDir: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'msgbridge-package-'));
    // What `prepack` runs before `npm pack` and `npm publish`; run apart so that its output
    // stays out of the tarball list.
    await run('npm', ['run', 'build'], { cwd: repository, maxBuffer: 64 * 1024 * 1024 });
    const packed = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', work],
      { cwd: repository, maxBuffer: 64 * 1024 * 1024 },
    );
    const [tarball] = JSON.parse(packed.stdout) as [
      { filename: string; files: { path: string }[] },
    ];
    if (!tarball) throw new Error('npm pack wrote no tarball');
    files = tarball.files.map((file) => file.path);

    app = join(work, 'app');
    const installed = join(app, 'node_modules', 'msgbridge');
    await mkdir(installed, { recursive: true });
    await run('tar', [
      '-xzf',
      join(work, tarball.filename),
      '-C',
      installed,
      '--strip-components=1',
    ]);
    manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    // What npm would install beside it, taken from this checkout's node_modules.
    const beside = [
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
      'cdk-nag',
      '@types/node',
    ];
    for (const name of beside) {
      const link = join(app, 'node_modules', name);
      await mkdir(dirname(link), { recursive: true });
      await symlink(join(repository, 'node_modules', name), link, 'dir');
    }
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'customer-app', private: true, type: 'module' }),
    );
    await writeFile(join(app, 'app.mjs'), CUSTOMER_APP);
    await writeFile(join(app, 'producer.mjs'), PRODUCER);
    await writeFile(join(app, 'typed.ts'), TYPED_APP);
    for (const example of EXAMPLES)
      await copyFile(join(repository, 'docs/examples', example), join(app, example));
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await writeFile(join(app, 'node10.ts'), NODE10_APP);
    await writeFile(join(app, 'tsconfig.node10.json'), JSON.stringify(TSCONFIG_NODE10));

    outDir = join(work, 'cdk.out');
    // Without this checkout's node_modules/.bin on the PATH: no esbuild, no tsc, no tsx.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((entry) => !entry.includes('node_modules'))
      .join(delimiter);
    synth = await run(process.execPath, ['app.mjs'], {
      cwd: app,
      env: { PATH: path, CDK_OUTDIR: outDir, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
  }, 300_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('ships JavaScript, declarations and the Lambda bundles, not the TypeScript sources', () => {
    expect(files).toContain('package.json');
    expect(files).toContain('dist/lib/index.js');
    expect(files).toContain('dist/lib/index.d.ts');
    expect(files).toContain('dist/producer/send.js');
    expect(files).toContain('dist/lambda/send-messages/index.mjs');
    const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
    expect(sources).toEqual([]);
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('docs/'))).toEqual(
      [],
    );
  });

  it('has a file for every entry of its exports map', () => {
    // `msgbridge/events` is built from events/index.ts, the generated event types: checked
    // whenever this checkout has them.
    const entries = Object.entries(manifest.exports).filter(
      ([entry]) => entry !== './events' || existsSync(join(repository, 'events/index.ts')),
    );
    const targets = entries.flatMap(([, target]) =>
      typeof target === 'string' ? [target] : [target.types, target.default],
    );
    expect(targets.length).toBeGreaterThanOrEqual(5);
    for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ''));
  });

  it('synthesizes an app that imports it by its name, with cdk-nag AwsSolutions clean', async () => {
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
    const bundles = assets.filter((name) => existsSync(join(outDir, name, 'index.mjs.map')));
    expect(bundles.length).toBe(bridgeFunctions.length);
  });

  it('gives producers the send-message check and the producer from msgbridge/send', async () => {
    const { stdout } = await run(process.execPath, ['producer.mjs'], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({
      valid: true,
      problems: [{ path: '$.recvInfoLst', message: expect.any(String) }],
      enqueueSend: 'function',
    });
  });

  it('type-checks an app and the examples of docs/examples against its declarations', async () => {
    await run(
      process.execPath,
      [join(repository, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      { cwd: app },
    );
  }, 120_000);

  it('type-checks all three entries under TypeScript’s classic node10 resolution too', async () => {
    // module: commonjs, as many CDK apps' tsconfig still has: no `exports`, only `types` and
    // `typesVersions` lead to the declarations.
    await run(
      process.execPath,
      [join(repository, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.node10.json'],
      { cwd: app },
    );
  }, 120_000);
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
const EXAMPLES = ['producer-stack.ts', 'order-notifier.ts'];

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
