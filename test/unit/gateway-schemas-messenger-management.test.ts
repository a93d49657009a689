import { describe, expect, it } from 'vitest';
import {
  ChannelCreateRequestSchema,
  ChannelGroupListDataSchema,
  ChannelGroupMemberRequestSchema,
  ChannelListDataSchema,
  ChannelListRequestSchema,
  ChannelTokenRequestSchema,
  MESSENGER_MANAGEMENT_PATHS,
  MESSENGER_STATS,
  MessengerStatsQuerySchema,
  RelayInfoDataSchema,
  TemplateActionRequestSchema,
  TemplateCommentRequestSchema,
  TemplateCreateDataSchema,
  TemplateCreateRequestSchema,
  TemplateListDataSchema,
  TemplateListRequestSchema,
} from '../../functions/commons/gateway/schemas/index.ts';
import { pathsOf } from '../support/zod-issues.ts';

const template = {
  msgrChId: '@shop',
  templateName: 'Order shipped',
  templateContent: 'Your order has shipped.',
  categoryCode: '002001',
  templateMessageType: 'BA',
  templateEmphasizeType: 'NONE',
};

describe('channel and group requests', () => {
  it('ChannelGroupMemberRequestSchema needs chGrpKey and a msgrChId of at most 61', () => {
    // Act / Assess
    expect(pathsOf(ChannelGroupMemberRequestSchema, { chGrpKey: 'G1', msgrChId: '@a' })).toEqual(
      [],
    );
    expect(pathsOf(ChannelGroupMemberRequestSchema, { msgrChId: 'x'.repeat(62) })).toEqual([
      'chGrpKey',
      'msgrChId',
    ]);
    expect(
      pathsOf(ChannelGroupMemberRequestSchema, { chGrpKey: 'G1', msgrChId: '@a', extra: 1 }),
    ).toEqual(['']);
  });

  it('ChannelListRequestSchema takes a 14-digit standardDateTime and optional paging', () => {
    expect(pathsOf(ChannelListRequestSchema, { standardDateTime: '20250301120000' })).toEqual([]);
    expect(pathsOf(ChannelListRequestSchema, { standardDateTime: '2025-03-01', page: 0 })).toEqual([
      'standardDateTime',
      'page',
    ]);
  });

  it('ChannelTokenRequestSchema limits the administrator number to 11 digits', () => {
    const ok = { phoneNumber: '01012345678', msgrChId: '@a', relay: 'r01' };
    expect(pathsOf(ChannelTokenRequestSchema, ok)).toEqual([]);
    expect(pathsOf(ChannelTokenRequestSchema, { ...ok, phoneNumber: '010123456789' })).toEqual([
      'phoneNumber',
    ]);
  });

  it('ChannelCreateRequestSchema needs integer tokens and an 11-character category', () => {
    const ok = {
      msgrChId: '@a',
      categoryCode: '00100010001',
      tokens: [{ rid: 'r01', token: 123456, phoneNumber: '01012345678' }],
    };
    expect(pathsOf(ChannelCreateRequestSchema, ok)).toEqual([]);
    expect(
      pathsOf(ChannelCreateRequestSchema, {
        ...ok,
        categoryCode: '001',
        tokens: [{ rid: 'r01', token: '123456', phoneNumber: '01012345678' }],
      }),
    ).toEqual(['tokens.0.token', 'categoryCode']);
    expect(pathsOf(ChannelCreateRequestSchema, { ...ok, tokens: [] })).toEqual(['tokens']);
  });
});

describe('template requests', () => {
  it('request/delete default senderKeyType to S and need msgrChId for S, msgrGrpId for G', () => {
    // Act
    const parsed = TemplateActionRequestSchema.parse({ msgrChId: '@a', templateCode: 'c1' });

    // Assess
    expect(parsed.senderKeyType).toBe('S');
    expect(pathsOf(TemplateActionRequestSchema, { templateCode: 'c1' })).toEqual(['msgrChId']);
    expect(
      pathsOf(TemplateActionRequestSchema, {
        msgrChId: '@a',
        templateCode: 'c1',
        senderKeyType: 'G',
      }),
    ).toEqual(['msgrGrpId']);
  });

  it('templateCode has no spaces and at most 30 characters; comment at most 500', () => {
    expect(
      pathsOf(TemplateActionRequestSchema, { msgrChId: '@a', templateCode: 'has space' }),
    ).toEqual(['templateCode']);
    expect(
      pathsOf(TemplateActionRequestSchema, { msgrChId: '@a', templateCode: 'x'.repeat(31) }),
    ).toEqual(['templateCode']);
    expect(
      pathsOf(TemplateCommentRequestSchema, {
        msgrChId: '@a',
        templateCode: 'c1',
        comment: 'x'.repeat(501),
      }),
    ).toEqual(['comment']);
    expect(pathsOf(TemplateCommentRequestSchema, { msgrChId: '@a', templateCode: 'c1' })).toEqual([
      'comment',
    ]);
  });

  it('TemplateListRequestSchema takes an optional 14-digit updateDt', () => {
    expect(pathsOf(TemplateListRequestSchema, { msgrChId: '@a' })).toEqual([]);
    expect(pathsOf(TemplateListRequestSchema, { msgrChId: '@a', updateDt: '20250101' })).toEqual([
      'updateDt',
    ]);
  });

  it('TemplateCreateRequestSchema accepts a basic template and checks the enums', () => {
    expect(pathsOf(TemplateCreateRequestSchema, template)).toEqual([]);
    expect(
      pathsOf(TemplateCreateRequestSchema, {
        ...template,
        templateMessageType: 'XX',
        templateEmphasizeType: 'BOLD',
      }),
    ).toEqual(['templateMessageType', 'templateEmphasizeType']);
  });

  it('counts templateAd inside the 1000 characters of templateContent', () => {
    expect(
      pathsOf(TemplateCreateRequestSchema, {
        ...template,
        templateContent: 'x'.repeat(990),
        templateAd: 'y'.repeat(11),
      }),
    ).toEqual(['templateAd']);
    expect(
      pathsOf(TemplateCreateRequestSchema, {
        ...template,
        templateContent: 'x'.repeat(990),
        templateAd: 'y'.repeat(10),
      }),
    ).toEqual([]);
  });

  it('itemList has 2 to 10 entries and buttons at most 5', () => {
    expect(
      pathsOf(TemplateCreateRequestSchema, {
        ...template,
        itemList: [{ title: 'a', description: 'b' }],
        buttons: Array.from({ length: 6 }, () => ({ type: 'WL' })),
      }),
    ).toEqual(['itemList', 'buttons']);
  });

  it('needs itemHighlightDescription with itemHighlightTitle (checked once the fields pass)', () => {
    expect(
      pathsOf(TemplateCreateRequestSchema, { ...template, itemHighlightTitle: 'Title' }),
    ).toEqual(['itemHighlightDescription']);
    expect(
      pathsOf(TemplateCreateRequestSchema, {
        ...template,
        itemHighlightTitle: 'Title',
        itemHighlightDescription: 'Description',
      }),
    ).toEqual([]);
  });
});

describe('statistics query', () => {
  it('writes elapsedDay as a string and accepts only 0 to 2', () => {
    // Act
    const parsed = MessengerStatsQuerySchema.parse({
      msgrChId: '@a',
      date: '20250301',
      elapsedDay: 2,
    });

    // Assess
    expect(parsed.elapsedDay).toBe('2');
    expect(
      pathsOf(MessengerStatsQuerySchema, { msgrChId: '@a', date: '20250301', elapsedDay: '3' }),
    ).toEqual(['elapsedDay']);
  });

  it('refuses a date that is not yyyyMMdd or not on the calendar', () => {
    const query = { msgrChId: '@a', elapsedDay: '0' };
    expect(pathsOf(MessengerStatsQuerySchema, { ...query, date: '2025-03-01' })).toEqual(['date']);
    expect(pathsOf(MessengerStatsQuerySchema, { ...query, date: '20250230' })).toEqual(['date']);
  });
});

describe('responses are lenient', () => {
  it('reads null lists as empty and keeps unknown fields', () => {
    expect(ChannelListDataSchema.parse(null)).toEqual([]);
    expect(RelayInfoDataSchema.parse({ relay: null })).toEqual({ relay: [] });
    expect(
      TemplateListDataSchema.parse([{ templateCode: 'c1', templateKey: 17, extra: true }]),
    ).toEqual([{ templateCode: 'c1', templateKey: '17', extra: true }]);
  });

  it('carries chGrpStatCd letters although the spec types it Number', () => {
    expect(
      ChannelGroupListDataSchema.parse([{ chGrpKey: 'G1', chGrpStatCd: 'A', updDt: null }]),
    ).toEqual([{ chGrpKey: 'G1', chGrpStatCd: 'A', updDt: null }]);
  });

  it('reads the template create answer with its templateInfo', () => {
    const data = TemplateCreateDataSchema.parse({
      templateKey: 'TK1',
      templateCode: 'c1',
      templateInfo: { senderKey: '@a', senderType: 'S', more: 1 },
    });
    expect(data.templateInfo).toEqual({ senderKey: '@a', senderType: 'S', more: 1 });
  });

  it('reads statistics as lists of items, one object as a list of one, and counts as numbers', () => {
    const { dataSchema } = MESSENGER_STATS.channelBrandClick;
    expect(dataSchema.parse({ msgrChId: '@a', buttonClickCount: '3' })).toEqual([
      { msgrChId: '@a', buttonClickCount: 3 },
    ]);
    expect(
      MESSENGER_STATS.templateNoticeClick.dataSchema.parse([
        { clickInfo: { buttonOrders: [1], buttonType: { WL: '2' }, etc: 0 } },
      ]),
    ).toEqual([{ clickInfo: { buttonOrders: [1], buttonType: { WL: 2 }, etc: 0 } }]);
  });
});

describe('paths', () => {
  it('names every spec 02 endpoint once', () => {
    const paths = [
      ...Object.values(MESSENGER_MANAGEMENT_PATHS).map((p) => `${p.method} ${p.path}`),
      ...Object.values(MESSENGER_STATS).map((s) => `GET ${s.path}`),
    ];
    expect(paths).toHaveLength(26);
    expect(new Set(paths).size).toBe(26);
  });
});
