import { describe, expect, it } from 'vitest';
import {
  BrandFreeRequestSchema,
  BrandTemplateRequestSchema,
  MessengerNoticeRequestSchema,
  MmsMultipartRequestSchema,
  MmsRequestSchema,
  PushRequestSchema,
  RcsIntegratedRequestSchema,
  RcsReplyRequestSchema,
  RcsReplyResultItemSchema,
  RcsV1RequestSchema,
  RcsV11RequestSchema,
  SEND_ENDPOINTS,
  SmsRequestSchema,
} from '../../functions/commons/gateway/schemas/index.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

const recipient = (i: number) => ({ cliKey: `order-${i}`, phone: `010-1234-${1000 + i}` });
const recipients = (count: number) => Array.from({ length: count }, (_, i) => recipient(i));

const openUrlButton = (label: string) => ({
  suggestions: [
    {
      action: {
        displayText: label,
        postback: { data: 'set_by_chatbot_open_url' },
        urlAction: { openUrl: { url: 'https://example.com' } },
      },
    },
  ],
});

describe('SmsRequestSchema', () => {
  const sms = {
    callback: '0212345678',
    msg: '[msgbridge] 주문이 접수되었습니다.',
    recvInfoLst: [recipient(0)],
  };

  it('accepts a request using every documented field', () => {
    // Prepare
    const input = {
      ...sms,
      clickUrlYn: 'N',
      resvYn: 'Y',
      resvReqDt: '2025-03-01 09:30',
      agency: { kisaOrigCode: 'K123' },
      campaignId: 'spring',
      deptCode: 'sales',
      recvInfoLst: [{ ...recipient(0), mergeData: { name: '홍길동' }, userCustomFields: { a: 1 } }],
      fbInfoLst: [{ ch: 'MMS', title: '안내', msg: '긴 안내문' }],
    };

    // Act
    const result = SmsRequestSchema.safeParse(input);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(input);
  });

  it('counts Hangul as 2 bytes: 45 syllables pass, 46 (92 bytes) fail at msg', () => {
    // Prepare
    const at90 = { ...sms, msg: '가'.repeat(45) };
    const at92 = { ...sms, msg: '가'.repeat(46) };

    // Act
    const issues90 = issuesOf(SmsRequestSchema, at90);
    const issues92 = issuesOf(SmsRequestSchema, at92);

    // Assess
    expect(issues90).toEqual([]);
    expect(issues92).toEqual([
      { path: 'msg', code: 'custom', message: expect.stringMatching(/92 bytes.*90/) },
    ]);
  });

  it('refuses an emoji and names it', () => {
    expect(issuesOf(SmsRequestSchema, { ...sms, msg: '배송 완료 😀' })).toEqual([
      { path: 'msg', code: 'custom', message: expect.stringContaining('"😀" (U+1F600)') },
    ]);
  });

  it('refuses 11 recipients at recvInfoLst', () => {
    expect(issuesOf(SmsRequestSchema, { ...sms, recvInfoLst: recipients(11) })).toEqual([
      expect.objectContaining({ path: 'recvInfoLst', code: 'too_big' }),
    ]);
  });

  it('names a bad cliKey by its recipient index', () => {
    // Prepare
    const list = recipients(5);
    list[3] = { ...recipient(3), cliKey: 'order#3' };

    // Act
    const issues = issuesOf(SmsRequestSchema, { ...sms, recvInfoLst: list });

    // Assess
    expect(issues).toEqual([expect.objectContaining({ path: 'recvInfoLst.3.cliKey' })]);
  });

  it('refuses a cliKey used twice in one request', () => {
    const list = [recipient(0), recipient(1), { ...recipient(2), cliKey: 'order-1' }];

    expect(pathsOf(SmsRequestSchema, { ...sms, recvInfoLst: list })).toEqual([
      'recvInfoLst.2.cliKey',
    ]);
  });

  it('refuses a fallback to SMS itself', () => {
    const input = { ...sms, fbInfoLst: [{ ch: 'SMS', msg: 'again' }] };

    expect(issuesOf(SmsRequestSchema, input)).toEqual([
      {
        path: 'fbInfoLst.0.ch',
        code: 'custom',
        message: expect.stringContaining('cannot fall back to SMS'),
      },
    ]);
  });

  it('requires resvReqDt when resvYn is Y', () => {
    expect(pathsOf(SmsRequestSchema, { ...sms, resvYn: 'Y' })).toEqual(['resvReqDt']);
  });

  it('refuses a misspelt field instead of dropping it', () => {
    expect(issuesOf(SmsRequestSchema, { ...sms, callBack: '0212345678' })).toEqual([
      expect.objectContaining({
        path: '',
        code: 'unrecognized_keys',
        message: expect.stringContaining('callBack'),
      }),
    ]);
  });

  it('refuses a callback over 20 characters and a Y/N flag written otherwise', () => {
    expect(pathsOf(SmsRequestSchema, { ...sms, callback: '1'.repeat(21) })).toEqual(['callback']);
    expect(pathsOf(SmsRequestSchema, { ...sms, clickUrlYn: 'yes' })).toEqual(['clickUrlYn']);
  });
});

describe('MmsRequestSchema and MmsMultipartRequestSchema', () => {
  const mms = {
    callback: '0212345678',
    title: '봄맞이 안내',
    msg: '안녕하세요.\n봄맞이 행사를 안내드립니다.',
    recvInfoLst: [recipient(0)],
  };

  it('accepts a JSON MMS with three file ids and an SMS fallback', () => {
    const input = {
      ...mms,
      fileIdLst: ['F1', 'F2', 'F3'],
      fbInfoLst: [{ ch: 'SMS', msg: '행사 안내' }],
    };

    expect(MmsRequestSchema.parse(input)).toEqual(input);
  });

  it('refuses a 41-byte title (20 Hangul + 1 ASCII)', () => {
    expect(issuesOf(MmsRequestSchema, { ...mms, title: `${'가'.repeat(20)}A` })).toEqual([
      { path: 'title', code: 'custom', message: expect.stringContaining('41 bytes') },
    ]);
  });

  it('allows 2000 bytes of text and refuses 2001', () => {
    expect(pathsOf(MmsRequestSchema, { ...mms, msg: '가'.repeat(1000) })).toEqual([]);
    expect(pathsOf(MmsRequestSchema, { ...mms, msg: `${'가'.repeat(1000)}!` })).toEqual(['msg']);
  });

  it('refuses a fourth file id', () => {
    expect(issuesOf(MmsRequestSchema, { ...mms, fileIdLst: ['1', '2', '3', '4'] })).toEqual([
      expect.objectContaining({ path: 'fileIdLst', code: 'too_big' }),
    ]);
  });

  it('refuses a fallback to MMS itself, even with a title', () => {
    const input = { ...mms, fbInfoLst: [{ ch: 'MMS', title: 't', msg: 'm' }] };

    expect(pathsOf(MmsRequestSchema, input)).toEqual(['fbInfoLst.0.ch']);
  });

  it('takes the multipart reqMsg without file ids', () => {
    expect(MmsMultipartRequestSchema.parse(mms)).toEqual(mms);
    expect(issuesOf(MmsMultipartRequestSchema, { ...mms, fileIdLst: ['F1'] })).toEqual([
      expect.objectContaining({
        code: 'unrecognized_keys',
        message: expect.stringContaining('fileIdLst'),
      }),
    ]);
  });
});

describe('RCS requests', () => {
  const rcs = {
    messagebaseId: 'SS000000',
    callback: '0212345678',
    header: '0',
    recvInfoLst: [{ ...recipient(0), mergeData: { description: '주문 완료' } }],
  };

  it('RcsV1RequestSchema accepts an advertising message with footer, buttons and fallbacks', () => {
    // Prepare
    const input = {
      ...rcs,
      header: '1',
      footer: '080-123-4567',
      copyAllowed: true,
      clickUrlYn: 'N',
      expiryOption: '1',
      buttons: [openUrlButton('Open')],
      fbInfoLst: [
        { ch: 'SMS', msg: '(광고) 봄 행사' },
        { ch: 'MMS', title: '(광고)', msg: '봄 행사 안내' },
      ],
    };

    // Act
    const parsed = RcsV1RequestSchema.parse(input);

    // Assess
    expect(parsed).toEqual(input);
  });

  it('RcsV1RequestSchema has no brand fields', () => {
    expect(issuesOf(RcsV1RequestSchema, { ...rcs, brandId: 'BR1' })).toEqual([
      expect.objectContaining({
        code: 'unrecognized_keys',
        message: expect.stringContaining('brandId'),
      }),
    ]);
  });

  it('requires footer on an advertising message (header 1)', () => {
    expect(issuesOf(RcsV1RequestSchema, { ...rcs, header: '1' })).toEqual([
      { path: 'footer', code: 'custom', message: expect.stringContaining('header 1') },
    ]);
    expect(pathsOf(RcsV11RequestSchema, { ...rcs, header: '1' })).toEqual(['footer']);
  });

  it('refuses a fifth button', () => {
    const buttons = ['a', 'b', 'c', 'd', 'e'].map(openUrlButton);

    expect(issuesOf(RcsV11RequestSchema, { ...rcs, buttons })).toEqual([
      expect.objectContaining({ path: 'buttons', code: 'too_big' }),
    ]);
  });

  it('refuses the same fallback channel twice', () => {
    const input = {
      ...rcs,
      fbInfoLst: [
        { ch: 'SMS', msg: 'one' },
        { ch: 'SMS', msg: 'two' },
      ],
    };

    expect(issuesOf(RcsV11RequestSchema, input)).toEqual([
      { path: 'fbInfoLst.1.ch', code: 'custom', message: expect.stringContaining('repeated') },
    ]);
  });

  it('RcsV11RequestSchema accepts brand fields and requires them for agencies', () => {
    const brand = { brandId: 'BR1', brandKey: 'BK1', productCode: 'CHAT' };
    const agency = { rcsAgencyId: 'AG1', rcsAgencyKey: 'AK1' };

    expect(RcsV11RequestSchema.parse({ ...rcs, ...brand, agency })).toMatchObject(brand);
    expect(
      pathsOf(RcsV11RequestSchema, { ...rcs, agency, brandId: 'BR1', productCode: 'CHAT' }),
    ).toEqual(['brandKey']);
  });

  it('RcsIntegratedRequestSchema accepts an informational message', () => {
    const input = { ...rcs, brandId: 'BR1', buttons: [openUrlButton('Open')] };

    expect(RcsIntegratedRequestSchema.parse(input)).toEqual(input);
  });

  it('RcsIntegratedRequestSchema refuses header 1', () => {
    expect(issuesOf(RcsIntegratedRequestSchema, { ...rcs, header: '1' })).toEqual([
      {
        path: 'header',
        code: 'invalid_value',
        message: expect.stringContaining('accepts header 0'),
      },
    ]);
  });

  it.each(['footer', 'copyAllowed', 'clickUrlYn'])(
    'RcsIntegratedRequestSchema refuses %s',
    (key) => {
      const value = key === 'copyAllowed' ? true : key === 'clickUrlYn' ? 'N' : '080-123-4567';

      expect(issuesOf(RcsIntegratedRequestSchema, { ...rcs, [key]: value })).toEqual([
        expect.objectContaining({
          code: 'unrecognized_keys',
          message: expect.stringContaining(key),
        }),
      ]);
    },
  );

  it('names an invalid nested button action by its full path', () => {
    const buttons = [
      openUrlButton('ok'),
      {
        suggestions: [
          { action: { displayText: 'x', postback: { data: 'set_by_chatbot_copy_to_clipboard' } } },
        ],
      },
    ];

    expect(pathsOf(RcsV11RequestSchema, { ...rcs, buttons })).toEqual([
      'buttons.1.suggestions.0.action.clipboardAction',
    ]);
  });
});

describe('RcsReplyRequestSchema', () => {
  const reply = {
    replyId: 'R-1',
    cliKey: 'reply-1',
    messagebaseId: 'SS000000',
    chatbotId: '0212345678',
    telco: 'SKT',
    phone: '01012345678',
    body: { description: '문의 주셔서 감사합니다.', title: '답변' },
    header: '0',
    buttons: [openUrlButton('Open')],
    chipList: [openUrlButton('Chip')],
  };

  it('accepts a reply with card variables, buttons and chips', () => {
    expect(RcsReplyRequestSchema.parse(reply)).toEqual(reply);
  });

  it('has no fallback and no scheduling', () => {
    const issues = issuesOf(RcsReplyRequestSchema, {
      ...reply,
      fbInfoLst: [{ ch: 'SMS', msg: 'x' }],
      resvYn: 'N',
    });

    expect(issues).toEqual([
      expect.objectContaining({
        code: 'unrecognized_keys',
        message: expect.stringMatching(/fbInfoLst.*resvYn/),
      }),
    ]);
  });

  it('limits cliKey to 20, requires body.description and footer with header 1', () => {
    expect(pathsOf(RcsReplyRequestSchema, { ...reply, cliKey: 'k'.repeat(21) })).toEqual([
      'cliKey',
    ]);
    expect(pathsOf(RcsReplyRequestSchema, { ...reply, body: { media: 'maapfile://F1' } })).toEqual([
      'body.description',
    ]);
    expect(pathsOf(RcsReplyRequestSchema, { ...reply, header: '1' })).toEqual(['footer']);
  });

  it('reads reply results with replyId and chatbotId instead of phone', () => {
    const data = [
      {
        cliKey: 'reply-1',
        msgKey: 'M1',
        replyId: 'R-1',
        chatbotId: 'C1',
        code: '10000',
        message: 'ok',
      },
    ];

    expect(data.map((item) => RcsReplyResultItemSchema.parse(item))).toEqual(data);
    expect(RcsReplyResultItemSchema.safeParse({ cliKey: 'reply-1' }).success).toBe(false);
  });
});

describe('PushRequestSchema', () => {
  const push = {
    callback: '0212345678',
    appId: 'com.example.app',
    msg: { title: '주문 안내', body: '#{name}님, 주문이 접수되었습니다.' },
    ext: { imageUrl: 'https://example.com/a.png', orderId: '42' },
    recvInfoLst: [
      { cliKey: 'push-1', cuid: 'user-1', phone: '01012345678', mergeData: { name: '홍길동' } },
    ],
    fbInfoLst: [{ ch: 'SMS', msg: '주문이 접수되었습니다.' }],
    clickUrlYn: 'N',
  };

  it('accepts a push with ext, fallback and a fallback phone', () => {
    expect(PushRequestSchema.parse(push)).toEqual(push);
  });

  it('requires cuid on every recipient', () => {
    const input = { ...push, recvInfoLst: [{ cliKey: 'push-1', phone: '01012345678' }] };

    expect(pathsOf(PushRequestSchema, input)).toEqual(['recvInfoLst.0.cuid']);
  });

  it('takes a recipient without phone, unless there is a fallback', () => {
    const noPhone = [{ cliKey: 'push-1', cuid: 'user-1' }];

    expect(
      pathsOf(PushRequestSchema, { ...push, recvInfoLst: noPhone, fbInfoLst: undefined }),
    ).toEqual([]);
    expect(pathsOf(PushRequestSchema, { ...push, recvInfoLst: noPhone })).toEqual([
      'recvInfoLst.0.phone',
    ]);
  });

  it('requires clickUrlYn', () => {
    const { clickUrlYn: _, ...withoutFlag } = push;

    expect(pathsOf(PushRequestSchema, withoutFlag)).toEqual(['clickUrlYn']);
  });

  it('refuses ext over 1000 bytes of UTF-8 JSON', () => {
    // Prepare: {"k":"…"} is 8 bytes of JSON around the value; each Hangul is 3 UTF-8 bytes.
    const fits = { k: 'a'.repeat(992) };
    const over = { k: '가'.repeat(331) };

    // Act
    const fitsIssues = issuesOf(PushRequestSchema, { ...push, ext: fits });
    const overIssues = issuesOf(PushRequestSchema, { ...push, ext: over });

    // Assess
    expect(fitsIssues).toEqual([]);
    expect(overIssues).toEqual([
      { path: 'ext', code: 'custom', message: expect.stringContaining('1001 bytes') },
    ]);
  });

  it('holds title and body together to 2000 characters', () => {
    const msg = { title: '가'.repeat(1000), body: '나'.repeat(1001) };

    expect(pathsOf(PushRequestSchema, { ...push, msg })).toEqual(['msg.body']);
  });
});

describe('MessengerNoticeRequestSchema', () => {
  const notice = {
    callback: '0212345678',
    msgrChId: '@msgbridge',
    tmpltCode: 'ORDER_001',
    msg: '#{name}님, 주문이 접수되었습니다.',
    title: '주문 접수',
    item: {
      list: [
        { title: '상품', description: '봄 셔츠' },
        { title: '수량', description: '2' },
      ],
      summary: { title: '합계', description: '#{price}원' },
    },
    recvInfoLst: [{ ...recipient(0), mergeData: { name: '홍길동', price: '39,000' } }],
    fbInfoLst: [{ ch: 'SMS', msg: '주문이 접수되었습니다.' }],
    buttons: [
      { name: '채널 추가', type: 'AC' },
      {
        name: '주문 보기',
        type: 'WL',
        url_mobile: 'https://m.example.com',
        url_pc: 'https://example.com',
      },
      { name: '앱 열기', type: 'AL', linkIos: 'app://o', linkAnd: 'app://o' },
      { name: '상담', type: 'BC', chat_extra: 'order=42' },
      { name: '봇', type: 'BT', chat_extra: 'x', chat_event: 'y', msgrBtnOutbrowserYn: 'true' },
    ],
  };

  it('accepts a notice with item list, summary and five buttons', () => {
    expect(MessengerNoticeRequestSchema.parse(notice)).toEqual(notice);
  });

  it('refuses an AL button with only one link', () => {
    const buttons = [{ name: '앱 열기', type: 'AL', linkIos: 'app://o' }];

    expect(issuesOf(MessengerNoticeRequestSchema, { ...notice, buttons })).toEqual([
      { path: 'buttons.0.type', code: 'custom', message: expect.stringContaining('at least two') },
    ]);
  });

  it('refuses a WL button without url_mobile', () => {
    const buttons = [{ name: '보기', type: 'WL', url_pc: 'https://example.com' }];

    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, buttons })).toEqual([
      'buttons.0.url_mobile',
    ]);
  });

  it('allows AC only as the first button', () => {
    const buttons = [
      { name: '봇', type: 'BK' },
      { name: '채널 추가', type: 'AC' },
    ];

    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, buttons })).toEqual([
      'buttons.1.type',
    ]);
  });

  it('refuses a sixth button, a 15-character name and an unknown type', () => {
    const six = Array.from({ length: 6 }, () => ({ name: '봇', type: 'BK' }));

    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, buttons: six })).toEqual(['buttons']);
    expect(
      pathsOf(MessengerNoticeRequestSchema, {
        ...notice,
        buttons: [{ name: 'n'.repeat(15), type: 'BK' }],
      }),
    ).toEqual(['buttons.0.name']);
    expect(
      pathsOf(MessengerNoticeRequestSchema, { ...notice, buttons: [{ name: 'n', type: 'XX' }] }),
    ).toEqual(['buttons.0.type']);
  });

  it('keeps chat_extra to BC/BT and chat_event to BT', () => {
    const buttons = [
      { name: '상담', type: 'BC', chat_event: 'y' },
      { name: '봇', type: 'BK', chat_extra: 'x' },
    ];

    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, buttons })).toEqual([
      'buttons.0.chat_event',
      'buttons.1.chat_extra',
    ]);
  });

  it('needs 2 to 10 list entries with short titles and descriptions', () => {
    const one = { list: [{ title: '상품', description: '셔츠' }] };
    const long = {
      list: [
        { title: '일곱글자상품명', description: 'x' },
        { title: '수량', description: 'd'.repeat(24) },
      ],
    };

    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, item: one })).toEqual(['item.list']);
    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, item: long })).toEqual([
      'item.list.0.title',
      'item.list.1.description',
    ]);
  });

  it('allows only variables, currency, digits, comma and period in the summary description', () => {
    const list = notice.item.list;

    expect(
      pathsOf(MessengerNoticeRequestSchema, {
        ...notice,
        item: { list, summary: { title: '합계', description: '$1,234.50' } },
      }),
    ).toEqual([]);
    expect(
      pathsOf(MessengerNoticeRequestSchema, {
        ...notice,
        item: { list, summary: { title: '합계', description: '약 1000원' } },
      }),
    ).toEqual(['item.summary.description']);
  });

  it('limits msg to 1000 characters and msgrChId to 61', () => {
    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, msg: '가'.repeat(1000) })).toEqual(
      [],
    );
    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, msg: '가'.repeat(1001) })).toEqual([
      'msg',
    ]);
    expect(pathsOf(MessengerNoticeRequestSchema, { ...notice, msgrChId: 'c'.repeat(62) })).toEqual([
      'msgrChId',
    ]);
  });
});

describe('BrandTemplateRequestSchema', () => {
  const template = {
    targeting: 'I',
    msgrChId: '@msgbridge',
    tmpltCode: 'BRAND_001',
    chatBubbleType: 'CAROUSEL_COMMERCE',
    callback: '0212345678',
    pushAlarm: 'Y',
    recvInfoLst: [{ ...recipient(0), mergeData: { price_1: '1000' } }],
    unsubscribePhoneNumber: '080-1234-5678',
    unsubscribeAuthNumber: '123',
  };

  it('accepts a template send with both unsubscribe fields', () => {
    expect(BrandTemplateRequestSchema.parse(template)).toEqual(template);
  });

  it('refuses unsubscribeAuthNumber without unsubscribePhoneNumber', () => {
    const { unsubscribePhoneNumber: _, ...alone } = template;

    expect(issuesOf(BrandTemplateRequestSchema, alone)).toEqual([
      {
        path: 'unsubscribeAuthNumber',
        code: 'custom',
        message: expect.stringContaining('without unsubscribePhoneNumber'),
      },
    ]);
  });

  it('refuses an unhyphenated opt-out number, an unknown targeting and bubble type', () => {
    expect(
      pathsOf(BrandTemplateRequestSchema, { ...template, unsubscribePhoneNumber: '08012345678' }),
    ).toEqual(['unsubscribePhoneNumber']);
    expect(pathsOf(BrandTemplateRequestSchema, { ...template, targeting: 'A' })).toEqual([
      'targeting',
    ]);
    expect(pathsOf(BrandTemplateRequestSchema, { ...template, chatBubbleType: 'VIDEO' })).toEqual([
      'chatBubbleType',
    ]);
  });
});

describe('BrandFreeRequestSchema', () => {
  const base = {
    targeting: 'M',
    msgrChId: '@msgbridge',
    callback: '0212345678',
    recvInfoLst: [recipient(0)],
  };
  const wl = (name: string) => ({ name, type: 'WL', linkMobile: 'https://m.example.com' });
  const text = { ...base, chatBubbleType: 'TEXT', content: '봄 행사 안내\nhttps://example.com' };
  const wide = {
    ...base,
    chatBubbleType: 'WIDE',
    content: '봄 행사',
    imageUrl: 'https://img/1.png',
  };
  const commerce = {
    ...base,
    chatBubbleType: 'COMMERCE',
    imageUrl: 'https://img/1.png',
    additionalContent: '오늘만\n특가',
    commerce: { title: '봄 셔츠', regularPrice: 30000, discountPrice: 24000, discountRate: 20 },
    buttons: [wl('구매하기')],
  };

  it.each([
    [
      'TEXT with a coupon and 4 buttons',
      { ...text, coupon: { title: '10%' }, buttons: ['a', 'b', 'c', 'd'].map(wl) },
    ],
    [
      'IMAGE',
      {
        ...base,
        chatBubbleType: 'IMAGE',
        content: '봄',
        imageUrl: 'https://i',
        imageLink: 'https://l',
      },
    ],
    ['WIDE with 2 buttons', { ...wide, buttons: [wl('a'), { name: '채널 추가', type: 'AC' }] }],
    [
      'WIDE_ITEM_LIST',
      {
        ...base,
        chatBubbleType: 'WIDE_ITEM_LIST',
        header: '봄 상품',
        wideItemList: [{ title: '1' }, { title: '2' }, { title: '3' }],
      },
    ],
    ['COMMERCE', commerce],
    [
      'CAROUSEL_COMMERCE',
      {
        ...base,
        chatBubbleType: 'CAROUSEL_COMMERCE',
        carousel: {
          head: { header: '봄', linkMobile: 'https://m', linkPc: 'https://p' },
          list: [{ any: 1 }],
        },
      },
    ],
    ['CAROUSEL_FEED', { ...base, chatBubbleType: 'CAROUSEL_FEED', carousel: { list: [] } }],
    [
      'PREMIUM_VIDEO',
      {
        ...base,
        chatBubbleType: 'PREMIUM_VIDEO',
        content: '영상',
        header: '봄',
        video: { videoUrl: 'https://v' },
        buttons: [wl('a')],
      },
    ],
  ])('accepts %s', (_, input) => {
    expect(issuesOf(BrandFreeRequestSchema, input)).toEqual([]);
  });

  it('refuses WIDE with 3 buttons', () => {
    const input = { ...wide, buttons: [wl('a'), wl('b'), wl('c')] };

    expect(issuesOf(BrandFreeRequestSchema, input)).toEqual([
      { path: 'buttons', code: 'custom', message: 'WIDE takes at most 2 buttons; got 3' },
    ]);
  });

  it('lowers the TEXT button limit to 4 when a coupon is attached', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map(wl);

    expect(pathsOf(BrandFreeRequestSchema, { ...text, buttons: five })).toEqual([]);
    expect(issuesOf(BrandFreeRequestSchema, { ...text, buttons: five, coupon: {} })).toEqual([
      expect.objectContaining({
        path: 'buttons',
        message: expect.stringContaining('with a coupon'),
      }),
    ]);
  });

  it('refuses commerce with both discountRate and discountFixed', () => {
    const input = { ...commerce, commerce: { ...commerce.commerce, discountFixed: 6000 } };

    expect(issuesOf(BrandFreeRequestSchema, input)).toEqual([
      {
        path: 'commerce.discountFixed',
        code: 'custom',
        message: expect.stringContaining('not both'),
      },
    ]);
  });

  it('checks commerce number ranges and needs 1 to 2 buttons on COMMERCE', () => {
    const badRate = { ...commerce, commerce: { ...commerce.commerce, discountRate: 0 } };

    expect(pathsOf(BrandFreeRequestSchema, badRate)).toEqual(['commerce.discountRate']);
    expect(pathsOf(BrandFreeRequestSchema, { ...commerce, buttons: [] })).toEqual(['buttons']);
  });

  it('requires imageUrl for IMAGE, WIDE and COMMERCE', () => {
    const { imageUrl: _, ...wideWithoutImage } = wide;

    expect(issuesOf(BrandFreeRequestSchema, wideWithoutImage)).toEqual([
      { path: 'imageUrl', code: 'custom', message: 'WIDE needs imageUrl' },
    ]);
    expect(
      pathsOf(BrandFreeRequestSchema, { ...base, chatBubbleType: 'IMAGE', content: 'x' }),
    ).toEqual(['imageUrl']);
  });

  it('applies the content limits of each bubble type', () => {
    expect(pathsOf(BrandFreeRequestSchema, { ...wide, content: '가'.repeat(76) })).toEqual([]);
    expect(pathsOf(BrandFreeRequestSchema, { ...wide, content: '가'.repeat(77) })).toEqual([
      'content',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...wide, content: 'a\nb\nc\nd\ne\nf\ng' })).toEqual([
      'content',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...text, content: '가'.repeat(1301) })).toEqual([
      'content',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...text, content: 'x\n'.repeat(100) })).toEqual([
      'content',
    ]);
  });

  it('needs exactly 3 wideItemList entries and a header for WIDE_ITEM_LIST', () => {
    const input = { ...base, chatBubbleType: 'WIDE_ITEM_LIST', wideItemList: [{}, {}] };

    expect(pathsOf(BrandFreeRequestSchema, input)).toEqual(['wideItemList', 'header']);
  });

  it('refuses buttons and coupon with carousel types and requires the carousel', () => {
    const carousel = { ...base, chatBubbleType: 'CAROUSEL_COMMERCE', carousel: { list: [] } };

    expect(pathsOf(BrandFreeRequestSchema, { ...carousel, buttons: [wl('a')] })).toEqual([
      'buttons',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...carousel, coupon: {} })).toEqual(['coupon']);
    expect(
      pathsOf(BrandFreeRequestSchema, { ...base, chatBubbleType: 'CAROUSEL_COMMERCE' }),
    ).toEqual(['carousel']);
  });

  it('requires linkMobile once the carousel head has any link', () => {
    const input = {
      ...base,
      chatBubbleType: 'CAROUSEL_FEED',
      carousel: { head: { header: '봄', linkPc: 'https://p' } },
    };

    expect(pathsOf(BrandFreeRequestSchema, input)).toEqual(['carousel.head.linkMobile']);
  });

  it('places AC first on TEXT and last on the other types', () => {
    const ac = { name: '채널 추가', type: 'AC' };

    expect(pathsOf(BrandFreeRequestSchema, { ...text, buttons: [wl('a'), ac] })).toEqual([
      'buttons.1.type',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...wide, buttons: [ac, wl('a')] })).toEqual([
      'buttons.0.type',
    ]);
  });

  it('checks the link rules of brand buttons', () => {
    const buttons = [
      { name: 'a', type: 'WL' },
      { name: 'b', type: 'AL', linkIos: 'app://x' },
      { name: 'c', type: 'BF' },
    ];

    expect(pathsOf(BrandFreeRequestSchema, { ...text, buttons })).toEqual([
      'buttons.0.linkMobile',
      'buttons.1.type',
      'buttons.2.bizFormId',
    ]);
  });

  it('refuses fields that belong to another bubble type', () => {
    expect(pathsOf(BrandFreeRequestSchema, { ...text, commerce: commerce.commerce })).toEqual([
      'commerce',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...text, video: { videoUrl: 'https://v' } })).toEqual([
      'video',
    ]);
    expect(pathsOf(BrandFreeRequestSchema, { ...base, chatBubbleType: 'PREMIUM_VIDEO' })).toEqual([
      'video',
    ]);
  });

  it('has no tmpltCode (that is the template type)', () => {
    expect(issuesOf(BrandFreeRequestSchema, { ...text, tmpltCode: 'T1' })).toEqual([
      expect.objectContaining({ code: 'unrecognized_keys' }),
    ]);
  });
});

describe('SEND_ENDPOINTS', () => {
  it('maps every send endpoint to its host, path and request schema', () => {
    // Act
    const summary = Object.fromEntries(
      Object.entries(SEND_ENDPOINTS).map(([name, e]) => [name, `${e.method} ${e.host} ${e.path}`]),
    );

    // Assess
    expect(summary).toEqual({
      sms: 'POST send /xms/sms/v1',
      smsLegacy: 'POST api /msg/v1/sms',
      mms: 'POST send /xms/mms/v1',
      mmsLegacy: 'POST api /msg/v1/mms',
      mmsMultipart: 'POST send /xms/mms/file/v1',
      rcsV1: 'POST api /msg/v1/rcs',
      rcsV11: 'POST api /msg/v1.1/rcs',
      rcsIntegrated: 'POST send /rcs/v1.1',
      rcsReply: 'POST send /rcs/bi/v1.1',
      push: 'POST api /msg/v1/push',
      messengerNotice: 'POST send /msgr/notice/v1.2',
      brandTemplate: 'POST send /msgr/brand/tmplt/v1',
      brandFree: 'POST send /msgr/brand/custom/v1',
    });
    expect(SEND_ENDPOINTS.sms.schema).toBe(SmsRequestSchema);
    expect(SEND_ENDPOINTS.smsLegacy.schema).toBe(SmsRequestSchema);
    expect(SEND_ENDPOINTS.mmsMultipart.schema).toBe(MmsMultipartRequestSchema);
    expect(SEND_ENDPOINTS.mmsMultipart.body).toBe('multipart');
    expect(SEND_ENDPOINTS.rcsIntegrated.schema).toBe(RcsIntegratedRequestSchema);
    expect(SEND_ENDPOINTS.rcsReply.schema).toBe(RcsReplyRequestSchema);
    expect(SEND_ENDPOINTS.brandFree.schema).toBe(BrandFreeRequestSchema);
  });
});
