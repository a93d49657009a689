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
  TEMPLATE_IMAGE_MAX_BYTES,
  TemplateActionRequestSchema,
  TemplateCommentRequestSchema,
  TemplateCreateDataSchema,
  TemplateCreateMultipartRequestSchema,
  TemplateCreateRequestSchema,
  TemplateImageSchema,
  TemplateListDataSchema,
  TemplateListRequestSchema,
} from '../../gateway/schemas/index.ts';
import { issuesOf, pathsOf } from '../support/zod-issues.ts';

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

/** The signatures the image rules read; the rest of a real file does not matter to them. */
const PNG_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG_BYTES = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const png = { fileName: 'thumb.png', contentType: 'image/png', data: PNG_BYTES };
const jpeg = { fileName: 'banner.JPG', contentType: 'image/jpeg', data: JPEG_BYTES };

describe('template images', () => {
  it('accepts a PNG and a JPEG whose type matches their bytes and name', () => {
    expect(pathsOf(TemplateImageSchema, png)).toEqual([]);
    expect(pathsOf(TemplateImageSchema, jpeg)).toEqual([]);
    expect(pathsOf(TemplateImageSchema, { ...jpeg, fileName: 'banner.jpeg' })).toEqual([]);
  });

  it('refuses a content type other than JPEG or PNG', () => {
    expect(
      issuesOf(TemplateImageSchema, { ...png, fileName: 'a.gif', contentType: 'image/gif' }),
    ).toEqual([
      expect.objectContaining({
        path: 'contentType',
        message: 'contentType must be one of image/jpeg, image/png',
      }),
    ]);
  });

  it('refuses a declared type the bytes or the file name contradict', () => {
    expect(pathsOf(TemplateImageSchema, { ...png, data: JPEG_BYTES })).toEqual(['data']);
    expect(pathsOf(TemplateImageSchema, { ...png, fileName: 'thumb.jpg' })).toEqual(['fileName']);
    expect(pathsOf(TemplateImageSchema, { ...png, fileName: 'thumb' })).toEqual(['fileName']);
  });

  it('refuses an empty image and one over 500 KB; exactly 500 KB passes', () => {
    const sized = (size: number) => {
      const data = new Uint8Array(size);
      data.set(PNG_BYTES);
      return { ...png, data };
    };
    expect(pathsOf(TemplateImageSchema, sized(TEMPLATE_IMAGE_MAX_BYTES))).toEqual([]);
    expect(issuesOf(TemplateImageSchema, sized(TEMPLATE_IMAGE_MAX_BYTES + 1))).toEqual([
      expect.objectContaining({ path: 'data', message: 'image is 512001 bytes; max 512000' }),
    ]);
    expect(pathsOf(TemplateImageSchema, { ...png, data: new Uint8Array(0) })).toContain('data');
  });

  it('refuses data that is not bytes and a file name that could break the part header', () => {
    expect(pathsOf(TemplateImageSchema, { ...png, data: 'iVBORw0KGgo=' })).toEqual(['data']);
    expect(pathsOf(TemplateImageSchema, { ...png, fileName: 'a"b.png' })).toEqual(['fileName']);
    expect(pathsOf(TemplateImageSchema, { ...png, fileName: '../x.png' })).toEqual(['fileName']);
  });
});

describe('multipart template create', () => {
  const highlighted = (title: string, description: string) => ({
    ...template,
    itemHighlightTitle: title,
    itemHighlightDescription: description,
  });
  /** A multipart request with a thumbnail image and these highlight texts. */
  const withThumbnail = (title: string, description: string) => ({
    reqBody: highlighted(title, description),
    itemHighlightImage: png,
  });

  it('without a thumbnail the highlight title may have 30 characters and the description 19', () => {
    const longest = highlighted('t'.repeat(30), 'd'.repeat(19));
    expect(pathsOf(TemplateCreateRequestSchema, longest)).toEqual([]);
    expect(
      pathsOf(TemplateCreateMultipartRequestSchema, { reqBody: longest, image: jpeg }),
    ).toEqual([]);
    expect(
      pathsOf(TemplateCreateRequestSchema, highlighted('t'.repeat(31), 'd'.repeat(20))),
    ).toEqual(['itemHighlightTitle', 'itemHighlightDescription']);
  });

  it('with a thumbnail (itemHighlightImage) the title is at most 21 characters and the description 13', () => {
    expect(
      pathsOf(TemplateCreateMultipartRequestSchema, withThumbnail('t'.repeat(21), 'd'.repeat(13))),
    ).toEqual([]);
    expect(
      issuesOf(TemplateCreateMultipartRequestSchema, withThumbnail('t'.repeat(22), 'd'.repeat(14))),
    ).toEqual([
      expect.objectContaining({
        path: 'reqBody.itemHighlightTitle',
        message: 'is 22 characters; max 21 with a thumbnail image (itemHighlightImage)',
      }),
      expect.objectContaining({ path: 'reqBody.itemHighlightDescription' }),
    ]);
  });

  it('counts characters, not bytes, for the thumbnail limits', () => {
    expect(
      pathsOf(
        TemplateCreateMultipartRequestSchema,
        withThumbnail('가'.repeat(21), '나'.repeat(13)),
      ),
    ).toEqual([]);
  });

  it('checks reqBody with the JSON rules and refuses parts the spec does not name', () => {
    expect(
      pathsOf(TemplateCreateMultipartRequestSchema, {
        reqBody: { ...template, templateMessageType: 'XX' },
        image: jpeg,
      }),
    ).toEqual(['reqBody.templateMessageType']);
    expect(pathsOf(TemplateCreateMultipartRequestSchema, { image: jpeg })).toEqual(['reqBody']);
    expect(
      pathsOf(TemplateCreateMultipartRequestSchema, { reqBody: template, images: [jpeg] }),
    ).toEqual(['']);
    expect(
      pathsOf(TemplateCreateMultipartRequestSchema, {
        reqBody: template,
        itemHighlightImage: { ...png, contentType: 'image/webp' },
      }),
    ).toEqual(['itemHighlightImage.contentType']);
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
