import { describe, expect, it } from 'vitest';
import {
  PushRequestSchema,
  RcsIntegratedRequestSchema,
  RcsReplyRequestSchema,
  RcsReplyResultItemSchema,
  RcsV1RequestSchema,
  RcsV11RequestSchema,
} from '../../gateway/schemas/index.ts';
import { recipient } from '../support/send-request-parts.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

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
