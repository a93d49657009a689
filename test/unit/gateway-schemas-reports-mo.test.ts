import { describe, expect, it } from 'vitest';
import { moItem } from '../../fixtures/gateway-bodies.ts';
import {
  ConfirmReportsRequestSchema,
  ContentInfoSchema,
  envelopeSchema,
  FbReasonSchema,
  isKnownMessageStatus,
  MoItemSchema,
  MoListDataSchema,
  MoSampleDataSchema,
  MoWebhookBodySchema,
  PollReportsDataSchema,
  PollReportsResponseDataSchema,
  ReportItemSchema,
  ReportWebhookBodySchema,
  StatusQueryDataSchema,
  StatusQueryItemSchema,
  StatusQueryRequestSchema,
} from '../../gateway/schemas/index.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

const report = {
  msgKey: 'M1',
  cliKey: 'order-1',
  ch: 'SMS',
  resultCode: '10000',
  resultCodeDesc: 'success',
  telco: 'SKT',
  rptDt: '2025-03-01 09:30:12',
  productCode: 'SMS',
};

describe('ReportItemSchema and FbReasonSchema', () => {
  it('keeps fields the spec does not list', () => {
    // Prepare
    const input = { ...report, billingGroup: 'B7', nested: { a: 1 } };

    // Act
    const parsed = ReportItemSchema.parse(input);

    // Assess
    expect(parsed).toMatchObject({ billingGroup: 'B7', nested: { a: 1 } });
  });

  it.each([
    ['null', { ...report, fbReasonLst: null }],
    ['missing', report],
  ])('reads a %s fbReasonLst as []', (_, input) => {
    expect(ReportItemSchema.parse(input).fbReasonLst).toEqual([]);
  });

  it('reads fallback reasons and the webhook-only fields', () => {
    // Prepare
    const input = {
      ...report,
      ch: 'MMS',
      fbReasonLst: [
        { ch: 'RCS', fbResultCode: 54002, fbResultDesc: 'not RCS capable', telco: 'KT' },
      ],
      rptRegDt: '20250301093013',
      phone: '01012345678',
      isBi: 'true',
      userCustomFields: { orderId: 42 },
      recvDt: '2025-03-01T09:30:00',
    };

    // Act
    const parsed = ReportItemSchema.parse(input);

    // Assess
    expect(parsed.fbReasonLst).toEqual([
      { ch: 'RCS', fbResultCode: '54002', fbResultDesc: 'not RCS capable', telco: 'KT' },
    ]);
    expect(parsed.isBi).toBe(true);
    expect(parsed.rptRegDt).toBe('20250301093013');
    expect(parsed.userCustomFields).toEqual({ orderId: 42 });
  });

  it('reads a numeric resultCode as a string and requires the keys', () => {
    expect(ReportItemSchema.parse({ ...report, resultCode: 32114 }).resultCode).toBe('32114');
    expect(pathsOf(ReportItemSchema, { ch: 'SMS', resultCode: '10000' })).toEqual([
      'msgKey',
      'cliKey',
    ]);
  });

  it('FbReasonSchema takes null fields', () => {
    expect(FbReasonSchema.parse({ ch: 'RCS', telco: null })).toEqual({ ch: 'RCS', telco: null });
  });
});

describe('polling', () => {
  it('reads a page with rptCnt as a string', () => {
    // Prepare
    const data = { rptKey: 'K1', rptCnt: '2', rptLst: [report, { ...report, msgKey: 'M2' }] };

    // Act
    const parsed = PollReportsDataSchema.parse(data);

    // Assess
    expect(parsed.rptCnt).toBe(2);
    expect(parsed.rptKey).toBe('K1');
    expect(parsed.rptLst).toEqual([report, { ...report, msgKey: 'M2' }]);
  });

  it('keeps a page whole when one item is odd: items stay raw, read one by one later', () => {
    // Prepare: a numeric msgKey, an item that is not an object, and 97 good ones.
    const good = Array.from({ length: 97 }, (_, i) => ({ ...report, msgKey: `M${i}` }));
    const data = {
      rptKey: 'K1',
      rptCnt: 100,
      rptLst: [...good, { ...report, msgKey: 123 }, null, 'x'],
    };

    // Act
    const parsed = PollReportsResponseDataSchema.parse(data);

    // Assess
    expect(parsed?.rptKey).toBe('K1');
    expect(parsed?.rptCnt).toBe(100);
    expect(parsed?.rptLst).toEqual(data.rptLst);
  });

  it('still validates the envelope of a page: rptKey and a readable rptCnt', () => {
    expect(pathsOf(PollReportsDataSchema, { rptKey: 7, rptLst: [report] })).toEqual(['rptKey']);
    expect(
      pathsOf(PollReportsDataSchema, { rptKey: 'K', rptCnt: 'many', rptLst: [report] }),
    ).toEqual(['rptCnt']);
    expect(pathsOf(PollReportsDataSchema, { rptKey: 'K', rptLst: { a: report } })).toEqual([
      'rptLst',
    ]);
  });

  it('reads an empty-string rptCnt as missing: the list is counted', () => {
    expect(PollReportsDataSchema.parse({ rptKey: 'K1', rptCnt: '', rptLst: [report] }).rptCnt).toBe(
      1,
    );
  });

  it('counts the list when rptCnt is missing', () => {
    expect(PollReportsDataSchema.parse({ rptKey: 'K1', rptLst: [report] }).rptCnt).toBe(1);
  });

  it('requires rptKey on a page with reports, since it must be confirmed', () => {
    expect(pathsOf(PollReportsDataSchema, { rptCnt: 1, rptLst: [report] })).toEqual(['rptKey']);
  });

  it.each([
    ['data null', null],
    ['rptCnt 0 with rptLst null', { rptKey: null, rptCnt: 0, rptLst: null }],
    ['rptCnt "0" with rptLst []', { rptKey: '', rptCnt: '0', rptLst: [] }],
    ['no count and no list', {}],
  ])('PollReportsResponseDataSchema reads %s as null', (_, data) => {
    expect(PollReportsResponseDataSchema.parse(data)).toBeNull();
  });

  it('PollReportsResponseDataSchema reads a non-empty page inside the envelope', () => {
    // Prepare
    const envelope = envelopeSchema(PollReportsResponseDataSchema);
    const body = {
      code: '10000',
      message: 'success',
      data: { rptKey: 'K9', rptCnt: '1', rptLst: [report] },
    };

    // Act
    const parsed = envelope.parse(body);
    const withoutData = envelope.parse({ code: '10000', message: 'success' });

    // Assess
    expect(parsed.data).toMatchObject({ rptKey: 'K9', rptCnt: 1 });
    expect(parsed.data?.rptLst).toHaveLength(1);
    expect(withoutData.data).toBeUndefined();
    expect(PollReportsDataSchema.safeParse(null).success).toBe(false);
  });

  it('ConfirmReportsRequestSchema needs at least one key', () => {
    expect(ConfirmReportsRequestSchema.parse({ rptKeyLst: ['K1', 'K2'] })).toEqual({
      rptKeyLst: ['K1', 'K2'],
    });
    expect(issuesOf(ConfirmReportsRequestSchema, { rptKeyLst: [] })).toEqual([
      expect.objectContaining({ path: 'rptKeyLst', code: 'too_small' }),
    ]);
    expect(pathsOf(ConfirmReportsRequestSchema, { rptKeyLst: ['K1', ''] })).toEqual([
      'rptKeyLst.1',
    ]);
  });
});

describe('status query', () => {
  const key = (i: number) => ({ cliKey: `order-${i}`, reqDt: '2025-03-01' });

  it('accepts 1 to 10 keys and refuses 11', () => {
    const ten = Array.from({ length: 10 }, (_, i) => key(i));
    const eleven = Array.from({ length: 11 }, (_, i) => key(i));

    expect(StatusQueryRequestSchema.parse({ cliKeyLst: ten }).cliKeyLst).toHaveLength(10);
    expect(issuesOf(StatusQueryRequestSchema, { cliKeyLst: eleven })).toEqual([
      expect.objectContaining({ path: 'cliKeyLst', code: 'too_big' }),
    ]);
  });

  it('needs reqDt as a real YYYY-MM-DD date', () => {
    expect(
      pathsOf(StatusQueryRequestSchema, {
        cliKeyLst: [key(0), { cliKey: 'a', reqDt: '20250301' }],
      }),
    ).toEqual(['cliKeyLst.1.reqDt']);
    expect(
      pathsOf(StatusQueryRequestSchema, { cliKeyLst: [{ cliKey: 'a', reqDt: '2025-02-30' }] }),
    ).toEqual(['cliKeyLst.0.reqDt']);
  });

  it('reads known statuses and keeps an unknown one as a string', () => {
    // Prepare
    const data = {
      cliKeyLst: [
        { ...report, status: 'DONE', fbReasonLst: null },
        { cliKey: 'order-2', status: 'INVALID_KEY' },
        { cliKey: 'order-3', status: 'CANCELLED', msgKey: 'M3' },
      ],
    };

    // Act
    const parsed = StatusQueryDataSchema.parse(data);

    // Assess
    expect(parsed.cliKeyLst.map((i) => i.status)).toEqual(['DONE', 'INVALID_KEY', 'CANCELLED']);
    expect(parsed.cliKeyLst.map((i) => isKnownMessageStatus(i.status))).toEqual([
      true,
      true,
      false,
    ]);
    expect(parsed.cliKeyLst[0]?.fbReasonLst).toEqual([]);
  });

  it('reads a null cliKeyLst as [] and requires status on an item', () => {
    expect(StatusQueryDataSchema.parse({ cliKeyLst: null })).toEqual({ cliKeyLst: [] });
    expect(pathsOf(StatusQueryItemSchema, { cliKey: 'a' })).toEqual(['status']);
  });
});

describe('ReportWebhookBodySchema', () => {
  it('coerces rptCnt and keeps unknown fields', () => {
    // Prepare
    const body = {
      rptCnt: '1',
      rptLst: [{ ...report, isBi: false, extraField: 'x' }],
      sentAt: 'now',
    };

    // Act
    const parsed = ReportWebhookBodySchema.parse(body);

    // Assess
    expect(parsed.rptCnt).toBe(1);
    expect(parsed.sentAt).toBe('now');
    expect(parsed.rptLst[0]).toMatchObject({ isBi: false, extraField: 'x', fbReasonLst: [] });
  });

  it('reads rptLst null as [] but refuses a body without rptLst', () => {
    expect(ReportWebhookBodySchema.parse({ rptCnt: 0, rptLst: null })).toEqual({
      rptCnt: 0,
      rptLst: [],
    });
    expect(pathsOf(ReportWebhookBodySchema, { rptCnt: 1, reports: [report] })).toEqual(['rptLst']);
  });
});

describe('MO schemas', () => {
  /** An MMS MO with one picture: the gateway's MO with what makes it an MMS. */
  const mo = moItem(1, {
    moType: 'MMSMO',
    productCode: 'MMS',
    moTitle: '사진',
    contentCnt: '1',
    contentInfoLst: [
      { contentName: 'a.jpg', contentSize: '2048', contentExt: 'jpg', contentUrl: 'https://f/a' },
    ],
  });

  it('reads an MMS MO with string counts as numbers', () => {
    // Act
    const parsed = MoItemSchema.parse(mo);

    // Assess
    expect(parsed.contentCnt).toBe(1);
    expect(parsed.contentInfoLst).toEqual([
      { contentName: 'a.jpg', contentSize: 2048, contentExt: 'jpg', contentUrl: 'https://f/a' },
    ]);
  });

  it('accepts LMSMO, a null moTitle and a null contentInfoLst', () => {
    // Prepare
    const input = { ...mo, moType: 'LMSMO', moTitle: null, contentCnt: 0, contentInfoLst: null };

    // Act
    const parsed = MoItemSchema.parse(input);

    // Assess
    expect(parsed.moType).toBe('LMSMO');
    expect(parsed.moTitle).toBeNull();
    expect(parsed.contentInfoLst).toEqual([]);
  });

  it('keeps unknown MO fields and requires moKey', () => {
    expect(MoItemSchema.parse({ ...mo, rcsChatbotId: 'C1' })).toMatchObject({ rcsChatbotId: 'C1' });
    expect(pathsOf(MoItemSchema, { moType: 'SMSMO' })).toEqual(['moKey']);
  });

  it('ContentInfoSchema refuses a non-numeric size', () => {
    expect(pathsOf(ContentInfoSchema, { contentSize: 'big' })).toEqual(['contentSize']);
  });

  it('reads an empty or blank contentSize and contentCnt as null, not as a failed item', () => {
    // Prepare
    const input = {
      ...mo,
      contentCnt: '',
      contentInfoLst: [
        { contentName: 'a.jpg', contentSize: '', contentExt: 'jpg', contentUrl: 'https://f/a' },
        { contentSize: ' ' },
      ],
    };

    // Act
    const parsed = MoItemSchema.parse(input);

    // Assess
    expect(parsed.contentCnt).toBeNull();
    expect(parsed.contentInfoLst.map((content) => content.contentSize)).toEqual([null, null]);
    expect(MoWebhookBodySchema.parse({ moCnt: '', moLst: [mo] }).moCnt).toBe(1);
  });

  it('MoListDataSchema keeps every item raw, an odd one too, so each is read on its own', () => {
    // Prepare
    const list = [mo, { ...mo, moKey: 42 }, { ...mo, moKey: 'MO3', contentInfoLst: 'none' }];

    // Act
    const parsed = MoListDataSchema.parse(list);

    // Assess
    expect(parsed).toEqual(list);
    expect(MoListDataSchema.safeParse({ moLst: list }).success).toBe(false);
  });

  it('MoListDataSchema reads null as []', () => {
    expect(MoListDataSchema.parse(null)).toEqual([]);
    expect(MoListDataSchema.parse([mo])).toHaveLength(1);
  });

  it('MoWebhookBodySchema coerces moCnt and reads moLst null as []', () => {
    expect(MoWebhookBodySchema.parse({ moCnt: '1', moLst: [mo] }).moCnt).toBe(1);
    expect(MoWebhookBodySchema.parse({ moCnt: 0, moLst: null })).toEqual({ moCnt: 0, moLst: [] });
    expect(MoWebhookBodySchema.parse({ moLst: [mo, { ...mo, moKey: 'MO2' }] }).moCnt).toBe(2);
  });

  it('MoWebhookBodySchema refuses a two-way RCS body of another shape', () => {
    expect(pathsOf(MoWebhookBodySchema, { biCnt: 1, biLst: [{ replyId: 'R1' }] })).toEqual([
      'moLst',
    ]);
  });

  it('MoSampleDataSchema keeps whatever object it gets', () => {
    expect(MoSampleDataSchema.parse({ sample: true })).toEqual({ sample: true });
    expect(MoSampleDataSchema.parse([mo])).toEqual([mo]);
    expect(MoSampleDataSchema.safeParse('text').success).toBe(false);
  });
});
