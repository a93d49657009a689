/**
 * The AWS SDK as the functions' bundles carry it, against the local services: every call the
 * functions make, from a bundle built with the deployed options (`lambdaBuildOptions`, the SDK's
 * schemas and manifests trimmed by `lib/aws-sdk-trims.ts`) and from the same bundle without the
 * trims, answers the same, errors included.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions, PREBUILT_BUNDLE_FILE } from '../../lib/bundling.ts';
import { type LocalJsonServices, startLocalJsonServices } from '../../local/aws/json-services.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import type { ProbeInput } from '../support/bundled-sdk-probe.ts';
import { type Fauxqs, startFauxqsProcess } from '../support/fauxqs-s3.ts';

const probe = join(import.meta.dirname, '../support/bundled-sdk-probe.ts');
const work = mkdtempSync(join(tmpdir(), 'msgbridge-bundled-sdk-'));
let dynalite: LocalDynalite;
let fauxqs: Fauxqs;
let services: LocalJsonServices;
const published: unknown[] = [];

beforeAll(async () => {
  [dynalite, fauxqs, services] = await Promise.all([
    startDynalite(),
    startFauxqsProcess(),
    startLocalJsonServices(),
  ]);
  services.addSecret({
    arn: 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:probe-AbCdEf',
    name: 'probe',
    value: '{"apiKey":"probe"}',
  });
  services.addBus('probe-bus', 'arn:aws:events:ap-northeast-2:123456789012:event-bus/probe-bus', {
    putEvents: async (entries) => {
      published.push(...entries);
      return entries.map(() => ({ ok: true }));
    },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([dynalite?.stop(), fauxqs?.stop(), services?.close()]);
  rmSync(work, { recursive: true, force: true });
});

/** The probe bundled as the functions are, with the trims or without any plugin. */
const bundleProbe = async (trimmed: boolean): Promise<string> => {
  const outdir = join(work, trimmed ? 'trimmed' : 'published');
  await build({
    ...lambdaBuildOptions(probe, outdir, { target: 'node20', s3Apart: false }),
    ...(trimmed ? {} : { plugins: [] }),
  });
  return join(outdir, PREBUILT_BUNDLE_FILE);
};

/**
 * The bundle's handler run in a fresh `node` with nothing but the bundle (asynchronously: dynalite
 * and the JSON services answer from this process).
 */
const runProbe = async (bundle: string, run: string): Promise<unknown> => {
  const input: ProbeInput = {
    dynamodb: dynalite.endpoint,
    fauxqs: fauxqs.endpoint,
    jsonServices: services.url,
    run,
    secretId: 'probe',
    busName: 'probe-bus',
  };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
       process.stdout.write(JSON.stringify(await handler(${JSON.stringify(input)})));`,
    ],
    {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout);
};

describe('the SDK in a bundle with the trims', () => {
  it('answers every call the functions make as the published SDK does, errors included', async () => {
    // Prepare
    const [trimmedBundle, publishedBundle] = await Promise.all([
      bundleProbe(true),
      bundleProbe(false),
    ]);

    // Act
    const trimmed = await runProbe(trimmedBundle, 'trimmed');
    const untouched = await runProbe(publishedBundle, 'published');

    // Assess: the same answers, and the answers the services give.
    expect(trimmed).toEqual(untouched);
    expect(trimmed).toMatchObject({
      dynamodb: {
        put: 'ok',
        putAgain: { error: 'ConditionalCheckFailedException', fault: 'client', status: 400 },
        update: { pk: 'message#1', n: 2, text: '안녕 ok' },
        batch: {},
        query: [{ sk: 'recipient#2' }, { sk: 'recipient#1' }],
        get: { n: 2 },
        delete: 'ok',
        missingTable: { error: 'ResourceNotFoundException', fault: 'client', status: 400 },
      },
      s3: {
        put: expect.stringMatching(/^"[0-9a-f]{32}"$/),
        get: { text: 'an attachment, 첨부', length: 21, metadata: { source: 'probe' } },
        list: [
          { Key: 'inbound/a.txt', Size: 21 },
          { Key: 'inbound/b.txt', Size: 21 },
        ],
        delete: 'ok',
        missing: { error: 'NoSuchKey', fault: 'client', status: 404 },
      },
      sqs: {
        sent: ['a', 'b'],
        failed: [],
        received: [
          { Body: '{"cliKey":"a"}', Attributes: { ApproximateReceiveCount: '1' } },
          { Body: '{"cliKey":"b"}', Attributes: { ApproximateReceiveCount: '1' } },
        ],
        missingQueue: { status: 400 },
      },
      others: {
        secret: '{"apiKey":"probe"}',
        missingSecret: { error: 'ResourceNotFoundException', fault: 'client', status: 400 },
        putEvents: {
          FailedEntryCount: 1,
          Entries: [{ id: true }, { ErrorCode: expect.any(String), id: false }],
        },
      },
    });
    // Both runs reached the bus: one event each.
    expect(published).toHaveLength(2);
  }, 120_000);
});
