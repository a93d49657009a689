import { describe, expect, it } from 'vitest';
import {
  jsonPath,
  type Problem,
  type SendMessage,
  sendEndpointFor,
} from '../../functions/sending/queue-message.ts';
import { sendMessageJsonSchema } from '../../functions/sending/queue-message-json-schema.ts';
import { parseSendMessage } from '../../functions/sending/queue-message-parsing.ts';
import {
  RecipientSelectionError,
  recipientsOf,
  withRecipients,
} from '../../functions/sending/queue-message-recipients.ts';
import { EXAMPLES_VALID_AT, SEND_MESSAGE_EXAMPLES } from '../../producer/examples.ts';

/** 2026-12-01 09:00 KST. */
const NOW = new Date('2026-12-01T00:00:00.000Z');

const problemsOf = (input: unknown, now = NOW): Problem[] => {
  const result = parseSendMessage(input, { now });
  return result.ok ? [] : result.problems;
};

const parsed = (input: unknown): SendMessage => {
  const result = parseSendMessage(input, { now: NOW });
  if (!result.ok) throw new Error(`expected a valid message: ${JSON.stringify(result.problems)}`);
  return result.message;
};

const recipients = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: `r-${index}`,
    phone: `0101234${String(5000 + index)}`,
    ...extra,
  }));

const rcsButton = (url = 'https://example.com/orders') => ({
  suggestions: [
    {
      action: {
        displayText: '주문 보기',
        postback: { data: 'set_by_chatbot_open_url' },
        urlAction: { openUrl: { url } },
      },
    },
  ],
});

const noticeButton = (index: number) => ({
  name: `버튼 ${index}`,
  type: 'WL',
  url_mobile: 'https://example.com/m',
});

const brandButton = (index: number) => ({
  name: `버튼 ${index}`,
  type: 'WL',
  linkMobile: 'https://example.com/m',
});

const sms = {
  channel: 'sms',
  callback: '0212345678',
  msg: '주문 안내',
  recvInfoLst: recipients(1),
};
const mms = {
  channel: 'mms',
  callback: '0212345678',
  title: '주문 안내',
  msg: '주문이 접수되었습니다.',
  recvInfoLst: recipients(1),
};
const rcs = (variant: string) => ({
  channel: 'rcs',
  variant,
  messagebaseId: 'SS000000',
  callback: '0212345678',
  header: '0',
  recvInfoLst: recipients(1),
});
const rcsReply = {
  channel: 'rcs-reply',
  replyId: 'reply-1',
  cliKey: 'bi-1',
  messagebaseId: 'SS000000',
  chatbotId: '0212345678',
  telco: 'SKT',
  phone: '01012345678',
  body: { description: '문의 감사합니다' },
  header: '0',
};
const push = {
  channel: 'push',
  callback: '0212345678',
  appId: 'app-1',
  clickUrlYn: 'N',
  msg: { title: '알림', body: '배송이 시작되었습니다' },
  recvInfoLst: [{ cliKey: 'p-0', cuid: 'user-0' }],
};
const notice = {
  channel: 'messenger-notice',
  callback: '0212345678',
  msgrChId: '@shop',
  tmpltCode: 'T1',
  msg: '주문이 완료되었습니다.',
  recvInfoLst: recipients(1),
};
const brandTemplate = {
  channel: 'brand-template',
  targeting: 'I',
  msgrChId: '@shop',
  tmpltCode: 'B1',
  chatBubbleType: 'TEXT',
  callback: '0212345678',
  recvInfoLst: recipients(1),
};
const brandFree = {
  channel: 'brand-free',
  targeting: 'I',
  msgrChId: '@shop',
  chatBubbleType: 'TEXT',
  callback: '0212345678',
  content: '신상품 안내',
  recvInfoLst: recipients(1),
};
const brandWide = {
  ...brandFree,
  chatBubbleType: 'WIDE',
  imageUrl: 'https://cdn.example.com/w.jpg',
};
const brandWideItems = {
  ...brandFree,
  chatBubbleType: 'WIDE_ITEM_LIST',
  content: undefined,
  header: '이번 주 추천',
};
const wideItems = (count: number) => Array.from({ length: count }, (_, i) => ({ title: `${i}` }));

const scheduled = (resvReqDt: string) => ({ ...sms, resvYn: 'Y', resvReqDt });
const withCliKey = (cliKey: string) => ({
  ...sms,
  recvInfoLst: [{ cliKey, phone: '01012345678' }],
});

interface Case {
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** `undefined`: valid. Otherwise the path and a pattern of the message expected there. */
  readonly problem?: { readonly path: string; readonly message: RegExp };
}

const valid = (name: string, input: Record<string, unknown>): Case => ({ name, input });
const invalid = (
  name: string,
  input: Record<string, unknown>,
  path: string,
  message: RegExp,
): Case => ({ name, input, problem: { path, message } });

const CASES: readonly Case[] = [
  // SMS msg: 90 bytes, Hangul 2 bytes each (spec 01 §8; field notes)
  valid('SMS msg of 45 Hangul (90 bytes)', { ...sms, msg: '가'.repeat(45) }),
  valid('SMS msg of 44 Hangul + 1 ASCII (89 bytes)', { ...sms, msg: `${'가'.repeat(44)}a` }),
  invalid('SMS msg of 91 bytes', { ...sms, msg: `${'가'.repeat(45)}a` }, '$.msg', /91 bytes/),
  invalid('emoji in SMS', { ...sms, msg: '배송 완료 😀' }, '$.msg', /outside CP949.*U\+1F600/),
  // MMS msg 2000 bytes, title 40 bytes
  valid('MMS msg of 2000 bytes', { ...mms, msg: '가'.repeat(1000) }),
  valid('MMS msg of 1999 bytes', { ...mms, msg: `${'가'.repeat(999)}a` }),
  invalid('MMS msg of 2001 bytes', { ...mms, msg: `${'가'.repeat(1000)}a` }, '$.msg', /2001/),
  valid('MMS title of 40 bytes', { ...mms, title: '가'.repeat(20) }),
  valid('MMS title of 39 bytes', { ...mms, title: `${'가'.repeat(19)}a` }),
  invalid('MMS title of 41 bytes', { ...mms, title: `${'가'.repeat(20)}a` }, '$.title', /41/),
  // recipients 10 (spec 01 §8)
  valid('10 recipients', { ...sms, recvInfoLst: recipients(10) }),
  valid('9 recipients', { ...sms, recvInfoLst: recipients(9) }),
  invalid('11 recipients', { ...sms, recvInfoLst: recipients(11) }, '$.recvInfoLst', /10/),
  invalid('no recipients', { ...sms, recvInfoLst: [] }, '$.recvInfoLst', /at least one/),
  // notification msg 1000 characters
  valid('notification msg of 1000 chars', { ...notice, msg: '가'.repeat(1000) }),
  valid('notification msg of 999 chars', { ...notice, msg: '가'.repeat(999) }),
  invalid('notification msg of 1001', { ...notice, msg: '가'.repeat(1001) }, '$.msg', /1001/),
  // push msg 2000 characters (title and body together), ext 1000 bytes
  valid('push msg of 2000 chars', { ...push, msg: { title: 'T', body: 'b'.repeat(1999) } }),
  valid('push msg of 1999 chars', { ...push, msg: { title: 'T', body: 'b'.repeat(1998) } }),
  invalid(
    'push msg of 2001 chars',
    { ...push, msg: { title: 'T', body: 'b'.repeat(2000) } },
    '$.msg.body',
    /2001 characters/,
  ),
  // {"k":"…"} is 8 bytes plus the value
  valid('push ext of 1000 bytes', { ...push, ext: { k: 'x'.repeat(992) } }),
  valid('push ext of 999 bytes', { ...push, ext: { k: 'x'.repeat(991) } }),
  invalid('push ext of 1001 bytes', { ...push, ext: { k: 'x'.repeat(993) } }, '$.ext', /1001/),
  // notification buttons 5
  valid('5 notification buttons', { ...notice, buttons: [1, 2, 3, 4, 5].map(noticeButton) }),
  valid('4 notification buttons', { ...notice, buttons: [1, 2, 3, 4].map(noticeButton) }),
  invalid(
    '6 notification buttons',
    { ...notice, buttons: [1, 2, 3, 4, 5, 6].map(noticeButton) },
    '$.buttons',
    /at most 5/,
  ),
  // RCS buttons 4
  valid('4 RCS buttons', { ...rcs('v1.1'), buttons: [1, 2, 3, 4].map(() => rcsButton()) }),
  valid('3 RCS buttons', { ...rcs('v1.1'), buttons: [1, 2, 3].map(() => rcsButton()) }),
  invalid(
    '5 RCS buttons',
    { ...rcs('v1.1'), buttons: [1, 2, 3, 4, 5].map(() => rcsButton()) },
    '$.buttons',
    /at most 4/,
  ),
  // brand free buttons per bubble type: TEXT 5 (4 with a coupon), WIDE 2, carousels none
  valid('5 TEXT brand buttons', { ...brandFree, buttons: [1, 2, 3, 4, 5].map(brandButton) }),
  invalid(
    '6 TEXT brand buttons',
    { ...brandFree, buttons: [1, 2, 3, 4, 5, 6].map(brandButton) },
    '$.buttons',
    /at most 5 buttons; got 6/,
  ),
  valid('4 TEXT brand buttons with a coupon', {
    ...brandFree,
    coupon: { title: '할인 쿠폰' },
    buttons: [1, 2, 3, 4].map(brandButton),
  }),
  invalid(
    '5 TEXT brand buttons with a coupon',
    { ...brandFree, coupon: { title: '할인 쿠폰' }, buttons: [1, 2, 3, 4, 5].map(brandButton) },
    '$.buttons',
    /at most 4 buttons with a coupon/,
  ),
  valid('2 WIDE brand buttons', { ...brandWide, buttons: [1, 2].map(brandButton) }),
  invalid(
    '3 WIDE brand buttons',
    { ...brandWide, buttons: [1, 2, 3].map(brandButton) },
    '$.buttons',
    /at most 2/,
  ),
  // brand free content: TEXT/IMAGE 1300, WIDE 76 characters
  valid('TEXT content of 1300 chars', { ...brandFree, content: '가'.repeat(1300) }),
  valid('TEXT content of 1299 chars', { ...brandFree, content: '가'.repeat(1299) }),
  invalid(
    'TEXT content of 1301 chars',
    { ...brandFree, content: '가'.repeat(1301) },
    '$.content',
    /1301 characters; max 1300/,
  ),
  valid('IMAGE content of 1300 chars', {
    ...brandFree,
    chatBubbleType: 'IMAGE',
    imageUrl: 'https://cdn.example.com/i.jpg',
    content: '가'.repeat(1300),
  }),
  invalid(
    'IMAGE content of 1301 chars',
    {
      ...brandFree,
      chatBubbleType: 'IMAGE',
      imageUrl: 'https://cdn.example.com/i.jpg',
      content: '가'.repeat(1301),
    },
    '$.content',
    /max 1300/,
  ),
  valid('WIDE content of 76 chars', { ...brandWide, content: '가'.repeat(76) }),
  valid('WIDE content of 75 chars', { ...brandWide, content: '가'.repeat(75) }),
  invalid(
    'WIDE content of 77 chars',
    { ...brandWide, content: '가'.repeat(77) },
    '$.content',
    /77 characters; max 76/,
  ),
  // wide item list: exactly 3
  valid('wide item list of 3', { ...brandWideItems, wideItemList: wideItems(3) }),
  invalid(
    'wide item list of 2',
    { ...brandWideItems, wideItemList: wideItems(2) },
    '$.wideItemList',
    /exactly 3/,
  ),
  invalid(
    'wide item list of 4',
    { ...brandWideItems, wideItemList: wideItems(4) },
    '$.wideItemList',
    /exactly 3/,
  ),
  // resvReqDt: after now, at most 30 days ahead (now is 2026-12-01 09:00 KST)
  valid('resvReqDt exactly 30 days ahead', scheduled('2026-12-31 09:00')),
  valid('resvReqDt 30 days less a minute ahead', scheduled('2026-12-31 08:59')),
  valid('resvReqDt one minute ahead', scheduled('2026-12-01 09:01')),
  invalid(
    'resvReqDt 30 days and a minute ahead',
    scheduled('2026-12-31 09:01'),
    '$.resvReqDt',
    /more than 30 days ahead; the latest allowed now is 2026-12-31 09:00 KST/,
  ),
  invalid('resvReqDt now', scheduled('2026-12-01 09:00'), '$.resvReqDt', /not in the future/),
  invalid('resvReqDt in the past', scheduled('2026-11-30 23:00'), '$.resvReqDt', /not in the/),
  invalid('resvReqDt not a date', scheduled('2026-12-32 09:00'), '$.resvReqDt', /not a real/),
  invalid('resvReqDt with seconds', scheduled('2026-12-02 09:00:00'), '$.resvReqDt', /HH:mm/),
  invalid('resvYn Y without resvReqDt', { ...sms, resvYn: 'Y' }, '$.resvReqDt', /required/),
  // cliKey: 1-30 of [a-zA-Z0-9-_.@], unique
  valid('cliKey of 30 chars', withCliKey('k'.repeat(30))),
  valid('cliKey of 29 chars', withCliKey('k'.repeat(29))),
  invalid('cliKey of 31 chars', withCliKey('k'.repeat(31)), '$.recvInfoLst[0].cliKey', /1-30/),
  valid('cliKey with every allowed sign', withCliKey('a-b_c.d@E9')),
  invalid('cliKey with a space', withCliKey('a b'), '$.recvInfoLst[0].cliKey', /letters/),
  invalid('cliKey with Hangul', withCliKey('주문1'), '$.recvInfoLst[0].cliKey', /letters/),
  invalid(
    'duplicate cliKey',
    { ...sms, recvInfoLst: [...recipients(2), { cliKey: 'r-0', phone: '01099998888' }] },
    '$.recvInfoLst[2].cliKey',
    /repeats recipient 0's/,
  ),
  // fallback: SMS or MMS, not the main channel, no repeats
  invalid(
    'SMS falling back to SMS',
    { ...sms, fbInfoLst: [{ ch: 'SMS', msg: '안내' }] },
    '$.fbInfoLst[0].ch',
    /cannot fall back to SMS/,
  ),
  invalid(
    'MMS falling back to MMS',
    { ...mms, fbInfoLst: [{ ch: 'MMS', title: '안내', msg: '안내' }] },
    '$.fbInfoLst[0].ch',
    /cannot fall back to MMS/,
  ),
  invalid(
    'repeated fallback channel',
    {
      ...rcs('v1.1'),
      fbInfoLst: [
        { ch: 'SMS', msg: '안내' },
        { ch: 'SMS', msg: '다시 안내' },
      ],
    },
    '$.fbInfoLst[1].ch',
    /repeated/,
  ),
  invalid(
    'fallback to a channel other than SMS/MMS',
    { ...notice, fbInfoLst: [{ ch: 'RCS', msg: '안내' }] },
    '$.fbInfoLst[0].ch',
    /SMS or MMS/,
  ),
  valid('RCS falling back to SMS then MMS', {
    ...rcs('v1'),
    fbInfoLst: [
      { ch: 'SMS', msg: '안내' },
      { ch: 'MMS', title: '안내', msg: '긴 안내' },
    ],
  }),
  // RCS advertising and variants
  invalid('RCS header 1 without footer', { ...rcs('v1'), header: '1' }, '$.footer', /footer/),
  valid('RCS header 1 with footer', { ...rcs('v1'), header: '1', footer: '080-123-4567' }),
  invalid(
    'integrated RCS with header 1',
    { ...rcs('integrated'), header: '1' },
    '$.header',
    /header 0/,
  ),
  invalid(
    'integrated RCS with a footer',
    { ...rcs('integrated'), footer: '080-123-4567' },
    '$.footer',
    /not a field of the rcs \(variant integrated\)/,
  ),
  invalid('RCS v1 with brandId', { ...rcs('v1'), brandId: 'B1' }, '$.brandId', /not a field/),
  // template variables: #{name} and {{name}} in every recipient's mergeData
  invalid(
    '#{name} missing for recipient 2',
    {
      ...sms,
      msg: '#{name}님 안녕하세요',
      recvInfoLst: [
        { cliKey: 'a', phone: '01011112222', mergeData: { name: '김' } },
        { cliKey: 'b', phone: '01011112223', mergeData: { name: '이' } },
        { cliKey: 'c', phone: '01011112224', mergeData: { other: '박' } },
      ],
    },
    '$.recvInfoLst[2].mergeData',
    /recipient 2 has no mergeData "name" for #\{name\} used in \$\.msg/,
  ),
  invalid(
    '{{orderNo}} missing for recipient 2',
    {
      ...rcs('v1.1'),
      buttons: [rcsButton('https://example.com/orders/{{orderNo}}')],
      recvInfoLst: [
        { cliKey: 'a', phone: '01011112222', mergeData: { orderNo: '1' } },
        { cliKey: 'b', phone: '01011112223', mergeData: { orderNo: '2' } },
        { cliKey: 'c', phone: '01011112224' },
      ],
    },
    '$.recvInfoLst[2].mergeData',
    /recipient 2 has no mergeData "orderNo" for \{\{orderNo\}\} used in \$\.buttons\[0\]/,
  ),
  valid('#{name} present for every recipient', {
    ...notice,
    msg: '#{name}님, 주문 완료',
    recvInfoLst: recipients(3, { mergeData: { name: '김' } }),
  }),
  invalid(
    '#{name} in a fallback text',
    { ...rcs('v1'), fbInfoLst: [{ ch: 'SMS', msg: '#{name}님 안내' }] },
    '$.recvInfoLst[0].mergeData',
    /"name" for #\{name\} used in \$\.fbInfoLst\[0\]\.msg/,
  ),
  // text as filled in for each recipient
  invalid(
    'SMS over 90 bytes once #{name} is filled in',
    {
      ...sms,
      msg: `#{name}${'가'.repeat(40)}`,
      recvInfoLst: [{ cliKey: 'a', phone: '01011112222', mergeData: { name: '홍길동홍길동' } }],
    },
    '$.recvInfoLst[0].mergeData',
    /\$\.msg filled in for recipient 0: is 92 bytes/,
  ),
  invalid(
    'emoji in a value filled into SMS',
    {
      ...sms,
      msg: '#{name}님 안녕하세요',
      recvInfoLst: [{ cliKey: 'a', phone: '01011112222', mergeData: { name: '민지😀' } }],
    },
    '$.recvInfoLst[0].mergeData',
    /outside CP949/,
  ),
  // envelope
  invalid('unknown channel', { ...sms, channel: 'fax' }, '$.channel', /"fax" is not a channel/),
  invalid('missing channel', { ...sms, channel: undefined }, '$.channel', /is required/),
  invalid('missing rcs variant', { ...rcs('v1'), variant: undefined }, '$.variant', /required/),
  invalid('unknown rcs variant', rcs('v2'), '$.variant', /must be/),
  invalid('unknown sms variant', { ...sms, variant: 'lms' }, '$.variant', /"xms"/),
  invalid('variant on push', { ...push, variant: 'xms' }, '$.variant', /no variant/),
  invalid(
    'attachments with fileIdLst',
    { ...mms, attachments: [{ bucket: 'b', key: 'k.jpg' }], fileIdLst: ['F1'] },
    '$.fileIdLst',
    /either attachments .* or fileIdLst/,
  ),
  invalid(
    'attachments with variant msg',
    { ...mms, variant: 'msg', attachments: [{ bucket: 'b', key: 'k.jpg' }] },
    '$.variant',
    /no multipart path/,
  ),
  valid('3 attachments', {
    ...mms,
    attachments: [1, 2, 3].map((i) => ({ bucket: 'b', key: `${i}.jpg` })),
  }),
  invalid(
    '4 attachments',
    { ...mms, attachments: [1, 2, 3, 4].map((i) => ({ bucket: 'b', key: `${i}.jpg` })) },
    '$.attachments',
    /at most 3/,
  ),
  invalid('attachments on SMS', { ...sms, attachments: [] }, '$.attachments', /"mms" only/),
  invalid('a misspelt field', { ...sms, callBack: '02' }, '$.callBack', /not a field of the sms/),
  invalid('a missing field', { ...sms, callback: undefined }, '$.callback', /is required/),
  // every channel's minimal message
  valid('minimal sms', sms),
  valid('minimal mms', mms),
  valid('minimal rcs v1', rcs('v1')),
  valid('minimal rcs v1.1', rcs('v1.1')),
  valid('minimal rcs integrated', rcs('integrated')),
  valid('minimal rcs-reply', rcsReply),
  valid('minimal push', push),
  valid('minimal messenger-notice', notice),
  valid('minimal brand-template', brandTemplate),
  valid('minimal brand-free', brandFree),
];

describe('parseSendMessage: every channel and every limit', () => {
  it.each(CASES.filter((c) => c.problem === undefined))('accepts $name', ({ input }) => {
    // Act
    const problems = problemsOf(input);

    // Assess
    expect(problems).toEqual([]);
  });

  it.each(CASES.flatMap((c) => (c.problem === undefined ? [] : [{ ...c, problem: c.problem }])))(
    'refuses $name at $problem.path',
    ({ input, problem }) => {
      // Act
      const problems = problemsOf(input);

      // Assess
      expect(problems).toContainEqual({
        path: problem.path,
        message: expect.stringMatching(problem.message),
      });
    },
  );
});

describe('parseSendMessage: reporting', () => {
  it('reports every problem of a message at once, each at its JSON path', () => {
    // Prepare
    const input = {
      channel: 'sms',
      variant: 'lms',
      callback: '0212345678',
      msg: `#{name} ${'가'.repeat(45)}`,
      resvYn: 'Y',
      resvReqDt: '2027-02-01 10:00',
      recvInfoLst: [
        { cliKey: 'a', phone: '01011112222', mergeData: { name: '김' } },
        { cliKey: 'bad key', phone: '01011112223', mergeData: { name: '이' } },
        { cliKey: 'a', phone: 'x', mergeData: { name: '박' } },
        { cliKey: 'd', phone: '01011112224' },
      ],
      fbInfoLst: [{ ch: 'SMS', msg: '안내' }],
      extra: true,
    };

    // Act
    const problems = problemsOf(input);

    // Assess
    expect(problems.map((p) => p.path).sort()).toEqual(
      [
        '$.variant',
        '$.msg',
        '$.recvInfoLst[1].cliKey',
        '$.recvInfoLst[2].phone',
        '$.recvInfoLst[2].cliKey',
        '$.fbInfoLst[0].ch',
        '$.extra',
        '$.resvReqDt',
        '$.recvInfoLst[3].mergeData',
      ].sort(),
    );
  });

  it('checks the body of an rcs message without a readable variant against v1.1', () => {
    // Prepare
    const input = { ...rcs('v1'), variant: undefined, header: '1', callback: undefined };

    // Act
    const problems = problemsOf(input);

    // Assess
    expect(problems.map((p) => p.path)).toEqual(['$.variant', '$.callback']);
  });

  it('refuses anything but a JSON object at $', () => {
    for (const input of [null, 'sms', 42, [sms]]) {
      expect(problemsOf(input)).toEqual([
        { path: '$', message: 'a queue message is a JSON object' },
      ]);
    }
  });

  it('stops at an unknown channel: there is no request schema to check the rest with', () => {
    expect(problemsOf({ channel: 'fax', anything: 1 })).toEqual([
      { path: '$.channel', message: expect.stringContaining('"fax" is not a channel') },
    ]);
  });

  it('judges the scheduling horizon by the clock it is given', () => {
    // Prepare
    const input = scheduled('2027-01-10 09:00');

    // Act
    const early = problemsOf(input, NOW);
    const later = problemsOf(input, new Date('2026-12-20T00:00:00.000Z'));

    // Assess
    expect(early.map((p) => p.path)).toEqual(['$.resvReqDt']);
    expect(later).toEqual([]);
  });

  it('does not check the horizon of a malformed resvReqDt twice', () => {
    expect(problemsOf(scheduled('2020-01-01'))).toEqual([
      { path: '$.resvReqDt', message: 'expected YYYY-MM-DD HH:mm' },
    ]);
  });

  it('looks carousel commerce variables up as name_N, N the carousel number', () => {
    // Prepare
    const message = (mergeData: Record<string, string>) => ({
      ...brandFree,
      chatBubbleType: 'CAROUSEL_COMMERCE',
      content: undefined,
      carousel: {
        head: { header: '#{season} 특가' },
        list: [
          { commerce: { title: '#{product} 특가', regularPrice: 10000, discountPrice: 8000 } },
          { commerce: { title: '#{product} 세트', regularPrice: 20000, discountPrice: 15000 } },
        ],
      },
      recvInfoLst: [{ cliKey: 'a', phone: '01011112222', mergeData }],
    });

    // Act
    const complete = problemsOf(
      message({ season: '겨울', product_1: '장갑', product_2: '목도리' }),
    );
    const missing = problemsOf(message({ season: '겨울', product_1: '장갑', product: '목도리' }));

    // Assess
    expect(complete).toEqual([]);
    expect(missing).toEqual([
      {
        path: '$.recvInfoLst[0].mergeData',
        message:
          'recipient 0 has no mergeData "product_2" for #{product} used in $.carousel.list[1].commerce.title',
      },
    ]);
  });

  it('does not look for variables in a two-way reply, which has no mergeData', () => {
    expect(problemsOf({ ...rcsReply, body: { description: '{{name}}님 #{name}' } })).toEqual([]);
  });

  it('writes paths with brackets for keys that are not identifiers', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['recvInfoLst', 3, 'cliKey'])).toBe('$.recvInfoLst[3].cliKey');
    expect(jsonPath(['mergeData', 'a b'])).toBe('$.mergeData["a b"]');
  });
});

describe('parseSendMessage: the normalised message', () => {
  it('splits the envelope from the request body and fills in the default variant', () => {
    // Act
    const message = parsed({ ...mms, fileIdLst: ['F1'] });

    // Assess
    expect(message).toEqual({
      channel: 'mms',
      variant: 'xms',
      body: { ...mms, channel: undefined, fileIdLst: ['F1'] },
      attachments: [],
    });
    expect(Object.keys(message.body)).not.toContain('channel');
  });

  it('keeps the rcs variant and S3 attachments', () => {
    // Prepare
    const attachments = [{ bucket: 'b', key: 'poster.jpg', contentType: 'image/jpeg' }];

    // Act
    const rcsMessage = parsed(rcs('integrated'));
    const mmsMessage = parsed({ ...mms, attachments });

    // Assess
    expect(rcsMessage).toMatchObject({ channel: 'rcs', variant: 'integrated' });
    expect(Object.keys(rcsMessage.body)).not.toContain('variant');
    expect(mmsMessage).toMatchObject({ channel: 'mms', attachments });
    expect(Object.keys(mmsMessage.body)).not.toContain('attachments');
  });
});

describe('examples', () => {
  it.each(SEND_MESSAGE_EXAMPLES.map((example) => ({ ...example })))(
    '"$title" is valid',
    ({ message }) => {
      expect(problemsOf(message, EXAMPLES_VALID_AT)).toEqual([]);
    },
  );

  it('cover every channel and every rcs variant once', () => {
    // Act
    const covered = SEND_MESSAGE_EXAMPLES.map(({ message }) =>
      message.channel === 'rcs' ? `rcs ${message.variant}` : message.channel,
    );

    // Assess
    expect(covered.sort()).toEqual(
      [
        'sms',
        'mms',
        'rcs v1',
        'rcs v1.1',
        'rcs integrated',
        'rcs-reply',
        'push',
        'messenger-notice',
        'brand-template',
        'brand-free',
      ].sort(),
    );
  });

  it('include a scheduled message and fallbacks', () => {
    const messages = SEND_MESSAGE_EXAMPLES.map(({ message }) => message);

    expect(messages.some((m) => 'resvYn' in m && m.resvYn === 'Y')).toBe(true);
    expect(messages.filter((m) => 'fbInfoLst' in m && m.fbInfoLst !== undefined).length).toBe(5);
  });
});

describe('recipientsOf and withRecipients', () => {
  const three = parsed({
    ...sms,
    recvInfoLst: [
      { cliKey: 'a', phone: '01011112222' },
      { cliKey: 'b', phone: '01011112223', mergeData: { x: '1' } },
      { cliKey: 'c', phone: '01011112224' },
    ],
  });

  it('lists the recipients in order, and the single recipient of a two-way reply', () => {
    expect(recipientsOf(three)).toEqual([
      { cliKey: 'a', phone: '01011112222' },
      { cliKey: 'b', phone: '01011112223' },
      { cliKey: 'c', phone: '01011112224' },
    ]);
    expect(recipientsOf(parsed(rcsReply))).toEqual([{ cliKey: 'bi-1', phone: '01012345678' }]);
    expect(recipientsOf(parsed(push))).toEqual([{ cliKey: 'p-0' }]);
  });

  it('keeps only the selected recipients, in their original order, with everything else', () => {
    // Act
    const retry = withRecipients(three, ['c', 'b']);

    // Assess
    expect(retry).toEqual({
      ...three,
      body: {
        ...three.body,
        recvInfoLst: [
          { cliKey: 'b', phone: '01011112223', mergeData: { x: '1' } },
          { cliKey: 'c', phone: '01011112224' },
        ],
      },
    });
    expect(recipientsOf(three)).toHaveLength(3);
  });

  it('selects on every channel with a recipients list', () => {
    // Prepare
    const messages = [mms, rcs('v1.1'), push, notice, brandTemplate, brandFree].map((input) =>
      parsed({
        ...input,
        recvInfoLst:
          input.channel === 'push'
            ? [
                { cliKey: 'x', cuid: 'u1' },
                { cliKey: 'y', cuid: 'u2' },
              ]
            : recipients(2),
      }),
    );

    // Act
    const selected = messages.map((message) =>
      withRecipients(message, [recipientsOf(message)[1]?.cliKey ?? '']),
    );

    // Assess
    expect(selected.map((message) => recipientsOf(message).map((r) => r.cliKey))).toEqual([
      ['r-1'],
      ['r-1'],
      ['y'],
      ['r-1'],
      ['r-1'],
      ['r-1'],
    ]);
  });

  it('returns a two-way reply as it is when its cliKey is selected', () => {
    const reply = parsed(rcsReply);

    expect(withRecipients(reply, ['bi-1'])).toBe(reply);
  });

  it('refuses an empty selection and a cliKey the message does not have', () => {
    expect(() => withRecipients(three, [])).toThrow(RecipientSelectionError);
    expect(() => withRecipients(three, ['a', 'z'])).toThrow(/cliKeys not in the message: z/);
    expect(() => withRecipients(parsed(rcsReply), ['other'])).toThrow(RecipientSelectionError);
  });
});

describe('sendEndpointFor', () => {
  it.each([
    { input: sms, endpoint: 'sms' },
    { input: { ...sms, variant: 'xms' }, endpoint: 'sms' },
    { input: { ...sms, variant: 'msg' }, endpoint: 'smsLegacy' },
    { input: mms, endpoint: 'mms' },
    { input: { ...mms, variant: 'msg' }, endpoint: 'mmsLegacy' },
    { input: { ...mms, attachments: [{ bucket: 'b', key: 'k.jpg' }] }, endpoint: 'mmsMultipart' },
    { input: rcs('v1'), endpoint: 'rcsV1' },
    { input: rcs('v1.1'), endpoint: 'rcsV11' },
    { input: rcs('integrated'), endpoint: 'rcsIntegrated' },
    { input: rcsReply, endpoint: 'rcsReply' },
    { input: push, endpoint: 'push' },
    { input: notice, endpoint: 'messengerNotice' },
    { input: brandTemplate, endpoint: 'brandTemplate' },
    { input: brandFree, endpoint: 'brandFree' },
  ])('sends $input.channel ($input.variant) to $endpoint', ({ input, endpoint }) => {
    expect(sendEndpointFor(parsed(input))).toBe(endpoint);
  });
});

describe('sendMessageJsonSchema', () => {
  const schema = sendMessageJsonSchema();
  const branchKey = (branch: { properties?: Record<string, unknown> }): string => {
    const properties = branch.properties ?? {};
    const channel = (properties.channel as { const?: string } | undefined)?.const;
    const variant = (properties.variant as { const?: string } | undefined)?.const;
    return variant === undefined ? `${channel}` : `${channel} ${variant}`;
  };

  it('is draft 2020-12 with one oneOf branch per channel and rcs variant', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.oneOf.map(branchKey)).toEqual([
      'sms',
      'mms',
      'rcs v1',
      'rcs v1.1',
      'rcs integrated',
      'rcs-reply',
      'push',
      'messenger-notice',
      'brand-template',
      'brand-free',
    ]);
  });

  it('requires channel everywhere and variant for rcs only; declares no nested dialect', () => {
    for (const branch of schema.oneOf) {
      expect(branch.required).toContain('channel');
      expect(branch.required?.includes('variant')).toBe(branchKey(branch).startsWith('rcs '));
      expect(branch.additionalProperties).toBe(false);
    }
    expect(JSON.stringify(schema.oneOf)).not.toContain('$schema');
  });

  it.each(SEND_MESSAGE_EXAMPLES.map((example) => ({ ...example })))(
    '"$title" fits its branch: required fields present, no field the branch lacks',
    ({ message }) => {
      // Prepare
      const key =
        message.channel === 'rcs' ? `${message.channel} ${message.variant}` : message.channel;

      // Act
      const matching = schema.oneOf.filter((branch) => branchKey(branch) === key);

      // Assess
      expect(matching).toHaveLength(1);
      const branch = matching[0];
      expect(Object.keys(branch?.properties ?? {})).toEqual(
        expect.arrayContaining(Object.keys(message)),
      );
      expect(Object.keys(message)).toEqual(expect.arrayContaining(branch?.required ?? []));
    },
  );

  it('forbids attachments together with fileIdLst in the mms branch', () => {
    const mmsBranch = schema.oneOf.find((branch) => branchKey(branch) === 'mms');

    expect(mmsBranch?.not).toEqual({ required: ['attachments', 'fileIdLst'] });
  });
});
