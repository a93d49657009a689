/**
 * The management commands (`channels`, `templates`, `stats`, `rcs`) through `main(argv)` against
 * the gateway simulator over loopback: the real clients on a token provider that authenticates
 * with the simulator directly (no state table is involved in these calls).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../ops/target.ts';
import { simulatedChannelToken } from '../../simulator/messenger-seeds.ts';
import { RCS_APPROVAL, RCS_CODES, SIM_RCS_PORTAL } from '../../simulator/rcs.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';
import {
  authenticatingTarget,
  channelCreateArgs,
  TINY_PNG as PNG,
  runCli,
} from '../support/cli-gateway.ts';
import { asObject, callGateway } from '../support/simulator-http.ts';

const credentials = { apiKey: 'cli-mgmt-key', apiPassword: 'cli-mgmt-secret' };
const ADMIN = '01012345678';
const CATEGORY = '00100010001';
const CHANNEL = '@cli-shop';
const dir = mkdtempSync(join(tmpdir(), 'msgbridge-cli-mgmt-'));

let sim: Simulator;
let target: Target;

beforeAll(async () => {
  sim = await startSimulator({ ...credentials, port: 0 });
  target = authenticatingTarget(sim.hosts, credentials);
});

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `msgbridge ARGS…` against the simulator and captures its output. */
const msgbridge = (...args: string[]) => runCli(args, { resolveTarget: async () => target });

const writeJson = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

const templateRequest = (templateCode: string) => ({
  msgrChId: CHANNEL,
  templateCode,
  templateName: `CLI ${templateCode}`,
  templateContent: 'Hello #{name}, your order #{order} has shipped.',
  categoryCode: '002001',
  templateMessageType: 'BA',
  templateEmphasizeType: 'IMAGE',
});

const statusOf = async (templateCode: string): Promise<string | undefined> => {
  const listed = await msgbridge('templates', 'list', '--channel', CHANNEL, '--json');
  expect(listed.code, listed.stderr).toBe(0);
  const rows = JSON.parse(listed.stdout) as Array<{
    templateCode: string;
    templateStatusCode: string;
  }>;
  return rows.find((row) => row.templateCode === templateCode)?.templateStatusCode;
};

describe('msgbridge channels, templates and stats against the simulator', () => {
  it('registers a channel: token, create, then get and list show it', async () => {
    // Act
    const token = await msgbridge('channels', 'token', CHANNEL, '--phone', ADMIN, '--relay', 'r01');
    const code = simulatedChannelToken(CHANNEL, ADMIN, 'r01');
    const created = await msgbridge(
      ...channelCreateArgs(CHANNEL, CATEGORY, `r01:${ADMIN}:${code}`),
    );
    const shown = await msgbridge('channels', 'get', CHANNEL);
    const listed = await msgbridge('channels', 'list');

    // Assess
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toContain(`sent the authentication code for ${CHANNEL} to 010****5678`);
    expect(created.code, created.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^${CHANNEL}\\s+A normal\\s+.+\\s+${CATEGORY}$`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^${CHANNEL}\\s+A active\\s`, 'm'));
  });

  it('refuses a wrong authentication code with the gateway code', async () => {
    const run = await msgbridge(...channelCreateArgs('@cli-other', CATEGORY, `r01:${ADMIN}:1`));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^msgbridge channels create: the gateway refused: 22605 /);
  });

  it('runs the template lifecycle: create with an image, list, request, delete refused in R, another created and deleted', async () => {
    // Prepare
    const image = join(dir, 'banner.png');
    writeFileSync(image, PNG);
    const first = writeJson('first.json', templateRequest('cli_first'));
    const second = writeJson('second.json', templateRequest('cli_second'));

    // Act: create with an image
    const created = await msgbridge(
      'templates',
      'create',
      '--file',
      first,
      '--image',
      image,
      '--json',
    );

    // Assess: the simulator received the whole image as the `image` part
    expect(created.code, created.stderr).toBe(0);
    const { templateKey } = JSON.parse(created.stdout) as { templateKey: string };
    const detail = await callGateway(sim, {
      method: 'GET',
      path: `/_sim/messenger/templates/${encodeURIComponent(templateKey)}`,
    });
    const data = asObject(asObject(detail.body).data);
    expect(asObject(data.images).image).toMatchObject({
      fileName: 'banner.png',
      contentType: 'image/png',
      size: PNG.length,
      sha256: createHash('sha256').update(PNG).digest('hex'),
    });

    // list shows it in T
    const listed = await msgbridge('templates', 'list', '--channel', CHANNEL);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^cli_first\s+CLI cli_first\s+T registered\s+\S+\s+@cli-shop$/m);

    // request → R
    const requested = await msgbridge('templates', 'request', 'cli_first', '--channel', CHANNEL);
    expect(requested.code, requested.stderr).toBe(0);
    expect(await statusOf('cli_first')).toBe('R');

    // delete of an R template is refused, clearly, and it stays
    const refused = await msgbridge('templates', 'delete', 'cli_first', '--channel', CHANNEL);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'msgbridge templates delete: cannot delete template cli_first: its status is R, delete needs T',
    );
    expect(refused.stderr).toContain('this one is R review requested');
    expect(await statusOf('cli_first')).toBe('R');

    // a second template, created and deleted in T
    const another = await msgbridge('templates', 'create', '--file', second);
    expect(another.code, another.stderr).toBe(0);
    expect(another.stdout).toMatch(/^created template cli_second \(key \S+\) in state T$/);
    const deleted = await msgbridge('templates', 'delete', 'cli_second', '--channel', CHANNEL);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await statusOf('cli_second')).toBeUndefined();
  });

  it('comments on a template and reports a template code that is taken', async () => {
    const commented = await msgbridge(
      'templates',
      'comment',
      'cli_first',
      '--channel',
      CHANNEL,
      '--text',
      'please review',
    );
    expect(commented.code, commented.stderr).toBe(0);
    const taken = await msgbridge(
      'templates',
      'create',
      '--file',
      writeJson('again.json', templateRequest('cli_first')),
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^msgbridge templates create: the gateway refused: 22703 /);
  });

  it('prints a statistic of the channel, one row per template for template statistics', async () => {
    const channelReads = await msgbridge(
      'stats',
      'channel-notice-read',
      '--channel',
      CHANNEL,
      '--date',
      '2024-05-01',
      '--elapsed',
      '1',
      '--json',
    );
    const templateReads = await msgbridge(
      'stats',
      'template-notice-read',
      '--channel',
      CHANNEL,
      '--date',
      '2024-05-01',
    );
    expect(channelReads.code, channelReads.stderr).toBe(0);
    expect(JSON.parse(channelReads.stdout)).toMatchObject({
      statistic: 'channelNoticeRead',
      date: '20240501',
      elapsedDay: '1',
      rows: [{ msgrChId: CHANNEL, messageType: 'AT', readCount: expect.any(Number) }],
    });
    expect(templateReads.stdout).toMatch(/^20240501\s+cli_first\s+AT\s+\d+$/m);
  });
});

describe('msgbridge templates request --after-rejection', () => {
  /** `msgbridge templates request TEMPLATE --channel CHANNEL FLAGS…` through `run`. */
  const request = (run: typeof msgbridge, templateCode: string, ...flags: string[]) =>
    run('templates', 'request', templateCode, '--channel', CHANNEL, ...flags);

  /** Creates a template, requests review and has the simulated platform reject it (S). */
  const rejected = async (
    run: typeof msgbridge,
    gateway: Simulator,
    channel: string,
    templateCode: string,
  ) => {
    const created = await run(
      'templates',
      'create',
      '--file',
      writeJson(`${templateCode}.json`, { ...templateRequest(templateCode), msgrChId: channel }),
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const { templateKey } = JSON.parse(created.stdout) as { templateKey: string };
    const requested = await run('templates', 'request', templateCode, '--channel', channel);
    expect(requested.code, requested.stderr).toBe(0);
    const moved = await callGateway(gateway, {
      method: 'POST',
      path: `/_sim/messenger/templates/${encodeURIComponent(templateKey)}/status`,
      body: { status: 'S' },
    });
    expect(moved.body).toMatchObject({ code: '10000' });
  };

  it('explains the flag in --help', async () => {
    const help = await msgbridge('templates', 'request', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--after-rejection');
    expect(help.stdout).toContain('internal-approval');
  });

  it('without the flag refuses an S template before the call; with it the request reaches the gateway', async () => {
    // Prepare
    await rejected(msgbridge, sim, CHANNEL, 'cli_rejected');

    // Act
    const plain = await request(msgbridge, 'cli_rejected');
    const flagged = await request(msgbridge, 'cli_rejected', '--after-rejection');

    // Assess: the client refuses without the flag and hints at it; with it the request is sent
    // and this gateway (not an internal-approval account) refuses it itself
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(
      'cannot request template cli_rejected: its status is S, request needs T',
    );
    expect(plain.stderr).toContain('--after-rejection');
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toMatch(/^msgbridge templates request: the gateway refused: 22702 /);
    expect(await statusOf('cli_rejected')).toBe('S');
  });

  it('with the flag, an internal-approval account sends a rejected template for review again (S → R)', async () => {
    // Prepare: a gateway whose API key is an internal-approval customer's
    const internal = await startSimulator({ ...credentials, port: 0, internalApproval: true });
    try {
      const internalTarget = authenticatingTarget(internal.hosts, credentials);
      const run = (...args: string[]) =>
        runCli(args, { resolveTarget: async () => internalTarget });
      await run('channels', 'token', CHANNEL, '--phone', ADMIN, '--relay', 'r01');
      const code = simulatedChannelToken(CHANNEL, ADMIN, 'r01');
      const registered = await run(...channelCreateArgs(CHANNEL, CATEGORY, `r01:${ADMIN}:${code}`));
      expect(registered.code, registered.stderr).toBe(0);
      await rejected(run, internal, CHANNEL, 'cli_again');

      // Act
      const again = await request(run, 'cli_again', '--after-rejection');
      const listed = await run('templates', 'list', '--channel', CHANNEL);

      // Assess
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe('requested review of template cli_again');
      expect(listed.stdout).toMatch(/^cli_again\s+CLI cli_again\s+R review requested\s/m);
    } finally {
      await internal.close();
    }
  });
});

describe('msgbridge rcs against the simulator', () => {
  const portal = ['--api-id', SIM_RCS_PORTAL.apiId, '--api-secret', SIM_RCS_PORTAL.apiSecret];
  const MAIN = '0215880000';
  const SECOND = '0215881111';

  const approve = async (chatbotId: string) => {
    const answer = await callGateway(sim, {
      method: 'POST',
      path: `/_sim/rcs/chatbots/${chatbotId}/approval`,
      body: { status: RCS_APPROVAL.approved },
    });
    expect(answer.status).toBe(200);
  };

  it('registers a brand, lists it, registers a chatbot, checks chat-room ids and deletes it all', async () => {
    // Prepare
    const brandFile = writeJson('brand.json', {
      regBrand: {
        name: 'CLI Shop',
        description: 'Brand registered by the CLI test',
        tel: '0215880000',
        categoryId: '001',
        subCategoryId: '001001',
      },
      mainMdn: MAIN,
      profileImgFilePath: '/files/profile.png',
      chatbots: [{ mdn: MAIN, rcsReply: '0', subTitle: 'CLI Shop', service: 'A2P' }],
    });
    const chatbotFile = writeJson('chatbots.json', {
      subNumCertificate: '/files/certificate.pdf',
      chatbots: [{ mdn: SECOND, rcsReply: '1', subTitle: 'CLI Shop CS', service: 'CHAT' }],
    });

    // Act and assess: brand register → list → get (brandKey)
    const registered = await msgbridge('rcs', 'brands', 'register', '--file', brandFile, ...portal);
    expect(registered.code, registered.stderr).toBe(0);
    const brandId = /^registered brand (\S+)$/.exec(registered.stdout)?.[1] ?? '';
    expect(brandId).not.toBe('');
    const listed = await msgbridge('rcs', 'brands', 'list', ...portal);
    expect(listed.stdout).toMatch(
      new RegExp(`^${brandId.replace('.', '\\.')}\\s+\\S+\\s+CLI Shop\\s+승인대기`, 'm'),
    );
    const shown = await msgbridge('rcs', 'brands', 'get', brandId, '--json', ...portal);
    const { brandKey } = JSON.parse(shown.stdout) as { brandKey: string };
    const key = ['--brand-key', brandKey];

    // chatbot register under the brand
    const chatbot = await msgbridge(
      'rcs',
      'chatbots',
      'register',
      brandId,
      ...key,
      '--file',
      chatbotFile,
    );
    expect(chatbot.code, chatbot.stderr).toBe(0);
    expect(chatbot.stdout).toMatch(
      new RegExp(`^${SECOND}\\s+${SECOND}\\s+CLI Shop CS\\s+N\\s+CHAT\\s+승인대기`, 'm'),
    );

    // check-chatroom: a free id, a registered one (nested 21399), a malformed one
    const free = await msgbridge('rcs', 'chatbots', 'check-chatroom', '0215882222');
    const taken = await msgbridge('rcs', 'chatbots', 'check-chatroom', SECOND);
    const malformed = await msgbridge('rcs', 'chatbots', 'check-chatroom', 'not-a-number');
    expect(free).toMatchObject({ code: 0, stdout: 'chat-room id 0215882222 can be registered' });
    expect(taken.code).toBe(1);
    expect(taken.stderr.split('\n')).toEqual([
      `msgbridge rcs chatbots check-chatroom: the gateway refused: 21399 chat room id check failed (upstream ${RCS_CODES.nestedIdTaken}: chat room id ${SECOND} is already registered)`,
      `msgbridge rcs chatbots check-chatroom:   nested: ${RCS_CODES.nestedIdTaken} chat room id ${SECOND} is already registered`,
    ]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain(
      `nested: ${RCS_CODES.nestedInvalidId} invalid chat room id format`,
    );

    // delete: refused while awaiting approval, then the chatbots and the brand go
    const early = await msgbridge('rcs', 'chatbots', 'delete', brandId, SECOND, ...key);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`the gateway refused: ${RCS_CODES.chatbotUnderReview} `);
    const brandFirst = await msgbridge('rcs', 'brands', 'delete', brandId, ...portal);
    expect(brandFirst.code).toBe(1);
    expect(brandFirst.stderr).toContain(`the gateway refused: ${RCS_CODES.brandHasChatbots} `);
    for (const id of [SECOND, MAIN]) {
      await approve(id);
      const deleted = await msgbridge('rcs', 'chatbots', 'delete', brandId, id, ...key);
      expect(deleted.code, deleted.stderr).toBe(0);
    }
    const none = await msgbridge('rcs', 'chatbots', 'list', brandId, ...key);
    expect(none.stdout).toContain('(no chatbots)');
    const brandGone = await msgbridge('rcs', 'brands', 'delete', brandId, ...portal);
    expect(brandGone.code, brandGone.stderr).toBe(0);
    const after = await msgbridge('rcs', 'brands', 'list', '--json', ...portal);
    const brands = (JSON.parse(after.stdout) as { result: Array<{ brandId: string }> }).result;
    expect(brands.map((brand) => brand.brandId)).not.toContain(brandId);
  });

  it('lists the template catalogue: forms and the default templates of a form', async () => {
    const forms = await msgbridge('rcs', 'templates', 'forms');
    const defaults = await msgbridge('rcs', 'templates', 'defaults', 'SS000001');
    const one = await msgbridge('rcs', 'templates', 'default', 'CMN-0001', '--json');
    expect(forms.stdout).toMatch(/^SS000001\s+Cell \(title \+ text\)\s+cell/m);
    expect(defaults.stdout).toMatch(/^CMN-0001\s+Delivery notice\s+SS000001/m);
    expect(JSON.parse(one.stdout)).toMatchObject({ messagebaseId: 'CMN-0001' });
  });

  it('prints the refusal of an unknown portal account', async () => {
    const unknownPortal = ['--api-id', 'nobody', '--api-secret', 'wrong'];
    const run = await msgbridge('rcs', 'brands', 'list', ...unknownPortal);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^msgbridge rcs brands list: the gateway refused: ${RCS_CODES.portalRefused} `),
    );
    expect(run.stderr).not.toContain('wrong');
  });
});
