import { describe, expect, it } from 'vitest';
import {
  BrandFreeRequestSchema,
  MmsMultipartRequestSchema,
  MmsRequestSchema,
  RcsIntegratedRequestSchema,
  RcsReplyRequestSchema,
  SEND_ENDPOINTS,
  SmsRequestSchema,
} from '../../gateway/schemas/index.ts';
import { fromShopToOne, recipient } from '../support/send-request-parts.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

const recipients = (count: number) => Array.from({ length: count }, (_, i) => recipient(i));

describe('SmsRequestSchema', () => {
  const sms = { ...fromShopToOne, msg: '[msgbridge] 주문이 접수되었습니다.' };

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
    ...fromShopToOne,
    title: '봄맞이 안내',
    msg: '안녕하세요.\n봄맞이 행사를 안내드립니다.',
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
