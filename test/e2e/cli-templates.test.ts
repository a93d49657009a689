/**
 * The template lifecycle through the msgbridge command against a local run, started the way
 * `npm start` starts it (bridge.json written by the same function), with the CLI in process
 * through `main(argv, io)` and `--local DIR`: the gateway token is the shared state-table one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulatedChannelToken } from '../../simulator/messenger-seeds.ts';
import { channelCreateArgs, TINY_PNG as PNG } from '../support/cli-gateway.ts';
import { useCliLocalRun } from '../support/cli-local-run.ts';

const { dataDir, msgbridge } = useCliLocalRun({ name: 'cli-templates', seed: 5 });
const ADMIN = '01012345678';
const CHANNEL = '@e2e-shop';

describe('msgbridge templates against the local run', () => {
  it('creates a template with an image, lists it in T, requests review, and is refused the delete in R', async () => {
    // Prepare: a registered channel, a request file and an image
    const token = await msgbridge('channels', 'token', CHANNEL, '--phone', ADMIN, '--relay', 'r01');
    expect(token.code, token.stderr).toBe(0);
    const code = simulatedChannelToken(CHANNEL, ADMIN, 'r01');
    const channel = await msgbridge(
      ...channelCreateArgs(CHANNEL, '00100010001', `r01:${ADMIN}:${code}`),
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
