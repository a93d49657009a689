import { describe, expect, it } from 'vitest';
import { refusal, words } from '../support/cli-command-line.ts';
import { type GatewayScript, runScriptedCli, type ScriptedAnswer } from '../support/cli-gateway.ts';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);

const REQUEST = {
  msgrChId: '@shop',
  templateCode: 'order_shipped',
  templateName: 'Order shipped',
  templateContent: 'Hello #{name}, your order has shipped.',
  categoryCode: '002001',
  templateMessageType: 'BA',
  templateEmphasizeType: 'IMAGE',
};
const FILES = {
  'request.json': JSON.stringify(REQUEST),
  'broken.json': '{"msgrChId": ',
};
const BYTES = { 'img/banner.png': PNG, 'img/thumb.JPG': JPEG, 'img/anim.gif': PNG };

const CREATED = {
  data: {
    templateKey: 'TK-1',
    templateCode: 'order_shipped',
    templateName: 'Order shipped',
    msgrChId: '@shop',
  },
};

/** Runs `msgbridge ARGS…` against a scripted gateway; answers the output and the calls made. */
const run = (args: string[], script?: GatewayScript) =>
  runScriptedCli(args, script, { files: FILES, bytes: BYTES });

/** How list and comment name the owner when it is group G-1. */
const GROUP_G1 = { msgrGrpId: 'G-1', senderType: 'G' };

/** A gateway whose template create answers `answer`. */
const creating = (answer: ScriptedAnswer): GatewayScript => ({
  'POST /msgr/v2/channel/template/create': answer,
});

const listed = (status: string) => ({
  data: [
    {
      msgrChId: '@shop',
      templateName: 'Order shipped',
      templateKey: 'TK-1',
      templateCode: 'order_shipped',
      templateStatusCode: status,
    },
  ],
});

describe('msgbridge templates create', () => {
  it('sends the request as JSON when there is no image', async () => {
    // Act
    const result = await run(words('templates create --file request.json'), creating(CREATED));

    // Assess
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({ ...REQUEST, senderType: 'S' });
    expect(result.out).toBe('created template order_shipped (key TK-1) in state T');
  });

  it('sends images as multipart parts with the type taken from the extension', async () => {
    // Act
    const result = await run(
      words(
        'templates create --file request.json --image img/banner.png --highlight-image img/thumb.JPG --json',
      ),
      creating(CREATED),
    );

    // Assess
    expect(result.code, result.err).toBe(0);
    const form = result.calls[0]?.body as FormData;
    const image = form.get('image') as File;
    const thumbnail = form.get('itemHighlightImage') as File;
    expect([image.name, image.type, image.size]).toEqual(['banner.png', 'image/png', PNG.length]);
    expect([thumbnail.name, thumbnail.type]).toEqual(['thumb.JPG', 'image/jpeg']);
    expect(JSON.parse(await (form.get('reqBody') as Blob).text())).toMatchObject(REQUEST);
    expect(JSON.parse(result.out)).toEqual(CREATED.data);
  });

  it('refuses an image that is not .jpg, .jpeg or .png with exit 2', async () => {
    const result = await run(words('templates create --file request.json --image img/anim.gif'));
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'msgbridge templates create: --image must be a .jpg, .jpeg or .png file, got img/anim.gif',
    );
    expect(result.calls).toEqual([]);
  });

  it('says which file it cannot read or parse, and that --file is required', async () => {
    const missing = await run(['templates', 'create', '--file', 'nope.json']);
    const broken = await run(['templates', 'create', '--file', 'broken.json']);
    const noImage = await run(words('templates create --file request.json --image x.png'));
    const noFile = await run(['templates', 'create']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^msgbridge templates create: cannot read nope.json: ENOENT/);
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(/^msgbridge templates create: broken.json is not JSON: /);
    expect(noImage.code).toBe(1);
    expect(noImage.err).toMatch(/cannot read x.png/);
    expect(noFile.code).toBe(2);
    expect(noFile.err).toContain('--file is required');
  });

  it('prints a gateway refusal with its code', async () => {
    const result = await run(
      words('templates create --file request.json'),
      creating(refusal('22703', 'templateCode order_shipped is taken')),
    );
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'msgbridge templates create: the gateway refused: 22703 templateCode order_shipped is taken',
    );
  });
});

describe('msgbridge templates list', () => {
  it('lists a channel’s templates with the meaning of each state', async () => {
    const result = await run(
      ['templates', 'list', '--channel', '@shop', '--since', '2024-05-01 09:30:00'],
      { 'POST /msgr/v2/channel/template/all': listed('T') },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({
      msgrChId: '@shop',
      senderType: 'S',
      updateDt: '20240501093000',
    });
    expect(result.out.split('\n')).toEqual([
      'CODE           NAME           STATUS        KEY   CHANNEL',
      'order_shipped  Order shipped  T registered  TK-1  @shop',
    ]);
  });

  it('lists a group’s templates with sender type G, and prints the answer with --json', async () => {
    const result = await run(['templates', 'list', '--group', 'G-1', '--json'], {
      'POST /msgr/v2/channel/template/all': listed('A'),
    });
    expect(result.calls[0]?.body).toEqual(GROUP_G1);
    expect(JSON.parse(result.out)).toEqual(listed('A').data);
  });

  it('needs exactly one of --channel and --group', async () => {
    const neither = await run(['templates', 'list']);
    const both = await run(['templates', 'list', '--channel', '@shop', '--group', 'G-1']);
    for (const result of [neither, both]) {
      expect(result.code).toBe(2);
      expect(result.err).toContain('give either --channel CHANNEL_ID or --group GROUP_ID');
      expect(result.calls).toEqual([]);
    }
  });
});

describe('msgbridge templates request and delete', () => {
  /** What request and delete send for template order_shipped of channel @shop. */
  const SHOP_TEMPLATE = { msgrChId: '@shop', templateCode: 'order_shipped', senderKeyType: 'S' };

  it('requests review of a template in state T', async () => {
    const result = await run(
      ['templates', 'request', 'order_shipped', '--channel', '@shop', '--comment', 'please'],
      {
        'POST /msgr/v2/channel/template/all': listed('T'),
        'POST /msgr/v2/channel/template/request': {},
      },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.calls.map((call) => call.path)).toEqual([
      '/msgr/v2/channel/template/all',
      '/msgr/v2/channel/template/request',
    ]);
    expect(result.calls[1]?.body).toEqual({ ...SHOP_TEMPLATE, comment: 'please' });
    expect(result.out).toBe('requested review of template order_shipped');
  });

  it('refuses to delete a template that is not in state T, clearly, and sends no delete', async () => {
    // Act
    const result = await run(['templates', 'delete', 'order_shipped', '--channel', '@shop'], {
      'POST /msgr/v2/channel/template/all': listed('R'),
      'POST /msgr/v2/channel/template/delete': {},
    });

    // Assess
    expect(result.code).toBe(1);
    expect(result.err.split('\n')).toEqual([
      'msgbridge templates delete: cannot delete template order_shipped: its status is R, delete needs T',
      'msgbridge templates delete:   only a template in state T (registered) can be deleted; this one is R review requested',
    ]);
    expect(result.calls.map((call) => call.path)).toEqual(['/msgr/v2/channel/template/all']);
  });

  it('says so when the template is not in the owner’s list', async () => {
    const result = await run(['templates', 'delete', 'other', '--group', 'G-1'], {
      'POST /msgr/v2/channel/template/all': { data: [] },
    });
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      'cannot delete template other: not found for this channel or group',
    );
    expect(result.err).toContain('msgbridge templates list');
  });

  it('deletes a template in state T', async () => {
    const result = await run(
      ['templates', 'delete', 'order_shipped', '--channel', '@shop', '--json'],
      {
        'POST /msgr/v2/channel/template/all': listed('T'),
        'POST /msgr/v2/channel/template/delete': {},
      },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.calls[1]?.body).toEqual(SHOP_TEMPLATE);
    expect(JSON.parse(result.out)).toEqual({
      templateCode: 'order_shipped',
      msgrChId: '@shop',
      deleted: true,
    });
  });
});

describe('msgbridge templates comment and categories', () => {
  it('sends a comment', async () => {
    const result = await run(
      ['templates', 'comment', 'order_shipped', '--group', 'G-1', '--text', 'fixed the wording'],
      { 'POST /msgr/v2/channel/template/comment': {} },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.calls[0]?.body).toEqual({
      ...GROUP_G1,
      templateCode: 'order_shipped',
      comment: 'fixed the wording',
    });
    expect(result.out).toBe('commented on template order_shipped');
  });

  it('needs --text', async () => {
    const result = await run(['templates', 'comment', 'order_shipped', '--channel', '@shop']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--text is required');
  });

  it('lists the template categories', async () => {
    const result = await run(['templates', 'categories'], {
      'POST /msgr/v2/channel/template/category/all': {
        data: [
          {
            code: '001001',
            name: 'Sign-up',
            groupName: 'Membership',
            iclusion: 'welcome',
            exclusion: 'ads',
          },
        ],
      },
    });
    expect(result.out.split('\n')).toEqual([
      'CODE    GROUP       NAME     INCLUDES  EXCLUDES',
      '001001  Membership  Sign-up  welcome   ads',
    ]);
  });
});
