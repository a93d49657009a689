/**
 * The template lifecycle through the msgbridge command against a local run, started the way
 * `npm start` starts it (bridge.json written by the same function), with the CLI in process
 * through `main(argv, io)` and `--local DIR`: the gateway token is the shared state-table one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/io.ts';
import { main } from '../../cli/main.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { writeBridgeFile } from '../../local/bridge-file.ts';
import { simulatedChannelToken } from '../../simulator/messenger.ts';

let bridge: LocalBridge;
const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-cli-templates-e2e-'));
const ADMIN = '01012345678';
const CHANNEL = '@e2e-shop';

/** The smallest valid PNG: signature, IHDR (1×1 grey), IDAT, IEND. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UWCQAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  bridge = await startLocalBridge({
    port: 0,
    simulatorPort: 0,
    webhookSecret: 'cli-templates-e2e-secret-0123',
    dataDir,
    apiKey: 'cli-templates-key',
    apiPassword: 'cli-templates-password',
    tpsQuota: 100,
    printEvents: false,
    simulator: { reportDelayMs: 200, failureRate: 0, seed: 5 },
  });
  await writeBridgeFile(dataDir, bridge, {
    apiKey: 'cli-templates-key',
    apiPassword: 'cli-templates-password',
  });
}, 120_000);

afterAll(async () => {
  await bridge?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `msgbridge ARGS… --local DIR` in process and captures its output. */
const msgbridge = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    readFile: (path) => readFile(path, 'utf8'),
    readBytes: (path) => readFile(path),
    stderrIsTty: false,
  };
  const code = await main([...args, '--local', dataDir], io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
};

describe('msgbridge templates against the local run', () => {
  it('creates a template with an image, lists it in T, requests review, and is refused the delete in R', async () => {
    // Prepare: a registered channel, a request file and an image
    const token = await msgbridge('channels', 'token', CHANNEL, '--phone', ADMIN, '--relay', 'r01');
    expect(token.code, token.stderr).toBe(0);
    const code = simulatedChannelToken(CHANNEL, ADMIN, 'r01');
    const channel = await msgbridge(
      'channels',
      'create',
      CHANNEL,
      '--category',
      '00100010001',
      '--token',
      `r01:${ADMIN}:${code}`,
    );
    expect(channel.code, channel.stderr).toBe(0);
    const request = join(dataDir, 'template.json');
    writeFileSync(
      request,
      JSON.stringify({
        msgrChId: CHANNEL,
        templateCode: 'e2e_shipped',
        templateName: 'Order shipped',
        templateContent: 'Hello #{name}, your order #{order} has shipped.',
        categoryCode: '002001',
        templateMessageType: 'BA',
        templateEmphasizeType: 'IMAGE',
      }),
    );
    const image = join(dataDir, 'banner.png');
    writeFileSync(image, PNG);

    // Act and assess: create with the image
    const created = await msgbridge('templates', 'create', '--file', request, '--image', image);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created template e2e_shipped \(key \S+\) in state T$/);

    // list: in T
    const listed = await msgbridge('templates', 'list', '--channel', CHANNEL);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^e2e_shipped\s+Order shipped\s+T registered\s/m);

    // request: now R
    const requested = await msgbridge('templates', 'request', 'e2e_shipped', '--channel', CHANNEL);
    expect(requested.code, requested.stderr).toBe(0);
    const after = await msgbridge('templates', 'list', '--channel', CHANNEL);
    expect(after.stdout).toMatch(/^e2e_shipped\s+Order shipped\s+R review requested\s/m);

    // delete: refused in R, with a clear message and exit 1; the template stays
    const refused = await msgbridge('templates', 'delete', 'e2e_shipped', '--channel', CHANNEL);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'msgbridge templates delete: cannot delete template e2e_shipped: its status is R, delete needs T',
    );
    const still = await msgbridge('templates', 'list', '--channel', CHANNEL);
    expect(still.stdout).toMatch(/^e2e_shipped\s+Order shipped\s+R review requested\s/m);
  });
});
