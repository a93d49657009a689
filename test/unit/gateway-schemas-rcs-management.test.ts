import { describe, expect, it } from 'vitest';
import {
  RCS_MANAGEMENT_PATHS,
  RcsBrandListSchema,
  RcsBrandRegisterRequestSchema,
  RcsBrandUpdateRequestSchema,
  RcsChatbotInputSchema,
  RcsChatbotListDataSchema,
  RcsNestedErrorDataSchema,
  RcsPageQuerySchema,
  RcsPortalCredentialsSchema,
  RcsRegBrandSchema,
} from '../../gateway/schemas/index.ts';
import { pathsOf } from '../support/zod-issues.ts';

const regBrand = {
  name: 'Shop',
  description: 'A shop',
  tel: '0212345678',
  categoryId: '001',
  subCategoryId: '001001',
};
const bot = { mdn: '0215880001', rcsReply: '1', subTitle: 'Bot', service: 'A2P' };

describe('RCS management requests', () => {
  it('RcsPortalCredentialsSchema limits apiId to 20 and apiSecret to 18', () => {
    // Act / Assess
    expect(pathsOf(RcsPortalCredentialsSchema, { apiId: 'a', apiSecret: 'b' })).toEqual([]);
    expect(
      pathsOf(RcsPortalCredentialsSchema, { apiId: 'a'.repeat(21), apiSecret: 'b'.repeat(19) }),
    ).toEqual(['apiId', 'apiSecret']);
    expect(pathsOf(RcsPortalCredentialsSchema, { apiSecret: 'b' })).toEqual(['apiId']);
  });

  it('RcsPageQuerySchema defaults to 0/100, sends strings and caps limit at 1000', () => {
    // Act / Assess
    expect(RcsPageQuerySchema.parse({})).toEqual({ offset: '0', limit: '100' });
    expect(RcsPageQuerySchema.parse({ offset: 5, limit: 1000 })).toEqual({
      offset: '5',
      limit: '1000',
    });
    expect(pathsOf(RcsPageQuerySchema, { limit: 1001 })).toEqual(['limit']);
    expect(pathsOf(RcsPageQuerySchema, { offset: -1 })).toEqual(['offset']);
  });

  it('RcsRegBrandSchema applies the length limits, 3 menus and http(s) weblinks', () => {
    // Act / Assess
    expect(pathsOf(RcsRegBrandSchema, regBrand)).toEqual([]);
    expect(
      pathsOf(RcsRegBrandSchema, {
        ...regBrand,
        name: 'n'.repeat(21),
        description: 'd'.repeat(151),
        tel: '1'.repeat(13),
      }),
    ).toEqual(['name', 'description', 'tel']);
    const menu = { buttonType: 'weblink', weblink: 'https://a.example' };
    expect(pathsOf(RcsRegBrandSchema, { ...regBrand, menus: [menu, menu, menu, menu] })).toEqual([
      'menus',
    ]);
    expect(
      pathsOf(RcsRegBrandSchema, { ...regBrand, menus: [{ buttonType: 'w', weblink: 'ftp://x' }] }),
    ).toEqual(['menus.0.weblink']);
  });

  it('RcsChatbotInputSchema checks rcsReply, service (either case), display and lengths', () => {
    // Act / Assess
    expect(pathsOf(RcsChatbotInputSchema, bot)).toEqual([]);
    expect(pathsOf(RcsChatbotInputSchema, { ...bot, service: 'a2p', display: '00' })).toEqual([]);
    expect(
      pathsOf(RcsChatbotInputSchema, {
        mdn: '1'.repeat(41),
        rcsReply: '2',
        subTitle: 's'.repeat(21),
        service: 'SMS',
        display: '02',
      }),
    ).toEqual(['mdn', 'rcsReply', 'subTitle', 'service', 'display']);
  });

  it('RcsBrandRegisterRequestSchema needs chatbots and a mainMdn among them', () => {
    // Prepare
    const body = { regBrand, mainMdn: bot.mdn, profileImgFilePath: '/p.png', chatbots: [bot] };

    // Act / Assess
    expect(pathsOf(RcsBrandRegisterRequestSchema, body)).toEqual([]);
    expect(pathsOf(RcsBrandRegisterRequestSchema, { ...body, mainMdn: '029' })).toEqual([
      'mainMdn',
    ]);
    expect(pathsOf(RcsBrandRegisterRequestSchema, { ...body, chatbots: [] })).toContain('chatbots');
  });

  it('RcsBrandUpdateRequestSchema refuses chatbots and certiFilePath', () => {
    // Act / Assess
    expect(
      pathsOf(RcsBrandUpdateRequestSchema, {
        regBrand,
        mainMdn: bot.mdn,
        profileImgFilePath: '/p.png',
        chatbots: [bot],
        certiFilePath: '/c.pdf',
      }),
    ).toEqual(['']);
  });
});

describe('RCS management responses', () => {
  it('reads list forms leniently: numeric strings, null lists, unknown fields kept', () => {
    // Act
    const brands = RcsBrandListSchema.parse({
      result: [{ brandId: 'BR.1', brandName: 'Shop', status: '승인', extra: 1 }],
      pagination: { total: '1', offset: '0', limit: '100' },
    });
    const chatbots = RcsChatbotListDataSchema.parse({ result: null, pagination: null });

    // Assess
    expect(brands.result[0]).toMatchObject({ brandName: 'Shop', status: '승인', extra: 1 });
    expect(brands.pagination).toMatchObject({ total: 1, offset: 0, limit: 100 });
    expect(chatbots.result).toEqual([]);
  });

  it('reads the nested error of 21399', () => {
    // Act / Assess
    expect(RcsNestedErrorDataSchema.parse({ code: 40002, message: null })).toEqual({
      code: '40002',
      message: '',
    });
  });

  it('names every spec 03 endpoint', () => {
    // Act / Assess
    expect(Object.keys(RCS_MANAGEMENT_PATHS)).toHaveLength(16);
    expect(RCS_MANAGEMENT_PATHS.checkChatbotId.path).toBe(
      '/rcs/v1/usableQuery/chatbotId/{chatbotId}',
    );
  });
});
