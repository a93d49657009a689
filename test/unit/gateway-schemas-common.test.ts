import { describe, expect, it } from 'vitest';
import {
  CliKeySchema,
  envelopeSchema,
  FbInfoSchema,
  GatewayEnvelopeSchema,
  NumericSchema,
  PhoneSchema,
  RandomStrSchema,
  RcsButtonSchema,
  RecvInfoSchema,
  ResvFieldsSchema,
  recipientsSchema,
  ScheduledSendDataSchema,
  SendResultItemSchema,
  TokenIssueDataSchema,
  TokenIssueRequestSchema,
  TokenRefreshDataSchema,
} from '../../gateway/schemas/index.ts';
import { issuesOf } from '../support/zod-issues.ts';

describe('request primitives', () => {
  it.each(['order-1', 'A.b_c-d@e', 'x'.repeat(30)])('CliKeySchema accepts %s', (key) => {
    expect(CliKeySchema.safeParse(key).success).toBe(true);
  });

  it.each(['', 'x'.repeat(31), 'order#1', 'order 1', '주문1'])('CliKeySchema rejects %j', (key) => {
    expect(issuesOf(CliKeySchema, key)).toEqual([
      expect.objectContaining({ path: '', message: expect.stringContaining('cliKey') }),
    ]);
  });

  it('PhoneSchema takes digits and hyphens up to 20 and nothing else', () => {
    expect(PhoneSchema.safeParse('010-1234-5678').success).toBe(true);
    expect(PhoneSchema.safeParse('1'.repeat(20)).success).toBe(true);
    expect(PhoneSchema.safeParse('1'.repeat(21)).success).toBe(false);
    expect(PhoneSchema.safeParse('+821012345678').success).toBe(false);
  });

  it('ResvFieldsSchema requires resvReqDt with resvYn Y and refuses it without', () => {
    // Prepare
    const inputs = [
      { resvYn: 'Y' },
      { resvYn: 'N', resvReqDt: '2025-03-01 09:30' },
      { resvReqDt: '2025-03-01 09:30' },
    ];

    // Act
    const results = inputs.map((input) => issuesOf(ResvFieldsSchema, input));

    // Assess
    expect(results[0]).toEqual([
      expect.objectContaining({ path: 'resvReqDt', message: expect.stringContaining('required') }),
    ]);
    expect(results[1]).toEqual([expect.objectContaining({ path: 'resvReqDt' })]);
    expect(results[2]).toEqual([expect.objectContaining({ path: 'resvReqDt' })]);
    expect(ResvFieldsSchema.parse({ resvYn: 'Y', resvReqDt: '2025-03-01 09:30' })).toEqual({
      resvYn: 'Y',
      resvReqDt: '2025-03-01 09:30',
    });
  });

  it.each([
    ['seconds', '2025-03-01 09:30:00'],
    ['a T separator', '2025-03-01T09:30'],
    ['an impossible date', '2025-02-30 09:30'],
    ['an impossible hour', '2025-03-01 24:00'],
  ])('ResvFieldsSchema refuses a resvReqDt with %s', (_, resvReqDt) => {
    expect(issuesOf(ResvFieldsSchema, { resvYn: 'Y', resvReqDt })).toEqual([
      expect.objectContaining({ path: 'resvReqDt' }),
    ]);
  });
});

describe('RecvInfoSchema and recipientsSchema', () => {
  const list = recipientsSchema(RecvInfoSchema);
  const recipient = (i: number) => ({ cliKey: `key-${i}`, phone: `0101234000${i % 10}` });

  it('accepts a recipient with mergeData and userCustomFields', () => {
    // Prepare
    const input = {
      cliKey: 'key-1',
      phone: '010-1234-5678',
      mergeData: { name: '홍길동' },
      userCustomFields: { orderId: 42 },
    };

    // Act
    const parsed = RecvInfoSchema.parse(input);

    // Assess
    expect(parsed).toEqual(input);
  });

  it('refuses 11 recipients at the list itself', () => {
    // Prepare
    const eleven = Array.from({ length: 11 }, (_, i) => recipient(i));

    // Act
    const issues = issuesOf(list, eleven);

    // Assess
    expect(issues).toEqual([{ path: '', code: 'too_big', message: expect.stringContaining('10') }]);
  });

  it('refuses an empty list', () => {
    expect(issuesOf(list, [])).toEqual([expect.objectContaining({ path: '', code: 'too_small' })]);
  });

  it('names the duplicate cliKey by its index', () => {
    // Prepare
    const input = [recipient(0), recipient(1), { ...recipient(2), cliKey: 'key-0' }];

    // Act
    const issues = issuesOf(list, input);

    // Assess
    expect(issues).toEqual([
      { path: '2.cliKey', code: 'custom', message: expect.stringContaining('"key-0"') },
    ]);
  });

  it('refuses unknown recipient fields so that typos surface', () => {
    expect(issuesOf(list, [{ ...recipient(0), mergedata: {} }])).toEqual([
      expect.objectContaining({ path: '0', code: 'unrecognized_keys' }),
    ]);
  });
});

describe('FbInfoSchema', () => {
  it('accepts an SMS and an MMS fallback', () => {
    expect(FbInfoSchema.safeParse({ ch: 'SMS', msg: '배송이 시작되었습니다' }).success).toBe(true);
    expect(
      FbInfoSchema.safeParse({
        ch: 'MMS',
        title: '안내',
        msg: '본문',
        fileIdLst: ['f1', 'f2', 'f3'],
      }).success,
    ).toBe(true);
  });

  it('refuses a channel other than SMS or MMS', () => {
    expect(issuesOf(FbInfoSchema, { ch: 'RCS', msg: 'x' })).toEqual([
      expect.objectContaining({ path: 'ch', message: 'fallback ch must be SMS or MMS' }),
    ]);
  });

  it('requires a title on an MMS fallback', () => {
    expect(issuesOf(FbInfoSchema, { ch: 'MMS', msg: 'x' })).toEqual([
      { path: 'title', code: 'custom', message: 'an MMS fallback needs a title' },
    ]);
  });

  it('refuses fileId together with fileIdLst, and more than 3 files', () => {
    const both = { ch: 'MMS', title: 't', msg: 'x', fileId: 'a', fileIdLst: ['b'] };
    const four = { ch: 'MMS', title: 't', msg: 'x', fileIdLst: ['a', 'b', 'c', 'd'] };

    expect(issuesOf(FbInfoSchema, both)).toEqual([
      expect.objectContaining({ path: 'fileIdLst', message: expect.stringContaining('either') }),
    ]);
    expect(issuesOf(FbInfoSchema, four)).toEqual([
      expect.objectContaining({ path: 'fileIdLst', code: 'too_big' }),
    ]);
  });

  it('applies the SMS byte limit to an SMS fallback text', () => {
    expect(issuesOf(FbInfoSchema, { ch: 'SMS', msg: '가'.repeat(46) })).toEqual([
      expect.objectContaining({ path: 'msg', message: expect.stringContaining('92 bytes') }),
    ]);
  });
});

describe('RcsButtonSchema', () => {
  const button = (action: Record<string, unknown>) => ({ suggestions: [{ action }] });
  const postback = (data: string) => ({ data });

  it.each([
    {
      displayText: 'Open',
      postback: postback('set_by_chatbot_open_url'),
      urlAction: { openUrl: { url: 'https://example.com' } },
    },
    {
      displayText: 'Copy',
      postback: postback('set_by_chatbot_copy_to_clipboard'),
      clipboardAction: { copyToClipboard: { text: 'COUPON10' } },
    },
    {
      displayText: 'Call',
      postback: postback('set_by_chatbot_dial_phone_number'),
      dialerAction: { dialPhoneNumber: { phoneNumber: '0212345678' } },
    },
    {
      displayText: 'Save',
      postback: postback('set_by_chatbot_create_calendar_event'),
      calendarAction: {
        createCalendarEvent: {
          title: 'Sale',
          description: 'Spring sale',
          startTime: '2025-03-01T00:00:00Z',
          endTime: '2025-03-02T00:00:00.000Z',
        },
      },
    },
    {
      displayText: 'Share location',
      postback: postback('set_by_chatbot_request_location_push'),
      mapAction: { requestLocationPush: {} },
    },
    {
      displayText: 'Map',
      postback: postback('set_by_chatbot_show_location'),
      mapAction: {
        showLocation: {
          fallbackUrl: 'https://map.example.com',
          location: { latitude: 37.5, longitude: '127.0', label: 'Store' },
        },
      },
    },
    {
      displayText: 'Find',
      postback: postback('set_by_chatbot_search_locations'),
      mapAction: {
        showLocation: { fallbackUrl: 'https://map.example.com', location: { query: 'coffee' } },
      },
    },
  ])('accepts a $postback.data button', (action) => {
    expect(issuesOf(RcsButtonSchema, button(action))).toEqual([]);
  });

  it('requires the action object of the chosen kind, at its path', () => {
    // Prepare
    const input = button({ displayText: 'Open', postback: postback('set_by_chatbot_open_url') });

    // Act
    const issues = issuesOf(RcsButtonSchema, input);

    // Assess
    expect(issues).toEqual([
      {
        path: 'suggestions.0.action.urlAction',
        code: 'custom',
        message: 'urlAction is required for set_by_chatbot_open_url',
      },
    ]);
  });

  it('refuses an action object that belongs to another kind', () => {
    const input = button({
      displayText: 'Call',
      postback: postback('set_by_chatbot_dial_phone_number'),
      dialerAction: { dialPhoneNumber: { phoneNumber: '0212345678' } },
      urlAction: { openUrl: { url: 'https://example.com' } },
    });

    expect(issuesOf(RcsButtonSchema, input)).toEqual([
      expect.objectContaining({ path: 'suggestions.0.action.urlAction' }),
    ]);
  });

  it('requires label for a coordinate location and query for a search', () => {
    const show = button({
      displayText: 'Map',
      postback: postback('set_by_chatbot_show_location'),
      mapAction: {
        showLocation: { fallbackUrl: 'https://m', location: { latitude: 1, longitude: 2 } },
      },
    });
    const search = button({
      displayText: 'Find',
      postback: postback('set_by_chatbot_search_locations'),
      mapAction: { showLocation: { fallbackUrl: 'https://m', location: {} } },
    });

    expect(issuesOf(RcsButtonSchema, show).map((i) => i.path)).toEqual([
      'suggestions.0.action.mapAction.showLocation.location.label',
    ]);
    expect(issuesOf(RcsButtonSchema, search).map((i) => i.path)).toEqual([
      'suggestions.0.action.mapAction.showLocation.location.query',
    ]);
  });

  it('refuses an unknown postback kind and a calendar time that is not UTC', () => {
    const unknownKind = button({ displayText: 'x', postback: postback('set_by_chatbot_dance') });
    const localTime = button({
      displayText: 'Save',
      postback: postback('set_by_chatbot_create_calendar_event'),
      calendarAction: {
        createCalendarEvent: {
          title: 't',
          description: 'd',
          startTime: '2025-03-01T09:00:00+09:00',
          endTime: '2025-03-01T10:00:00Z',
        },
      },
    });

    expect(issuesOf(RcsButtonSchema, unknownKind).map((i) => i.path)).toEqual([
      'suggestions.0.action.postback.data',
    ]);
    expect(issuesOf(RcsButtonSchema, localTime).map((i) => i.path)).toEqual([
      'suggestions.0.action.calendarAction.createCalendarEvent.startTime',
    ]);
  });

  it('refuses a button without suggestions', () => {
    expect(issuesOf(RcsButtonSchema, { suggestions: [] })).toEqual([
      expect.objectContaining({ path: 'suggestions', code: 'too_small' }),
    ]);
  });
});

describe('envelopeSchema', () => {
  it('keeps unknown top-level fields and reads a numeric code as a string', () => {
    // Prepare
    const body = { code: 10000, message: 'success', data: { token: 't' }, traceId: 'abc' };

    // Act
    const parsed = envelopeSchema(TokenRefreshDataSchema).parse(body);

    // Assess
    expect(parsed).toEqual({
      code: '10000',
      message: 'success',
      data: { token: 't' },
      traceId: 'abc',
    });
  });

  it('accepts an error body without data and without message', () => {
    expect(envelopeSchema(TokenRefreshDataSchema).parse({ code: '20002' })).toEqual({
      code: '20002',
      message: '',
    });
  });

  it('validates data with the given schema, at data.*', () => {
    expect(
      issuesOf(envelopeSchema(TokenRefreshDataSchema), { code: '10000', message: 'ok', data: {} }),
    ).toEqual([expect.objectContaining({ path: 'data.token' })]);
  });

  it('GatewayEnvelopeSchema reads any data, for a first look at the code', () => {
    const body = { code: '21399', message: 'upstream', data: { code: '500', message: 'x' } };

    expect(GatewayEnvelopeSchema.parse(body)).toEqual(body);
  });
});

describe('send responses', () => {
  it('reads per-recipient results, with msgKey missing for a refused recipient', () => {
    // Prepare
    const data = [
      { cliKey: 'a', msgKey: 'M1', phone: '01011112222', code: '10000', message: 'success' },
      { cliKey: 'b', phone: '01033334444', code: '21006', message: 'invalid phone', extra: 1 },
    ];

    // Act
    const parsed = data.map((item) => SendResultItemSchema.parse(item));

    // Assess
    expect(parsed).toEqual(data);
  });

  it('reads the scheduled object, keeping webReqId as a string', () => {
    // Prepare
    const data = { regDt: '2025-03-01 09:00:00', webReqId: 12345 };

    // Act
    const parsed = ScheduledSendDataSchema.parse(data);

    // Assess
    expect(parsed).toEqual({ regDt: '2025-03-01 09:00:00', webReqId: '12345' });
  });

  it('requires cliKey and code on a result item', () => {
    expect(issuesOf(SendResultItemSchema, { msgKey: 'M1' }).map((i) => i.path)).toEqual([
      'cliKey',
      'code',
    ]);
  });
});

describe('response primitives', () => {
  it.each([
    [3, 3],
    ['3', 3],
    [' 12 ', 12],
    ['2.5', 2.5],
  ])('NumericSchema reads %j as %j', (input, expected) => {
    expect(NumericSchema.parse(input)).toBe(expected);
  });

  it('NumericSchema refuses text that is not a number', () => {
    expect(NumericSchema.safeParse('three').success).toBe(false);
  });
});

describe('authentication schemas', () => {
  it('accepts a token request and refuses an apiKey over 20 characters', () => {
    const valid = { apiKey: 'key-1234', apiPwd: 'aGFzaA==' };

    expect(TokenIssueRequestSchema.parse(valid)).toEqual(valid);
    expect(issuesOf(TokenIssueRequestSchema, { ...valid, apiKey: 'k'.repeat(21) })).toEqual([
      expect.objectContaining({ path: 'apiKey', code: 'too_big' }),
    ]);
    expect(issuesOf(TokenIssueRequestSchema, { apiKey: 'k' })).toEqual([
      expect.objectContaining({ path: 'apiPwd' }),
    ]);
  });

  it('RandomStrSchema follows the randomStr pattern', () => {
    expect(RandomStrSchema.safeParse('abc-DEF_123').success).toBe(true);
    expect(RandomStrSchema.safeParse('a'.repeat(21)).success).toBe(false);
    expect(RandomStrSchema.safeParse('abc.def').success).toBe(false);
  });

  it('reads token data and keeps unknown fields', () => {
    const data = { token: 'jwt', refreshToken: 'refresh', expiresIn: 3600 };

    expect(TokenIssueDataSchema.parse(data)).toEqual(data);
    expect(issuesOf(TokenIssueDataSchema, { token: 'jwt' }).map((i) => i.path)).toEqual([
      'refreshToken',
    ]);
    expect(TokenRefreshDataSchema.parse({ token: 'jwt2' })).toEqual({ token: 'jwt2' });
  });
});
