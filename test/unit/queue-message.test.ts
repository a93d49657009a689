import { describe, expect, it } from 'vitest';
import {
  brandFree,
  brandTemplate,
  type Case,
  mms,
  notice,
  problemsOf,
  push,
  rcs,
  rcsReply,
  recipients,
  scheduled,
  sms,
  valid,
} from '../support/queue-message-inputs.ts';

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

const withCliKey = (cliKey: string) => ({
  ...sms,
  recvInfoLst: [{ cliKey, phone: '01012345678' }],
});

const invalid = (
  name: string,
  input: Record<string, unknown>,
  path: string,
  message: RegExp,
): Case => ({ name, input, problem: { path, message } });

/** Brand free `content` of `max` and `max - 1` characters valid, of `max + 1` refused. */
const contentOfAtMost = (bubble: string, input: Record<string, unknown>, max: number): Case[] => {
  const content = (length: number) => ({ ...input, content: '가'.repeat(length) });
  return [
    valid(`${bubble} content of ${max} chars`, content(max)),
    valid(`${bubble} content of ${max - 1} chars`, content(max - 1)),
    invalid(
      `${bubble} content of ${max + 1} chars`,
      content(max + 1),
      '$.content',
      new RegExp(`${max + 1} characters; max ${max}`),
    ),
  ];
};

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
  ...contentOfAtMost('TEXT', brandFree, 1300),
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
  ...contentOfAtMost('WIDE', brandWide, 76),
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
