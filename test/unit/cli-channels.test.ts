import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { refusal, words } from '../support/cli-command-line.ts';
import {
  captureIo,
  type GatewayScript,
  runScriptedCli,
  type ScriptedAnswer,
} from '../support/cli-gateway.ts';

/** Runs `msgbridge ARGS…` against a scripted gateway; answers the output and the calls made. */
const run = (args: string[], script?: GatewayScript) => runScriptedCli(args, script);

const CHANNELS: ScriptedAnswer = {
  data: [
    {
      msgrChId: '@shop',
      msgrChStat: 'A',
      createDate: '2024-05-01 10:00:00',
      categoryCode: '00100010001',
    },
    {
      msgrChId: '@bank-branch',
      msgrChStat: 'C',
      createDate: '2024-05-02 11:30:00',
      categoryCode: '00200020001',
    },
  ],
};

describe('msgbridge channels list', () => {
  it('sends --since as the compact date-time and prints an aligned table with the status meaning', async () => {
    // Act
    const result = await run(['channels', 'list', '--since', '2024-05-01', '--page-size', '20'], {
      'POST /msgr/v2/msgrChannelList': CHANNELS,
    });

    // Assess
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({ standardDateTime: '20240501000000', pageSize: 20 });
    expect(result.out.split('\n')).toEqual([
      'CHANNEL       STATUS      CREATED                  CATEGORY',
      '@shop         A active    2024-05-01 10:00:00 KST  00100010001',
      '@bank-branch  C inactive  2024-05-02 11:30:00 KST  00200020001',
    ]);
  });

  it('lists every channel without --since, and prints the typed answer with --json', async () => {
    const result = await run(['channels', 'list', '--json'], {
      'POST /msgr/v2/msgrChannelList': CHANNELS,
    });
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({ standardDateTime: '20000101000000' });
    expect(JSON.parse(result.out)).toEqual(CHANNELS.data);
  });

  it("prints the gateway's KST date-times in UTC with --utc, and as the gateway wrote them with --json", async () => {
    const utc = await run(['channels', 'list', '--utc'], {
      'POST /msgr/v2/msgrChannelList': CHANNELS,
    });
    const json = await run(['channels', 'list', '--utc', '--json'], {
      'POST /msgr/v2/msgrChannelList': CHANNELS,
    });

    expect(utc.out.split('\n')).toEqual([
      'CHANNEL       STATUS      CREATED                  CATEGORY',
      '@shop         A active    2024-05-01 01:00:00 UTC  00100010001',
      '@bank-branch  C inactive  2024-05-02 02:30:00 UTC  00200020001',
    ]);
    expect(JSON.parse(json.out)).toEqual(CHANNELS.data);
  });

  it('refuses a --since that is not a date with exit 2 and the usage, calling nothing', async () => {
    const result = await run(['channels', 'list', '--since', 'yesterday']);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'msgbridge channels list: --since must be YYYY-MM-DD or "YYYY-MM-DD HH:mm:ss"',
    );
    expect(result.err).toContain('msgbridge channels list [--since DATE]');
    expect(result.calls).toEqual([]);
  });
});

describe('msgbridge channels get, categories, relays', () => {
  it('prints one channel with the meaning of its status', async () => {
    const result = await run(['channels', 'get', '@shop'], {
      'POST /msgr/v2/channel/get': {
        data: {
          msgrChId: '@shop',
          stat: 'P',
          createDate: '20240501100000',
          categoryCode: '00100010001',
        },
      },
    });
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({ msgrChId: '@shop' });
    expect(result.out).toMatch(/^@shop\s+P dormant\s+2024-05-01 10:00:00 KST\s+00100010001$/m);
  });

  it('prints the gateway refusal with its code and exits 1', async () => {
    const result = await run(['channels', 'get', '@nobody'], {
      'POST /msgr/v2/channel/get': refusal('22601', 'unknown channel @nobody'),
    });
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'msgbridge channels get: the gateway refused: 22601 unknown channel @nobody',
    );
    expect(result.out).toBe('');
  });

  it('needs the channel id', async () => {
    const result = await run(['channels', 'get']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('msgbridge channels get: needs a CHANNEL_ID');
  });

  it('lists channel categories and relays', async () => {
    const script = {
      'POST /msgr/v2/channel/category/all': { data: [{ code: '00100010001', name: 'Shopping' }] },
      'POST /msgr/v2/channel/relayinfo': { data: { relay: ['r01', 'r02'] } },
    };
    const categories = await run(['channels', 'categories'], script);
    const relays = await run(['channels', 'relays'], script);
    const relaysJson = await run(['channels', 'relays', '--json'], script);
    expect(categories.out.split('\n')).toEqual(['CODE         NAME', '00100010001  Shopping']);
    expect(relays.out.split('\n')).toEqual(['RELAY', 'r01', 'r02']);
    expect(JSON.parse(relaysJson.out)).toEqual({ relay: ['r01', 'r02'] });
  });
});

describe('msgbridge channels token and create', () => {
  const CREATE_SHOP = 'channels create @shop --category 00100010001';

  it('asks for the code with the administrator number masked in the output', async () => {
    const result = await run(words('channels token @shop --phone 01012345678 --relay r01'), {
      'POST /msgr/v2/channel/token': {
        data: { phoneNumber: '01012345678', msgrChId: '@shop', relay: 'r01' },
      },
    });
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({
      msgrChId: '@shop',
      phoneNumber: '01012345678',
      relay: 'r01',
    });
    expect(result.out).toContain('sent the authentication code for @shop to 010****5678 via r01');
    expect(result.out).not.toContain('01012345678');
  });

  it('registers a channel with one request entry per --token', async () => {
    const result = await run(
      [
        ...words(`${CREATE_SHOP} --token r01:01012345678:123456 --token r02:01087654321:654321`),
        '--memo',
        'main shop',
      ],
      { 'POST /msgr/v2/channel/create': {} },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({
      msgrChId: '@shop',
      categoryCode: '00100010001',
      memo: 'main shop',
      tokens: [
        { rid: 'r01', phoneNumber: '01012345678', token: 123456 },
        { rid: 'r02', phoneNumber: '01087654321', token: 654321 },
      ],
    });
    expect(result.out).toBe('registered channel @shop');
  });

  it('refuses a malformed or missing --token with exit 2', async () => {
    const malformed = await run(words(`${CREATE_SHOP} --token 123456`));
    const missing = await run(words(CREATE_SHOP));
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain('--token must be RELAY:PHONE:CODE');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--token is required');
    expect([...malformed.calls, ...missing.calls]).toEqual([]);
  });

  it('lists every problem of an invalid request and sends nothing', async () => {
    const result = await run(
      words('channels create @shop --category short --token r01:01012345678:1'),
    );
    expect(result.code).toBe(1);
    expect(result.err).toContain('msgbridge channels create: invalid request, nothing was sent:');
    expect(result.err).toContain('categoryCode: categoryCode is 11 characters');
    expect(result.calls).toEqual([]);
  });

  it('restores and recovers a channel', async () => {
    const script = {
      'POST /msgr/v2/channel/restore': {},
      'POST /msgr/v2/channel/recover': {},
    };
    const restored = await run(['channels', 'restore', '@shop'], script);
    const recovered = await run(['channels', 'recover', '@shop', '--json'], script);
    expect(restored.out).toBe('restored channel @shop');
    expect(restored.calls[0]).toMatchObject({
      path: '/msgr/v2/channel/restore',
      body: { msgrChId: '@shop' },
    });
    expect(JSON.parse(recovered.out)).toEqual({ msgrChId: '@shop', recovered: true });
    expect(recovered.calls[0]?.path).toBe('/msgr/v2/channel/recover');
  });
});

describe('msgbridge channels groups', () => {
  it('lists every group, or the groups of one channel', async () => {
    const script = {
      'GET /msgr/v2/channel/group/all': {
        data: [
          {
            chGrpKey: 'G-1',
            chGrpName: 'Stores',
            chGrpStatCd: 'A',
            regDt: '2024-01-01',
            updDt: null,
          },
        ],
      },
      'POST /msgr/v2/channel/group/list': {
        data: [{ chGrpKey: 'G-1', chGrpName: 'Stores', regDt: '2024-01-02' }],
      },
    };
    const all = await run(['channels', 'groups'], script);
    const ofChannel = await run(['channels', 'groups', '--channel', '@shop'], script);
    expect(all.out).toMatch(/^G-1\s+Stores\s+A approved\s+2024-01-01$/m);
    expect(ofChannel.calls[0]?.body).toEqual({ msgrChId: '@shop' });
    expect(ofChannel.out.split('\n')).toEqual([
      'GROUP  NAME    SINCE',
      'G-1    Stores  2024-01-02',
    ]);
  });

  it('lists the members of a group, adds and removes a channel', async () => {
    const member = { data: { chGrpKey: 'G-1', msgrChId: '@shop' } };
    const script = {
      'GET /msgr/v2/channel/group/G-1': {
        data: [{ chGrpKey: 'G-1', msgrChId: '@shop', regDt: '2024-01-02' }],
      },
      'POST /msgr/v2/channel/group/add': member,
      'DELETE /msgr/v2/channel/group/remove': member,
    };
    const members = await run(['channels', 'members', 'G-1'], script);
    const added = await run(['channels', 'group-add', 'G-1', '@shop'], script);
    const removed = await run(['channels', 'group-remove', 'G-1', '@shop', '--json'], script);
    expect(members.out).toMatch(/^@shop\s+G-1\s+2024-01-02$/m);
    expect(added.calls[0]?.body).toEqual({ chGrpKey: 'G-1', msgrChId: '@shop' });
    expect(added.out).toBe('added @shop to group G-1');
    expect(removed.calls[0]?.method).toBe('DELETE');
    expect(JSON.parse(removed.out)).toEqual({ chGrpKey: 'G-1', msgrChId: '@shop' });
  });

  it('needs both the group and the channel to add', async () => {
    const result = await run(['channels', 'group-add', 'G-1']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('msgbridge channels group-add: needs GROUP_KEY and CHANNEL_ID');
  });

  it('lists every subcommand in the group usage, aligned', async () => {
    const { io, out } = captureIo();
    expect(await main(['channels', '--help'], io)).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/^ {2}group-remove {2}take a channel out of a group$/m);
    expect(text).toMatch(/^ {2}list {10}channels created since a date$/m);
  });
});
