/**
 * Every Lambda bundled as the stack deploys it (`bundleLambdaAsync`: ESM with code splitting, the
 * S3 part apart where S3 is a rare path), and what each one's cold start reads: the handler module
 * and the chunks it imports statically. A rare path's modules must sit in a file only a dynamic
 * `import()` reaches (docs/performance.md, `cold-start`), and no bundle may carry the X-Ray SDK
 * (docs/operations.md, "Tracing").
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventTypeName } from '../../functions/catalogue/index.ts';
import {
  type BundledLambda,
  bundleLambdaAsync,
  filesReadAtStart,
  S3_PART,
} from '../../lib/bundling.ts';

const functions = join(import.meta.dirname, '../../functions');
const entries = readdirSync(functions).filter((file) => file.endsWith('.ts'));

/** Where a module lands in a function's bundle: read at start, in a lazy chunk, or nowhere. */
type Placement = 'start' | 'lazy' | 'absent';

const RARE = {
  s3: /node_modules\/@aws-sdk\/client-s3\//,
  sendSchemas: /gateway\/schemas\/send\.ts$/,
  cp949Table: /protocol\/cp949-table\.ts$/,
  secretsManager: /node_modules\/@aws-sdk\/client-secrets-manager\//,
  multipartUpload: /node_modules\/@aws-sdk\/lib-storage\//,
  unreadableBodies: /functions\/received-items\/body-records\.ts$/,
  /** The gateway client of every endpoint, with the schemas of each. */
  gatewayClient: /gateway\/client\.ts$/,
  /** The messenger management client (spec 02), with the schemas of channels and templates. */
  managementClient: /gateway\/(management\/messenger-client|schemas\/messenger-management)\.ts$/,
} as const;

/** Where each of a function's rare modules must land. */
type Expected = Partial<Record<keyof typeof RARE, Placement>>;

/**
 * A receiver reads its webhook secret on every request; S3 only for a body too large for its item,
 * and the records of a quarantined item or an unrecognised body only for the first such body.
 */
const RECEIVER: Expected = {
  s3: 'lazy',
  sendSchemas: 'absent',
  secretsManager: 'start',
  unreadableBodies: 'lazy',
};

/** A gateway caller that never sends: S3 for its quarantine, the credentials to authenticate. */
const GATEWAY_READER: Expected = {
  s3: 'lazy',
  sendSchemas: 'lazy',
  cp949Table: 'lazy',
  secretsManager: 'lazy',
  gatewayClient: 'start',
};

/** A gateway caller that stores what it reads as the receivers do (polled reports and MO). */
const ITEM_READER: Expected = { ...GATEWAY_READER, unreadableBodies: 'lazy' };

/** A function that uses S3 on every request and the gateway client, which never sends from it. */
const S3_ON_EVERY_REQUEST: Expected = { ...GATEWAY_READER, s3: 'start' };

/**
 * The attachment functions: an attachment beyond one part (5 MiB) is a multipart upload. They only
 * download MO files, through the client of that one call (`gateway/mo-files.ts`), so neither the
 * client of every endpoint nor the send schemas it imports on first send are in their bundles.
 */
const ATTACHMENTS: Expected = {
  ...S3_ON_EVERY_REQUEST,
  multipartUpload: 'lazy',
  gatewayClient: 'absent',
  sendSchemas: 'absent',
  cp949Table: 'absent',
};

const bundles = new Map<string, BundledLambda>();

const placement = (name: string, module: RegExp): Placement => {
  const { outputs } = bundles.get(name) ?? expect.fail(`${name} was not bundled`);
  const entry = Object.keys(outputs).find((file) => file.endsWith('index.mjs')) ?? '';
  const holds = (file: string) =>
    Object.keys(outputs[file]?.inputs ?? {}).some((input) => module.test(input));
  if (filesReadAtStart(outputs, entry).some(holds)) return 'start';
  return Object.keys(outputs).some(holds) ? 'lazy' : 'absent';
};

describe('the deployed bundles', () => {
  beforeAll(async () => {
    await Promise.all(
      entries.map(async (file) => {
        const name = file.replace(/\.ts$/, '');
        const outdir = join(tmpdir(), 'msgbridge-bundles', name);
        bundles.set(
          name,
          await bundleLambdaAsync({ build }, join(functions, file), outdir, { write: false }),
        );
      }),
    );
  }, 120_000);

  it('carry neither the X-Ray SDK nor Powertools Tracer', () => {
    expect(bundles.size).toBeGreaterThan(9);
    for (const { outputs } of bundles.values()) {
      const files = Object.values(outputs).flatMap(({ inputs }) => Object.keys(inputs));
      expect(files.length).toBeGreaterThan(0);
      expect(
        files.filter((file) => /aws-xray-sdk|powertools\/tracer|cls-hooked/.test(file)),
      ).toEqual([]);
    }
  });

  it('carry zod/mini and its English messages at start, not the classic entry or other locales', () => {
    for (const [name, { outputs }] of bundles) {
      const entry = Object.keys(outputs).find((file) => file.endsWith('index.mjs')) ?? '';
      const atStart = filesReadAtStart(outputs, entry).flatMap((file) =>
        Object.keys(outputs[file]?.inputs ?? {}),
      );
      const zod = Object.values(outputs).flatMap(({ inputs }) =>
        Object.keys(inputs).filter((input) => input.includes('node_modules/zod/')),
      );
      expect(zod.filter((input) => input.includes('/mini/')).length, name).toBeGreaterThan(0);
      expect(
        zod.filter((input) => /\/classic\//.test(input)),
        name,
      ).toEqual([]);
      expect(
        zod.filter((input) => /\/locales\//.test(input) && !input.endsWith('/locales/en.js')),
        name,
      ).toEqual([]);
      // The module that installs them is read at start: a refused item reads
      // "Invalid input: expected string, received number", not only "Invalid input".
      expect(atStart, name).toContain('gateway/schemas/zod.ts');
      expect(atStart, name).toContain('node_modules/zod/v4/locales/en.js');
    }
  });

  // Each row: a function, and where its rarely used modules are.
  it.each([
    ['receive-reports', RECEIVER],
    ['receive-inbound', RECEIVER],
    ['poll-reports', ITEM_READER],
    ['reconcile-status', ITEM_READER],
    [
      'send-messages',
      { s3: 'lazy', sendSchemas: 'start', cp949Table: 'start', secretsManager: 'lazy' },
    ],
    ['fetch-attachments', ATTACHMENTS],
    ['sweep-attachments', ATTACHMENTS],
    [
      // Its statistics calls only, through the statistics client (`gateway/statistics-client.ts`).
      'export-statistics',
      {
        ...S3_ON_EVERY_REQUEST,
        multipartUpload: 'absent',
        gatewayClient: 'absent',
        managementClient: 'absent',
        sendSchemas: 'absent',
        cp949Table: 'absent',
      },
    ],
    [
      'refresh-token',
      { s3: 'absent', sendSchemas: 'absent', secretsManager: 'lazy', multipartUpload: 'absent' },
    ],
    [
      'publish-events',
      { s3: 'absent', sendSchemas: 'absent', secretsManager: 'absent', multipartUpload: 'absent' },
    ],
  ] satisfies [string, Expected][])(
    '%s reads its rare paths when first used: %o',
    (name, expected) => {
      const found = Object.fromEntries(
        Object.keys(expected).map((key) => [key, placement(name, RARE[key as keyof typeof RARE])]),
      );
      expect(found).toEqual(expected);
    },
  );

  // Each row: a function and the events it emits. A bundle carries the catalogue's types (their
  // detail-types and schemas) that its code names and no other (functions/catalogue/catalogue.ts).
  const RECEIVED: EventTypeName[] = [
    'deliveryReport',
    'inboundMessage',
    'unrecognisedBody',
    'quarantinedItem',
  ];
  const ATTACHMENT_EVENTS: EventTypeName[] = ['inboundAttachmentStored', 'inboundAttachmentLost'];
  it.each([
    ['receive-reports', RECEIVED],
    ['receive-inbound', RECEIVED],
    ['poll-reports', RECEIVED],
    [
      'reconcile-status',
      [...RECEIVED, 'messageAccepted', 'messageRejected', 'messageStatusUnavailable'],
    ],
    ['send-messages', ['messageAccepted', 'messageRejected', 'messageScheduled', 'sendRejected']],
    ['fetch-attachments', ATTACHMENT_EVENTS],
    ['sweep-attachments', ATTACHMENT_EVENTS],
    ['export-statistics', ['trackingUrlStatistics', 'messengerStatistics']],
    // It reads the reports' detail-type, to keep a message's status at publication.
    ['publish-events', ['deliveryReport']],
    ['refresh-token', []],
  ] satisfies [string, EventTypeName[]][])(
    '%s carries the event types it emits and no other: %o',
    (name, emitted) => {
      const { outputFiles } = bundles.get(name) ?? expect.fail(`${name} was not bundled`);
      const text = outputFiles
        .filter((file) => file.path.endsWith('.mjs'))
        .map((file) => Buffer.from(file.contents).toString('utf8'))
        .join('\n');
      expect(text.length).toBeGreaterThan(0);
      const carried = (Object.keys(EVENT_TYPES) as EventTypeName[]).filter((type) =>
        text.includes(JSON.stringify(EVENT_TYPES[type].detailType)),
      );
      expect(carried).toEqual(emitted);
    },
  );

  /** The S3 part's output file of a function's bundle, if it has one. */
  const partOf = (name: string) =>
    Object.keys(bundles.get(name)?.outputs ?? {}).find((file) => basename(file) === S3_PART.file);

  it.each([
    'receive-reports',
    'receive-inbound',
    'poll-reports',
    'reconcile-status',
    'send-messages',
  ])(
    '%s imports S3 from its own file beside the handler, with the only copy of the client',
    (name) => {
      const { outputs } = bundles.get(name) ?? expect.fail(`${name} was not bundled`);
      const part = partOf(name) ?? expect.fail(`${name} has no ${S3_PART.file}`);
      const holdsS3 = Object.keys(outputs).filter((file) =>
        Object.keys(outputs[file]?.inputs ?? {}).some((input) => RARE.s3.test(input)),
      );
      expect(holdsS3).toEqual([part]);
      // Every file that imports the part finds it where the bundle's import points.
      const importers = Object.keys(outputs).filter((file) =>
        outputs[file]?.imports.some((imported) => imported.path === `./${S3_PART.file}`),
      );
      expect(importers.length).toBeGreaterThan(0);
      for (const file of importers) expect(join(dirname(file), S3_PART.file)).toBe(part);
    },
  );

  it.each(['fetch-attachments', 'sweep-attachments', 'export-statistics'])(
    '%s, which reads S3 on every request, keeps one copy of the client and no part apart',
    (name) => {
      const { outputs } = bundles.get(name) ?? expect.fail(`${name} was not bundled`);
      expect(partOf(name)).toBeUndefined();
      const s3Modules = Object.values(outputs).flatMap(({ inputs }) =>
        Object.keys(inputs).filter((input) => RARE.s3.test(input)),
      );
      expect(s3Modules.length).toBeGreaterThan(0);
      expect(new Set(s3Modules).size).toBe(s3Modules.length);
    },
  );
});

describe('the S3 part, written as deployed', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'msgbridge-s3-part-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('is a module of its own that makes the client and the commands the rare paths send', async () => {
    await bundleLambdaAsync({ build }, join(functions, 'receive-reports.ts'), outdir, {
      target: 'node20',
    });
    expect(existsSync(join(outdir, 'index.mjs'))).toBe(true);
    const part = resolve(outdir, S3_PART.file);
    // A fresh node, as a container that reaches the rare path for the first time.
    const made = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const s3 = await import(${JSON.stringify(part)});
         const client = s3.s3Client();
         const put = new s3.PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'x' });
         const get = new s3.GetObjectCommand({ Bucket: 'b', Key: 'k' });
         console.log(JSON.stringify([client === s3.s3Client(), typeof client.send, put.input.Key, get.input.Bucket, typeof s3.listKeys, typeof s3.getText, typeof s3.deleteObject]));`,
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', AWS_REGION: 'ap-northeast-2' } },
    );
    expect(JSON.parse(made.trim().split('\n').at(-1) ?? '')).toEqual([
      true,
      'function',
      'k',
      'b',
      'function',
      'function',
      'function',
    ]);
  }, 60_000);

  it('refuses an import of the part by any other path, which the bundle would not find', async () => {
    const entry = join(outdir, 'planted.ts');
    writeFileSync(entry, "export const handler = () => import('./elsewhere/s3-part.mjs');\n");
    await expect(
      bundleLambdaAsync({ build }, entry, join(outdir, 'planted'), { write: false }),
    ).rejects.toThrow("import('./elsewhere/s3-part.mjs') would not find the S3 part");
  });
});
