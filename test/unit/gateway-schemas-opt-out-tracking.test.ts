import { describe, expect, it } from 'vitest';
import {
  ClickUrlCreateDataSchema,
  ClickUrlCreateRequestSchema,
  ClickUrlDeleteRequestSchema,
  ClickUrlListDataSchema,
  ClickUrlListQuerySchema,
  inclusiveDaySpan,
  OptOutDeleteRequestSchema,
  OptOutEntrySchema,
  OptOutListDataSchema,
  OptOutListQuerySchema,
  OptOutPeriodQuerySchema,
  OptOutPeriodResponseSchema,
  OptOutRegisterRequestSchema,
  TRACKING_URL_ENDPOINTS,
  UrlStatsByChannelDataSchema,
  UrlStatsByChannelRequestSchema,
  UrlStatsByReceiverDataSchema,
  UrlStatsByReceiverRequestSchema,
  UrlStatsByUrlDataSchema,
  UrlStatsByUrlRequestSchema,
  UrlStatsDayDataSchema,
  UrlStatsHourDataSchema,
  UrlStatsPeriodRequestSchema,
} from '../../gateway/schemas/index.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

/** A number opted out of one sender, and the same number opted out of every sender. */
const pair = { phone: '01012345678', callback: '0212345678' };
const pairForAllSenders = { ...pair, callback: '*' };

describe('opt-out requests', () => {
  it('OptOutRegisterRequestSchema accepts pairs, with * for all senders', () => {
    const body = [pair, pairForAllSenders];

    expect(OptOutRegisterRequestSchema.parse(body)).toEqual(body);
  });

  it('OptOutRegisterRequestSchema refuses an empty list, a long phone and a repeated pair', () => {
    expect(issuesOf(OptOutRegisterRequestSchema, [])).toEqual([
      expect.objectContaining({ path: '', code: 'too_small' }),
    ]);
    expect(
      pathsOf(OptOutRegisterRequestSchema, [pair, { ...pair, phone: '1'.repeat(21) }]),
    ).toEqual(['1.phone']);
    expect(issuesOf(OptOutRegisterRequestSchema, [pair, { ...pair }])).toEqual([
      { path: '1', code: 'custom', message: expect.stringContaining('repeated') },
    ]);
    expect(pathsOf(OptOutRegisterRequestSchema, [{ ...pair, callback: 'all' }])).toEqual([
      '0.callback',
    ]);
  });

  it('OptOutDeleteRequestSchema takes one pair and needs both fields', () => {
    expect(OptOutDeleteRequestSchema.parse(pairForAllSenders)).toEqual({
      phone: '01012345678',
      callback: '*',
    });
    expect(pathsOf(OptOutDeleteRequestSchema, { phone: '01012345678' })).toEqual(['callback']);
  });

  it('OptOutListQuerySchema needs integer listCnt and pageIdx from 1', () => {
    expect(OptOutListQuerySchema.parse({ listCnt: 50, pageIdx: 1, phone: '01012345678' })).toEqual({
      listCnt: 50,
      pageIdx: 1,
      phone: '01012345678',
    });
    expect(pathsOf(OptOutListQuerySchema, { listCnt: 0, pageIdx: 1.5 })).toEqual([
      'listCnt',
      'pageIdx',
    ]);
  });

  it('OptOutPeriodQuerySchema fills page 1 and pageSize 10', () => {
    // Prepare
    const query = {
      '080ArsNumber': '0801234567',
      fromTime: '20250301000000',
      toTime: '20250331235959',
    };

    // Act
    const parsed = OptOutPeriodQuerySchema.parse(query);

    // Assess
    expect(parsed).toEqual({ ...query, page: 1, pageSize: 10 });
  });

  it('OptOutPeriodQuerySchema refuses pageSize 301, bad times and a reversed range', () => {
    const query = {
      '080ArsNumber': '0801234567',
      fromTime: '20250301000000',
      toTime: '20250331235959',
    };

    expect(pathsOf(OptOutPeriodQuerySchema, { ...query, pageSize: 300 })).toEqual([]);
    expect(issuesOf(OptOutPeriodQuerySchema, { ...query, pageSize: 301 })).toEqual([
      { path: 'pageSize', code: 'too_big', message: 'pageSize is at most 300' },
    ]);
    expect(pathsOf(OptOutPeriodQuerySchema, { ...query, fromTime: '2025-03-01' })).toEqual([
      'fromTime',
    ]);
    expect(pathsOf(OptOutPeriodQuerySchema, { ...query, toTime: '20250230000000' })).toEqual([
      'toTime',
    ]);
    expect(pathsOf(OptOutPeriodQuerySchema, { ...query, toTime: '20250201000000' })).toEqual([
      'toTime',
    ]);
    const { '080ArsNumber': _, ...withoutNumber } = query;
    expect(pathsOf(OptOutPeriodQuerySchema, withoutNumber)).toEqual(['080ArsNumber']);
  });
});

describe('opt-out responses', () => {
  it('OptOutListDataSchema coerces counts and reads rejectList null as []', () => {
    expect(
      OptOutListDataSchema.parse({ listCnt: '10', pageIdx: '1', totalCnt: '0', rejectList: null }),
    ).toEqual({
      listCnt: 10,
      pageIdx: 1,
      totalCnt: 0,
      rejectList: [],
    });
  });

  it('OptOutEntrySchema accepts a null delDt and keeps unknown fields', () => {
    const entry = {
      ...pairForAllSenders,
      delYn: 'N',
      updDt: '2025-03-01 09:00:00',
      delDt: null,
      regId: 'console',
    };

    expect(OptOutEntrySchema.parse(entry)).toEqual(entry);
  });

  it('OptOutPeriodResponseSchema reads data and meta beside code and message', () => {
    // Prepare
    const body = {
      code: '10000',
      message: 'success',
      data: [
        {
          blockNumber: '01012345678',
          aniNumber: '0212345678',
          updateTime: '20250301090000',
          status: 'inactive',
        },
      ],
      meta: {
        totalItems: '1',
        totalPages: 1,
        '080ArsNumber': '0801234567',
        fromTime: '20250301000000',
        toTime: '20250331235959',
        pageSize: '10',
        page: '1',
      },
    };

    // Act
    const parsed = OptOutPeriodResponseSchema.parse(body);

    // Assess
    expect(parsed.data).toEqual(body.data);
    expect(parsed.meta).toMatchObject({ totalItems: 1, totalPages: 1, pageSize: 10, page: 1 });
    expect(parsed.meta?.['080ArsNumber']).toBe('0801234567');
  });

  it('OptOutPeriodResponseSchema reads data null as []', () => {
    expect(
      OptOutPeriodResponseSchema.parse({ code: '10000', message: 'ok', data: null }).data,
    ).toEqual([]);
  });
});

describe('click URL requests and responses', () => {
  const create = {
    urlTitle: '봄 행사',
    orgUrl: 'https://example.com/spring',
    expDt: '2025-04-30 23:59:59',
  };

  it('accepts a create request', () => {
    expect(ClickUrlCreateRequestSchema.parse(create)).toEqual(create);
  });

  it('refuses an orgUrl without scheme and an expDt without seconds', () => {
    expect(issuesOf(ClickUrlCreateRequestSchema, { ...create, orgUrl: 'www.example.com' })).toEqual(
      [
        expect.objectContaining({
          path: 'orgUrl',
          message: 'orgUrl must start with http:// or https://',
        }),
      ],
    );
    expect(
      pathsOf(ClickUrlCreateRequestSchema, { ...create, orgUrl: 'ftp://example.com' }),
    ).toEqual(['orgUrl']);
    expect(pathsOf(ClickUrlCreateRequestSchema, { ...create, expDt: '2025-04-30 23:59' })).toEqual([
      'expDt',
    ]);
  });

  it.each([
    [123, '123'],
    ['456', '456'],
  ])('ClickUrlCreateDataSchema keeps id %j as %j', (input, expected) => {
    expect(ClickUrlCreateDataSchema.parse(input)).toBe(expected);
  });

  it('ClickUrlCreateDataSchema refuses a non-numeric id', () => {
    expect(ClickUrlCreateDataSchema.safeParse('abc').success).toBe(false);
  });

  it('delete and list requests', () => {
    expect(ClickUrlDeleteRequestSchema.parse({ urlId: '123' })).toEqual({ urlId: '123' });
    expect(pathsOf(ClickUrlDeleteRequestSchema, { urlId: '' })).toEqual(['urlId']);
    expect(ClickUrlListQuerySchema.parse({ page: 1 })).toEqual({ page: 1 });
    expect(pathsOf(ClickUrlListQuerySchema, { page: 0 })).toEqual(['page']);
  });

  it('ClickUrlListDataSchema reads null as [] and a numeric urlId as a string', () => {
    // Prepare
    const data = [
      {
        no: '1',
        title: '봄',
        urlId: 123,
        orgUrl: 'https://e',
        expDt: '2025-04-30 23:59:59',
        regDt: '2025-03-01 09:00:00',
      },
    ];

    // Act
    const parsed = ClickUrlListDataSchema.parse(data);

    // Assess
    expect(parsed[0]).toMatchObject({ no: 1, urlId: '123' });
    expect(ClickUrlListDataSchema.parse(null)).toEqual([]);
  });
});

describe('URL statistics requests', () => {
  it('inclusiveDaySpan counts both ends', () => {
    expect(inclusiveDaySpan('2025-01-01', '2025-01-01')).toBe(1);
    expect(inclusiveDaySpan('2025-01-01', '2025-01-31')).toBe(31);
    expect(inclusiveDaySpan('2025-02-28', '2025-03-01')).toBe(2);
  });

  it('UrlStatsByUrlRequestSchema allows 31 days and refuses 32', () => {
    const within = { from: '2025-01-01', to: '2025-01-31', title: '봄' };
    const over = { from: '2025-01-01', to: '2025-02-01', urlId: '123' };

    expect(pathsOf(UrlStatsByUrlRequestSchema, within)).toEqual([]);
    expect(issuesOf(UrlStatsByUrlRequestSchema, over)).toEqual([
      { path: 'to', code: 'custom', message: expect.stringContaining('32 days; max 31') },
    ]);
  });

  it('UrlStatsByUrlRequestSchema needs at least one filter, and from not after to', () => {
    expect(issuesOf(UrlStatsByUrlRequestSchema, { from: '2025-01-01', to: '2025-01-02' })).toEqual([
      { path: '', code: 'custom', message: 'give at least one of urlId, title, orgUrl' },
    ]);
    expect(
      pathsOf(UrlStatsByUrlRequestSchema, { from: '2025-01-02', to: '2025-01-01', urlId: '1' }),
    ).toEqual(['to']);
    expect(
      pathsOf(UrlStatsByUrlRequestSchema, { from: '2025/01/01', to: '2025-01-01', urlId: '1' }),
    ).toEqual(['from']);
  });

  it('UrlStatsByChannelRequestSchema requires urlId and 31 days at most', () => {
    expect(
      UrlStatsByChannelRequestSchema.parse({ from: '2025-01-01', to: '2025-01-31', urlId: '1' }),
    ).toBeTruthy();
    expect(
      pathsOf(UrlStatsByChannelRequestSchema, { from: '2025-01-01', to: '2025-01-31' }),
    ).toEqual(['urlId']);
    expect(
      pathsOf(UrlStatsByChannelRequestSchema, { from: '2025-01-01', to: '2025-03-01', urlId: '1' }),
    ).toEqual(['to']);
  });

  it('UrlStatsByReceiverRequestSchema requires page and takes an optional phone', () => {
    const body = {
      from: '2025-01-01',
      to: '2025-01-10',
      urlId: '1',
      page: 1,
      phone: '01012345678',
    };

    expect(UrlStatsByReceiverRequestSchema.parse(body)).toEqual(body);
    const { page: _, ...withoutPage } = body;
    expect(pathsOf(UrlStatsByReceiverRequestSchema, withoutPage)).toEqual(['page']);
  });

  it('UrlStatsPeriodRequestSchema allows 15 days and refuses 16', () => {
    expect(
      pathsOf(UrlStatsPeriodRequestSchema, { from: '2025-01-01', to: '2025-01-15', urlId: '1' }),
    ).toEqual([]);
    expect(
      issuesOf(UrlStatsPeriodRequestSchema, { from: '2025-01-01', to: '2025-01-16', urlId: '1' }),
    ).toEqual([
      { path: 'to', code: 'custom', message: expect.stringContaining('16 days; max 15') },
    ]);
  });
});

describe('URL statistics responses', () => {
  it('UrlStatsByUrlDataSchema reads one object as a list and coerces counts', () => {
    // Prepare
    const url = { urlId: '123', title: '봄', orgUrl: 'https://e', regDt: '2025-03-01 09:00:00' };
    const data = { ...url, totCnt: '100', conCnt: '25', clickThroughRate: '25.0' };

    // Act
    const parsed = UrlStatsByUrlDataSchema.parse(data);

    // Assess
    expect(parsed).toEqual([{ ...data, totCnt: 100, conCnt: 25 }]);
  });

  it('UrlStatsByChannelDataSchema reads a list and null', () => {
    const data = [
      { ch: 'SMS', totCnt: 10, conCnt: '3', clickThroughRate: 30 },
      { ch: 'RCS', totCnt: '5', conCnt: 0, clickThroughRate: '0' },
    ];

    expect(UrlStatsByChannelDataSchema.parse(data)).toEqual([
      { ch: 'SMS', totCnt: 10, conCnt: 3, clickThroughRate: '30' },
      { ch: 'RCS', totCnt: 5, conCnt: 0, clickThroughRate: '0' },
    ]);
    expect(UrlStatsByChannelDataSchema.parse(null)).toEqual([]);
  });

  it('UrlStatsByReceiverDataSchema reads recvlst, null as []', () => {
    const data = {
      urlId: 123,
      totCnt: '1',
      recvlst: [
        {
          conYmd: '20250301',
          urlId: '123',
          phone: '010****5678',
          sndYmd: '20250301',
          ch: 'SMS',
          isMobile: 'Y',
        },
      ],
    };

    expect(UrlStatsByReceiverDataSchema.parse(data)).toMatchObject({ urlId: '123', totCnt: 1 });
    expect(UrlStatsByReceiverDataSchema.parse({ totCnt: 0, recvlst: null }).recvlst).toEqual([]);
  });

  it('day and hour statistics coerce counts and keep hour as written', () => {
    const when = { urlId: '1', ymd: '20250301', ch: 'SMS', conDt: '20250301' };
    const day = { ...when, sumCnt: '7', avgCnt: '3.5' };

    expect(UrlStatsDayDataSchema.parse([day])).toEqual([{ ...day, sumCnt: 7, avgCnt: 3.5 }]);
    expect(
      UrlStatsHourDataSchema.parse([
        { ...day, hour: '09' },
        { ...day, hour: 10 },
      ]).map((h) => h.hour),
    ).toEqual(['09', '10']);
  });
});

describe('TRACKING_URL_ENDPOINTS', () => {
  it('lists every tracking URL call', () => {
    const summary = Object.values(TRACKING_URL_ENDPOINTS).map(
      (e) => `${e.method} ${e.path} ${e.params}`,
    );

    expect(summary).toEqual([
      'POST /msg/v1/createClickUrl body',
      'POST /msg/v1/deleteClickUrl query',
      'GET /msg/v1/getClickUrl query',
      'POST /msg/v1/stat/url/msg body',
      'POST /msg/v1/stat/url/channel body',
      'POST /msg/v1/stat/url/receiver body',
      'POST /msg/v1/stat/url/sendDay body',
      'POST /msg/v1/stat/url/sendHour body',
      'POST /msg/v1/stat/url/clickDay body',
      'POST /msg/v1/stat/url/clickHour body',
    ]);
    expect(TRACKING_URL_ENDPOINTS.statsClickHour.schema).toBe(UrlStatsPeriodRequestSchema);
    expect(TRACKING_URL_ENDPOINTS.statsClickHour.responseDataSchema).toBe(UrlStatsHourDataSchema);
  });
});
