/**
 * The simulator's own send rules, driven over HTTP with raw request bodies: each case shows the
 * simulator enforcing one rule of spec 01 (§2, §4.3–4.10, §8) or of the field notes by itself,
 * whatever the bridge believes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import {
  type Simulator,
  type SimulatorOptionsInput,
  startSimulator,
} from '../../simulator/index.ts';
import { asList, asObject, authenticate, callGateway } from '../support/simulator-http.ts';

const credentials = { apiKey: 'rules-key', apiPassword: randomUUID() };
const CALLBACK = '0212345678';
const REPORT_DELAY_MS = 1_000;

let sim: Simulator;
let token: string;

const start = (options: Partial<SimulatorOptionsInput> = {}) =>
  startSimulator({
    ...credentials,
    clock: 'manual',
    tpsQuota: 10_000,
    reportDelayMs: REPORT_DELAY_MS,
    failureRate: 0,
    uncertainRate: 0,
    ...options,
  });

beforeAll(async () => {
  sim = await start();
});

afterAll(async () => {
  await sim.close();
});

beforeEach(async () => {
  ({ token } = await authenticate(sim, credentials));
});

let counter = 0;
const key = (label = 'k'): string => `${label}-${++counter}`;
const recipients = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: key(),
    phone: `0101234${String(1000 + index)}`,
    ...extra,
  }));

const sms = (extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: 'Your code is 1234',
  recvInfoLst: recipients(1),
  ...extra,
});
const mms = (extra: Record<string, unknown> = {}) =>
  sms({ title: 'Notice', msg: 'A longer text', ...extra });
const rcs = (extra: Record<string, unknown> = {}) => ({
  messagebaseId: 'TMPL-0001',
  callback: CALLBACK,
  header: '0',
  recvInfoLst: recipients(1),
  ...extra,
});
const push = (extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: { title: 'Hello', body: 'Your parcel is on its way' },
  appId: 'app-1',
  clickUrlYn: 'N',
  recvInfoLst: [{ cliKey: key('push'), cuid: 'user-1' }],
  ...extra,
});
const notice = (extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: 'Your order has shipped',
  msgrChId: 'channel-1',
  tmpltCode: 'ORDER_SHIPPED',
  recvInfoLst: recipients(1),
  ...extra,
});
const brandTemplate = (extra: Record<string, unknown> = {}) => ({
  targeting: 'I',
  msgrChId: 'channel-1',
  tmpltCode: 'BRAND_1',
  chatBubbleType: 'TEXT',
  callback: CALLBACK,
  recvInfoLst: recipients(1),
  ...extra,
});
const brandFree = (extra: Record<string, unknown> = {}) => ({
  targeting: 'N',
  msgrChId: 'channel-1',
  chatBubbleType: 'TEXT',
  content: 'Spring sale starts today',
  callback: CALLBACK,
  recvInfoLst: recipients(1),
  ...extra,
});
const openUrl = (url: string) => ({
  suggestions: [
    {
      action: {
        displayText: 'Open',
        postback: { data: 'set_by_chatbot_open_url' },
        urlAction: { openUrl: { url } },
      },
    },
  ],
});

const send = (path: string, body: unknown, on: Simulator = sim, withToken = token) =>
  callGateway(on, { method: 'POST', path, token: withToken, body });

/** Asserts a top-level refusal with `code`, and that its message names `path` when given. */
const expectRefused = async (
  answer: Promise<{ status: number; body: unknown }>,
  code: string,
  path?: string,
) => {
  const { status, body } = await answer;
  expect(body).toMatchObject({ code });
  expect(status).toBe(400);
  if (path !== undefined) expect(asObject(body).message).toEqual(expect.stringContaining(path));
};

const expectAccepted = async (answer: Promise<{ status: number; body: unknown }>) => {
  const { status, body } = await answer;
  expect(body).toMatchObject({ code: '10000' });
  expect(status).toBe(200);
  return body;
};

const statusOf = async (cliKey: string, on: Simulator = sim, withToken = token) => {
  const answer = await send(
    '/msg/v1/sent',
    { cliKeyLst: [{ cliKey, reqDt: formatKst(on.clock.now(), 'YYYY-MM-DD') }] },
    on,
    withToken,
  );
  return asList(asObject(asObject(answer.body).data).cliKeyLst)[0];
};

/** The polled report of `cliKey`: pages are polled and confirmed until it shows up. */
const reportOf = async (on: Simulator, withToken: string, cliKey: string) => {
  for (let page = 0; page < 50; page++) {
    const poll = await callGateway(on, {
      method: 'GET',
      path: '/msg/v1.2/report',
      token: withToken,
    });
    const data = asObject(poll.body).data;
    if (data === null || data === undefined) break;
    const { rptKey, rptLst } = asObject(data);
    const reports = asList(rptLst ?? []);
    if (reports.length === 0) break;
    await callGateway(on, {
      method: 'POST',
      path: '/msg/v1.2/report/result',
      token: withToken,
      body: { rptKeyLst: [rptKey] },
    });
    const found = reports.find((report) => report.cliKey === cliKey);
    if (found) return found;
  }
  throw new Error(`no report for ${cliKey}`);
};

describe('recipient limit (spec 01 §8: 10 per request)', () => {
  it.each([
    ['/msg/v1/sms', (n: number) => sms({ recvInfoLst: recipients(n) })],
    ['/msg/v1.1/rcs', (n: number) => rcs({ recvInfoLst: recipients(n) })],
    [
      '/msg/v1/push',
      (n: number) =>
        push({ recvInfoLst: recipients(n).map(({ cliKey }) => ({ cliKey, cuid: 'user' })) }),
    ],
    ['/msgr/brand/custom/v1', (n: number) => brandFree({ recvInfoLst: recipients(n) })],
  ])('%s accepts 10 recipients and refuses 11 with 21012', async (path, body) => {
    await expectAccepted(send(path, body(10)));
    await expectRefused(send(path, body(11)), '21012', 'recvInfoLst');
  });

  it('refuses an empty recipient list with 21001', async () => {
    await expectRefused(send('/msg/v1/sms', sms({ recvInfoLst: [] })), '21001', 'recvInfoLst');
  });
});

describe('CP949 byte limits and character limits per channel', () => {
  it('SMS msg: 45 Hangul syllables (90 bytes) fit, 46 do not', async () => {
    await expectAccepted(send('/xms/sms/v1', sms({ msg: '가'.repeat(45) })));
    await expectRefused(send('/xms/sms/v1', sms({ msg: '가'.repeat(46) })), '21001', 'msg');
  });

  it('SMS msg: an emoji CP949 cannot encode is refused even when short', async () => {
    const answer = send('/msg/v1/sms', sms({ msg: '주문 완료 😀' }));
    await expectRefused(answer, '21001', 'CP949');
  });

  it('MMS title: 20 Hangul syllables (40 bytes) fit, 21 do not', async () => {
    await expectAccepted(send('/xms/mms/v1', mms({ title: '가'.repeat(20) })));
    await expectRefused(send('/xms/mms/v1', mms({ title: '가'.repeat(21) })), '21001', 'title');
  });

  it('MMS msg: 1000 Hangul syllables (2000 bytes) fit, 1000 and one letter do not', async () => {
    await expectAccepted(send('/msg/v1/mms', mms({ msg: '가'.repeat(1_000) })));
    await expectRefused(
      send('/msg/v1/mms', mms({ msg: `${'가'.repeat(1_000)}a` })),
      '21001',
      'msg',
    );
  });

  it('notification msg counts characters: 1000 Hangul syllables fit, 1001 do not', async () => {
    await expectAccepted(send('/msgr/notice/v1.2', notice({ msg: '가'.repeat(1_000) })));
    await expectRefused(
      send('/msgr/notice/v1.2', notice({ msg: '가'.repeat(1_001) })),
      '21001',
      'msg',
    );
  });

  it('push msg counts characters: a 2000-character body fits, 2001 does not', async () => {
    const body = (length: number) => push({ msg: { title: 'Hi', body: '가'.repeat(length) } });
    await expectAccepted(send('/msg/v1/push', body(2_000)));
    await expectRefused(send('/msg/v1/push', body(2_001)), '21001', 'msg.body');
  });

  it('brand free content: TEXT takes 1300 characters, WIDE 76', async () => {
    const wide = { chatBubbleType: 'WIDE', imageUrl: 'https://img.example.com/1.jpg' };
    await expectAccepted(send('/msgr/brand/custom/v1', brandFree({ content: 'a'.repeat(1_300) })));
    await expectRefused(
      send('/msgr/brand/custom/v1', brandFree({ content: 'a'.repeat(1_301) })),
      '21001',
      'content',
    );
    await expectAccepted(
      send('/msgr/brand/custom/v1', brandFree({ ...wide, content: 'a'.repeat(76) })),
    );
    await expectRefused(
      send('/msgr/brand/custom/v1', brandFree({ ...wide, content: 'a'.repeat(77) })),
      '21001',
      'content',
    );
  });
});

describe('cliKey and phone (field notes)', () => {
  it('accepts a 30-character cliKey of letters, digits and - _ . @', async () => {
    const cliKey = `a.b@c-d_e${'x'.repeat(21)}`;
    await expectAccepted(
      send('/msg/v1/sms', sms({ recvInfoLst: [{ cliKey, phone: '01012345678' }] })),
    );
  });

  it.each([
    ['31 characters', 'x'.repeat(31)],
    ['a space', 'order 1'],
    ['a slash', 'order/1'],
    ['Hangul', '주문1'],
  ])('refuses a cliKey with %s', async (_label, cliKey) => {
    const body = sms({ recvInfoLst: [{ cliKey, phone: '01012345678' }] });
    await expectRefused(send('/msg/v1/sms', body), '21001', 'recvInfoLst[0].cliKey');
  });

  it('accepts a phone with hyphens and refuses a + prefix or 21 characters', async () => {
    const withPhone = (phone: string) => sms({ recvInfoLst: [{ cliKey: key(), phone }] });
    await expectAccepted(send('/msg/v1/sms', withPhone('010-1234-5678')));
    await expectRefused(send('/msg/v1/sms', withPhone('+821012345678')), '21001', 'phone');
    await expectRefused(send('/msg/v1/sms', withPhone('0'.repeat(21))), '21001', 'phone');
  });

  it('a push recipient needs cuid but no phone', async () => {
    await expectAccepted(send('/msg/v1/push', push()));
    await expectRefused(
      send('/msg/v1/push', push({ recvInfoLst: [{ cliKey: key() }] })),
      '21001',
      'cuid',
    );
  });
});

describe('fallback rules', () => {
  it('refuses a fallback on a channel other than SMS or MMS with 21014', async () => {
    const body = rcs({ fbInfoLst: [{ ch: 'LMS', msg: 'text' }] });
    await expectRefused(send('/msg/v1.1/rcs', body), '21014', 'fbInfoLst[0].ch');
  });

  it('refuses an SMS fallback text over 90 bytes with 21014', async () => {
    const body = rcs({ fbInfoLst: [{ ch: 'SMS', msg: '가'.repeat(46) }] });
    await expectRefused(send('/msg/v1.1/rcs', body), '21014', 'fbInfoLst[0].msg');
  });

  it('refuses an MMS fallback with both fileId and fileIdLst with 21014', async () => {
    const fallback = { ch: 'MMS', title: 't', msg: 'm', fileId: 'F1', fileIdLst: ['F2'] };
    await expectRefused(send('/msg/v1.1/rcs', rcs({ fbInfoLst: [fallback] })), '21014');
  });

  it('refuses a fallback on a two-way reply with 21014', async () => {
    const body = {
      replyId: 'R-1',
      cliKey: key('bi'),
      messagebaseId: 'TMPL-CHAT',
      chatbotId: '15881234',
      telco: 'SKT',
      phone: '01099998888',
      body: { description: 'Thanks' },
      header: '0',
      fbInfoLst: [{ ch: 'SMS', msg: 'Thanks' }],
    };
    await expectRefused(send('/rcs/bi/v1.1', body), '21014', 'fbInfoLst');
  });

  it('refuses a push fallback for a recipient without the fallback number with 21014', async () => {
    const body = push({ fbInfoLst: [{ ch: 'SMS', msg: 'Your parcel is on its way' }] });
    await expectRefused(send('/msg/v1/push', body), '21014', 'recvInfoLst[0].phone');
  });

  it('refuses a fallback to the main channel, or a channel twice, with 21051', async () => {
    await expectRefused(
      send('/xms/mms/v1', mms({ fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm' }] })),
      '21051',
    );
    const twice = [
      { ch: 'MMS', title: 't', msg: 'one' },
      { ch: 'MMS', title: 't', msg: 'two' },
    ];
    await expectRefused(send('/msgr/notice/v1.2', notice({ fbInfoLst: twice })), '21051');
  });

  it('refuses a fallback without callback with 21024, on every channel that can fall back', async () => {
    const fallback = [{ ch: 'SMS', msg: 'fallback text' }];
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/msg/v1/sms', sms({ fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm' }] })],
      ['/msg/v1.1/rcs', rcs({ fbInfoLst: fallback })],
      ['/msg/v1/push', push({ fbInfoLst: fallback })],
      ['/msgr/notice/v1.2', notice({ fbInfoLst: fallback })],
      ['/msgr/brand/tmplt/v1', brandTemplate({ fbInfoLst: fallback })],
    ];
    for (const [path, body] of cases) {
      const { callback: _dropped, ...withoutCallback } = body;
      await expectRefused(send(path, withoutCallback), '21024', 'callback');
    }
  });

  it('answers a missing callback without a fallback with 21001, not 21024', async () => {
    const { callback: _dropped, ...withoutCallback } = rcs();
    await expectRefused(send('/msg/v1.1/rcs', withoutCallback), '21001', 'callback');
  });
});

describe('the 30-day scheduling horizon (21030)', () => {
  const at = (ms: number) => formatKst(sim.clock.now() + ms, 'YYYY-MM-DD HH:mm');
  const DAY = 86_400_000;

  it('accepts exactly 30 days ahead and refuses 30 days and a minute', async () => {
    await expectAccepted(send('/msg/v1/sms', sms({ resvYn: 'Y', resvReqDt: at(30 * DAY) })));
    await expectRefused(
      send('/msg/v1/sms', sms({ resvYn: 'Y', resvReqDt: at(30 * DAY + 60_000) })),
      '21030',
    );
  });

  it('applies to the messenger notification and brand paths too', async () => {
    const late = { resvYn: 'Y', resvReqDt: at(31 * DAY) };
    await expectRefused(send('/msgr/notice/v1.2', notice(late)), '21030');
    await expectRefused(send('/msgr/brand/tmplt/v1', brandTemplate(late)), '21030');
  });

  it('refuses resvYn Y without resvReqDt, or a time not written YYYY-MM-DD HH:mm', async () => {
    await expectRefused(send('/msg/v1/sms', sms({ resvYn: 'Y' })), '21030', 'resvReqDt');
    const iso = formatKst(sim.clock.now() + DAY, 'YYYY-MM-DD HH:mm').replace(' ', 'T');
    await expectRefused(send('/msg/v1/sms', sms({ resvYn: 'Y', resvReqDt: iso })), '21030');
  });
});

describe('template variables (spec 01 §2: filled from mergeData)', () => {
  it('accepts #{name} when every recipient has a value, and refuses the recipient without one', async () => {
    const msg = '#{name}님, 예약은 #{time}입니다';
    const filled = recipients(2, { mergeData: { name: '김민지', time: '10:30' } });
    await expectAccepted(send('/msg/v1/sms', sms({ msg, recvInfoLst: filled })));
    const second = recipients(2, { mergeData: { name: '김민지', time: '10:30' } });
    second[1] = { ...second[1], mergeData: { name: '이준호' } } as (typeof second)[number];
    await expectRefused(
      send('/msg/v1/sms', sms({ msg, recvInfoLst: second })),
      '21001',
      'recvInfoLst[1].mergeData.time',
    );
  });

  it('refuses a null value as no value', async () => {
    const body = sms({ msg: '#{name}', recvInfoLst: recipients(1, { mergeData: { name: null } }) });
    await expectRefused(send('/msg/v1/sms', body), '21001', 'mergeData.name');
  });

  it('checks the filled SMS text against 90 bytes', async () => {
    const body = sms({
      msg: '#{name}님 안녕하세요',
      recvInfoLst: recipients(1, { mergeData: { name: '가'.repeat(40) } }),
    });
    await expectRefused(send('/msg/v1/sms', body), '21001', 'filled in for recvInfoLst[0]');
  });

  it('reads #{name} in notification and push texts, and in every SMS/MMS fallback', async () => {
    await expectRefused(
      send('/msgr/notice/v1.2', notice({ msg: '#{name}님, 발송되었습니다' })),
      '21001',
      'mergeData.name',
    );
    await expectRefused(
      send('/msg/v1/push', push({ msg: { title: '#{name}', body: 'Hi' } })),
      '21001',
      'mergeData.name',
    );
    await expectRefused(
      send('/msg/v1.1/rcs', rcs({ fbInfoLst: [{ ch: 'SMS', msg: '#{orderNo} 접수' }] })),
      '21001',
      'mergeData.orderNo',
    );
  });

  it('reads {{name}} (not #{name}) in RCS buttons', async () => {
    const withVariable = rcs({ buttons: [openUrl('https://shop.example.com/o/{{orderNo}}')] });
    await expectRefused(send('/msg/v1.1/rcs', withVariable), '21001', 'mergeData.orderNo');
    const given = rcs({
      buttons: [openUrl('https://shop.example.com/o/{{orderNo}}')],
      recvInfoLst: recipients(1, { mergeData: { orderNo: 'A-1' } }),
    });
    await expectAccepted(send('/msg/v1.1/rcs', given));
    const hashSyntax = rcs({ buttons: [openUrl('https://shop.example.com/o/#{orderNo}')] });
    await expectAccepted(send('/msg/v1.1/rcs', hashSyntax));
  });
});

describe('other field rules of the spec', () => {
  it.each([
    ['an unknown field', '/msg/v1/sms', sms({ fbInfoList: [] }), 'fbInfoList'],
    ['RCS advertising (header 1) without footer', '/msg/v1/rcs', rcs({ header: '1' }), 'footer'],
    ['integrated RCS with header 1', '/rcs/v1.1', rcs({ header: '1' }), 'header'],
    ['integrated RCS with copyAllowed', '/rcs/v1.1', rcs({ copyAllowed: true }), 'copyAllowed'],
    ['RCS v1 with agency brand fields', '/msg/v1/rcs', rcs({ brandId: 'B1' }), 'brandId'],
    [
      'RCS v1.1 agency without brandId',
      '/msg/v1.1/rcs',
      rcs({ agency: { rcsAgencyId: 'A' } }),
      'brandId',
    ],
    [
      'five RCS buttons',
      '/msg/v1.1/rcs',
      rcs({ buttons: Array(5).fill(openUrl('https://e.com')) }),
      'buttons',
    ],
    [
      'an RCS URL button without url',
      '/msg/v1.1/rcs',
      rcs({
        buttons: [
          {
            suggestions: [
              { action: { displayText: 'x', postback: { data: 'set_by_chatbot_open_url' } } },
            ],
          },
        ],
      }),
      'urlAction.openUrl.url',
    ],
    ['push without clickUrlYn', '/msg/v1/push', { ...push(), clickUrlYn: undefined }, 'clickUrlYn'],
    [
      'push ext over 1000 bytes',
      '/msg/v1/push',
      push({ ext: { image: 'x'.repeat(1_000) } }),
      'ext',
    ],
    [
      'a notification item list of 1 entry',
      '/msgr/notice/v1.2',
      notice({ item: { list: [{ title: 't', description: 'd' }] } }),
      'item.list',
    ],
    [
      'a notification WL button without url_mobile',
      '/msgr/notice/v1.2',
      notice({ buttons: [{ name: 'Go', type: 'WL' }] }),
      'url_mobile',
    ],
    [
      'six notification buttons',
      '/msgr/notice/v1.2',
      notice({ buttons: Array(6).fill({ name: 'k', type: 'BK' }) }),
      'buttons',
    ],
    [
      'a notification AC button after another',
      '/msgr/notice/v1.2',
      notice({
        buttons: [
          { name: 'k', type: 'BK' },
          { name: 'a', type: 'AC' },
        ],
      }),
      'buttons[1].type',
    ],
    [
      'a brand chatBubbleType not listed',
      '/msgr/brand/tmplt/v1',
      brandTemplate({ chatBubbleType: 'VIDEO' }),
      'chatBubbleType',
    ],
    [
      'a brand unsubscribeAuthNumber alone',
      '/msgr/brand/tmplt/v1',
      brandTemplate({ unsubscribeAuthNumber: '1234' }),
      'unsubscribeAuthNumber',
    ],
    [
      'brand template with campaignId (4.10 only)',
      '/msgr/brand/tmplt/v1',
      brandTemplate({ campaignId: 'C1' }),
      'campaignId',
    ],
    [
      'brand free IMAGE without imageUrl',
      '/msgr/brand/custom/v1',
      brandFree({ chatBubbleType: 'IMAGE' }),
      'imageUrl',
    ],
    [
      'brand free WIDE_ITEM_LIST with 2 items',
      '/msgr/brand/custom/v1',
      brandFree({
        chatBubbleType: 'WIDE_ITEM_LIST',
        header: 'h',
        wideItemList: [{}, {}],
        content: undefined,
      }),
      'wideItemList',
    ],
    [
      'brand free buttons on a carousel',
      '/msgr/brand/custom/v1',
      brandFree({
        chatBubbleType: 'CAROUSEL_FEED',
        content: undefined,
        buttons: [{ type: 'BK', name: 'k' }],
      }),
      'buttons',
    ],
    [
      'brand free commerce with both discounts',
      '/msgr/brand/custom/v1',
      brandFree({
        chatBubbleType: 'COMMERCE',
        content: undefined,
        imageUrl: 'https://e.com/i.jpg',
        buttons: [{ type: 'BK', name: 'k' }],
        commerce: {
          title: 't',
          regularPrice: 10,
          discountPrice: 5,
          discountRate: 50,
          discountFixed: 5,
        },
      }),
      'commerce',
    ],
  ])('refuses %s with 21001', async (_label, path, body, named) => {
    await expectRefused(send(path, body), '21001', named);
  });
});

describe('multipart MMS (spec 01 §4.4)', () => {
  const multipart = async (reqMsg: unknown, files: number) => {
    const form = new FormData();
    form.append('reqMsg', new Blob([JSON.stringify(reqMsg)], { type: 'application/json' }));
    for (let index = 0; index < files; index++) {
      form.append(
        'parts',
        new Blob([Buffer.alloc(64, index)], { type: 'image/jpeg' }),
        `${index}.jpg`,
      );
    }
    const encoded = new Response(form);
    return callGateway(sim, {
      method: 'POST',
      path: '/xms/mms/file/v1',
      token,
      body: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
    });
  };

  it('accepts reqMsg with one file, and refuses file ids in reqMsg or no file at all', async () => {
    await expectAccepted(multipart(mms(), 1));
    await expectRefused(multipart(mms({ fileIdLst: ['F-1'] }), 1), '21001', 'fileIdLst');
    await expectRefused(multipart(mms(), 0), '21001', 'parts');
  });
});

describe('duplicate family (duplicateCode)', () => {
  it.each(['29005', '29023', '29024'] as const)(
    'duplicateCode %s answers that code for a repeated cliKey, immediate and scheduled',
    async (duplicateCode) => {
      const own = await start({ duplicateCode });
      try {
        const { token: ownToken } = await authenticate(own, credentials);
        const recvInfoLst = recipients(1);
        await expectAccepted(send('/msg/v1/sms', sms({ recvInfoLst }), own, ownToken));

        const again = await send('/msg/v1/sms', sms({ recvInfoLst }), own, ownToken);
        const scheduled = await send(
          '/msg/v1/sms',
          sms({
            recvInfoLst,
            resvYn: 'Y',
            resvReqDt: formatKst(own.clock.now() + 3_600_000, 'YYYY-MM-DD HH:mm'),
          }),
          own,
          ownToken,
        );

        expect(again.body).toMatchObject({
          code: '10000',
          data: [{ cliKey: recvInfoLst[0]?.cliKey, code: duplicateCode }],
        });
        expect(scheduled).toMatchObject({ status: 400, body: { code: duplicateCode } });
      } finally {
        await own.close();
      }
    },
  );

  it('a cliKey twice in one request: an immediate send accepts the first, a scheduled send none', async () => {
    const [first] = recipients(1);
    const twice = [first, first];

    const now = await send('/msg/v1/sms', sms({ recvInfoLst: twice }));
    const before = sim.snapshot().recipientsAccepted;
    const [second] = recipients(1);
    const later = await send(
      '/msg/v1/sms',
      sms({
        recvInfoLst: [second, second],
        resvYn: 'Y',
        resvReqDt: formatKst(sim.clock.now() + 3_600_000, 'YYYY-MM-DD HH:mm'),
      }),
    );

    const items = asList(asObject(now.body).data);
    expect(items[0]).toMatchObject({ cliKey: first?.cliKey, code: '10000' });
    expect(['29005', '29023', '29024']).toContain(items[1]?.code);
    expect(later.status).toBe(400);
    expect(['29005', '29023', '29024']).toContain(asObject(later.body).code);
    expect(sim.snapshot().recipientsAccepted).toBe(before);
  });

  it('mixed (the default) draws every code of the family over a few repeats', async () => {
    const recvInfoLst = recipients(1);
    await expectAccepted(send('/msg/v1/sms', sms({ recvInfoLst })));
    const codes = new Set<unknown>();

    for (let attempt = 0; attempt < 15; attempt++) {
      const answer = await send('/msg/v1/sms', sms({ recvInfoLst }));
      codes.add(asList(asObject(answer.body).data)[0]?.code);
    }

    expect([...codes].sort()).toEqual(['29005', '29023', '29024']);
  });
});

describe('file ids (21029)', () => {
  const register = (fileId: string, expiresInMs: number) =>
    callGateway(sim, { method: 'POST', path: '/_sim/files', body: { fileId, expiresInMs } });

  it('accepts a registered id before its expiry and refuses it after with 21029', async () => {
    const fileId = `F-${key()}`;
    expect((await register(fileId, 60_000)).body).toMatchObject({ code: '10000' });
    await expectAccepted(send('/xms/mms/v1', mms({ fileIdLst: [fileId] })));

    await sim.advance(60_000);

    await expectRefused(send('/xms/mms/v1', mms({ fileIdLst: [fileId] })), '21029', fileId);
  });

  it('accepts a fresh id and an id never registered', async () => {
    const fresh = `F-${key()}`;
    await register(fresh, 3_600_000);
    await expectAccepted(send('/xms/mms/v1', mms({ fileIdLst: [fresh, `never-${key()}`] })));
  });

  it('checks fallback and push file ids too', async () => {
    const expired = `F-${key()}`;
    await register(expired, 0);
    await expectRefused(
      send(
        '/msg/v1.1/rcs',
        rcs({ fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm', fileIdLst: [expired] }] }),
      ),
      '21029',
      'fbInfoLst[0].fileIdLst[0]',
    );
    await expectRefused(send('/msg/v1/push', push({ fileId: expired })), '21029', 'fileId');
  });
});

describe('product codes', () => {
  it('reports ITMPL for a notification message, in the status query and the polled report', async () => {
    const recvInfoLst = recipients(1);
    await expectAccepted(send('/msgr/notice/v1.2', notice({ recvInfoLst })));
    await sim.advance(REPORT_DELAY_MS);

    const status = await statusOf(recvInfoLst[0]?.cliKey ?? '');
    const report = await reportOf(sim, token, recvInfoLst[0]?.cliKey ?? '');

    expect(status).toMatchObject({ status: 'DONE', productCode: 'ITMPL' });
    expect(report).toMatchObject({ productCode: 'ITMPL' });
  });

  describe('brand messages before and after 2026-01-01 KST', () => {
    let early: Simulator;
    let earlyToken: string;

    beforeAll(async () => {
      // 2025-12-31 23:00 KST: the manual clock starts at the (faked) wall clock.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2025-12-31T14:00:00Z'));
      try {
        early = await start();
      } finally {
        vi.useRealTimers();
      }
      ({ token: earlyToken } = await authenticate(early, credentials));
    });

    afterAll(async () => {
      await early.close();
    });

    const BUBBLES: ReadonlyArray<[string, string]> = [
      ['TEXT', 'KFRT1'],
      ['IMAGE', 'KFRM2'],
      ['WIDE', 'KFRM3'],
      ['WIDE_ITEM_LIST', 'KFRM4'],
      ['CAROUSEL_FEED', 'KFRM5'],
      ['PREMIUM_VIDEO', 'KFRM6'],
      ['COMMERCE', 'KFRM7'],
      ['CAROUSEL_COMMERCE', 'KFRM8'],
    ];

    it.each(BUBBLES)('a %s template message in 2025 reports %s', async (chatBubbleType, code) => {
      const recvInfoLst = recipients(1);
      const body = brandTemplate({ chatBubbleType, recvInfoLst });
      await expectAccepted(send('/msgr/brand/tmplt/v1', body, early, earlyToken));

      expect(await statusOf(recvInfoLst[0]?.cliKey ?? '', early, earlyToken)).toMatchObject({
        ch: 'BRAND',
        productCode: code,
      });
    });

    it('a free-type WIDE message in 2025 reports KFRM3, and the report carries it', async () => {
      const recvInfoLst = recipients(1);
      const body = brandFree({
        chatBubbleType: 'WIDE',
        imageUrl: 'https://img.example.com/1.jpg',
        recvInfoLst,
      });
      await expectAccepted(send('/msgr/brand/custom/v1', body, early, earlyToken));
      await early.advance(REPORT_DELAY_MS);

      const report = await reportOf(early, earlyToken, recvInfoLst[0]?.cliKey ?? '');

      expect(report).toMatchObject({ productCode: 'KFRM3' });
    });

    it('from 2026-01-01 00:00 KST the same sends report BRDF (targeting I) and BRDNF', async () => {
      await early.advance(Date.parse('2026-01-01T00:00:00+09:00') - early.clock.now());
      ({ token: earlyToken } = await authenticate(early, credentials));
      const friends = recipients(1);
      const others = recipients(1);
      await expectAccepted(
        send('/msgr/brand/tmplt/v1', brandTemplate({ recvInfoLst: friends }), early, earlyToken),
      );
      await expectAccepted(
        send(
          '/msgr/brand/tmplt/v1',
          brandTemplate({ targeting: 'M', recvInfoLst: others }),
          early,
          earlyToken,
        ),
      );

      expect(await statusOf(friends[0]?.cliKey ?? '', early, earlyToken)).toMatchObject({
        productCode: 'BRDF',
      });
      expect(await statusOf(others[0]?.cliKey ?? '', early, earlyToken)).toMatchObject({
        productCode: 'BRDNF',
      });
    });
  });
});
