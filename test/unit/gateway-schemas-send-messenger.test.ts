import { describe, expect, it } from 'vitest';
import {
  BrandFreeRequestSchema,
  BrandTemplateRequestSchema,
  MessengerNoticeRequestSchema,
} from '../../gateway/schemas/index.ts';
import { messengerSender, recipient } from '../support/send-request-parts.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

describe('MessengerNoticeRequestSchema', () => {
  const notice = {
    ...messengerSender,
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
    ...messengerSender,
    targeting: 'I',
    tmpltCode: 'BRAND_001',
    chatBubbleType: 'CAROUSEL_COMMERCE',
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
  const base = { ...messengerSender, targeting: 'M', recvInfoLst: [recipient(0)] };
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
