/**
 * The simulator's own send rules, driven over HTTP with raw request bodies: each case shows the
 * simulator enforcing one rule of spec 01 (§2, §4.3–4.10, §8) or of the field notes by itself,
 * whatever the bridge believes.
 */

import { describe, it } from 'vitest';
import {
  brandFree,
  brandTemplate,
  expectAccepted,
  expectRefused,
  mms,
  notice,
  openUrl,
  push,
  rcs,
  send,
  sim,
  sms,
  token,
  useRulesSimulator,
} from '../support/send-rules-simulator.ts';
import { postMultipartMms } from '../support/simulator-http.ts';

useRulesSimulator();

describe('other field rules of the spec', () => {
  it.each([
    ['an unknown field', '/msg/v1/sms', sms({ fbInfoList: [] }), 'fbInfoList'],
    ['RCS advertising (header 1) without footer', '/msg/v1/rcs', rcs({ header: '1' }), 'footer'],
    ['integrated RCS with header 1', '/rcs/v1.1', rcs({ header: '1' }), 'header'],
    ['integrated RCS with copyAllowed', '/rcs/v1.1', rcs({ copyAllowed: true }), 'copyAllowed'],
    ['RCS v1 with agency brand fields', '/msg/v1/rcs', rcs({ brandId: 'B1' }), 'brandId'],
    [
      'RCS v1.1 agency without brandId',
      '/msg/v1.1/rcs',
      rcs({ agency: { rcsAgencyId: 'A' } }),
      'brandId',
    ],
    [
      'five RCS buttons',
      '/msg/v1.1/rcs',
      rcs({ buttons: Array(5).fill(openUrl('https://e.com')) }),
      'buttons',
    ],
    [
      'an RCS URL button without url',
      '/msg/v1.1/rcs',
      rcs({
        buttons: [
          {
            suggestions: [
              { action: { displayText: 'x', postback: { data: 'set_by_chatbot_open_url' } } },
            ],
          },
        ],
      }),
      'urlAction.openUrl.url',
    ],
    ['push without clickUrlYn', '/msg/v1/push', { ...push(), clickUrlYn: undefined }, 'clickUrlYn'],
    [
      'push ext over 1000 bytes',
      '/msg/v1/push',
      push({ ext: { image: 'x'.repeat(1_000) } }),
      'ext',
    ],
    [
      'a notification item list of 1 entry',
      '/msgr/notice/v1.2',
      notice({ item: { list: [{ title: 't', description: 'd' }] } }),
      'item.list',
    ],
    [
      'a notification WL button without url_mobile',
      '/msgr/notice/v1.2',
      notice({ buttons: [{ name: 'Go', type: 'WL' }] }),
      'url_mobile',
    ],
    [
      'six notification buttons',
      '/msgr/notice/v1.2',
      notice({ buttons: Array(6).fill({ name: 'k', type: 'BK' }) }),
      'buttons',
    ],
    [
      'a notification AC button after another',
      '/msgr/notice/v1.2',
      notice({
        buttons: [
          { name: 'k', type: 'BK' },
          { name: 'a', type: 'AC' },
        ],
      }),
      'buttons[1].type',
    ],
    [
      'a brand chatBubbleType not listed',
      '/msgr/brand/tmplt/v1',
      brandTemplate({ chatBubbleType: 'VIDEO' }),
      'chatBubbleType',
    ],
    [
      'a brand unsubscribeAuthNumber alone',
      '/msgr/brand/tmplt/v1',
      brandTemplate({ unsubscribeAuthNumber: '1234' }),
      'unsubscribeAuthNumber',
    ],
    [
      'brand template with campaignId (4.10 only)',
      '/msgr/brand/tmplt/v1',
      brandTemplate({ campaignId: 'C1' }),
      'campaignId',
    ],
    [
      'brand free IMAGE without imageUrl',
      '/msgr/brand/custom/v1',
      brandFree({ chatBubbleType: 'IMAGE' }),
      'imageUrl',
    ],
    [
      'brand free WIDE_ITEM_LIST with 2 items',
      '/msgr/brand/custom/v1',
      brandFree({
        chatBubbleType: 'WIDE_ITEM_LIST',
        header: 'h',
        wideItemList: [{}, {}],
        content: undefined,
      }),
      'wideItemList',
    ],
    [
      'brand free buttons on a carousel',
      '/msgr/brand/custom/v1',
      brandFree({
        chatBubbleType: 'CAROUSEL_FEED',
        content: undefined,
        buttons: [{ type: 'BK', name: 'k' }],
      }),
      'buttons',
    ],
    [
      'brand free commerce with both discounts',
      '/msgr/brand/custom/v1',
      brandFree({
        chatBubbleType: 'COMMERCE',
        content: undefined,
        imageUrl: 'https://e.com/i.jpg',
        buttons: [{ type: 'BK', name: 'k' }],
        commerce: {
          title: 't',
          regularPrice: 10,
          discountPrice: 5,
          discountRate: 50,
          discountFixed: 5,
        },
      }),
      'commerce',
    ],
  ])('refuses %s with 21001', async (_label, path, body, named) => {
    await expectRefused(send(path, body), '21001', named);
  });
});

describe('multipart MMS (spec 01 §4.4)', () => {
  const multipart = async (reqMsg: unknown, files: number) => {
    const form = new FormData();
    form.append('reqMsg', new Blob([JSON.stringify(reqMsg)], { type: 'application/json' }));
    for (let index = 0; index < files; index++) {
      form.append(
        'parts',
        new Blob([Buffer.alloc(64, index)], { type: 'image/jpeg' }),
        `${index}.jpg`,
      );
    }
    return postMultipartMms(sim, token, form);
  };

  it('accepts reqMsg with one file, and refuses file ids in reqMsg or no file at all', async () => {
    await expectAccepted(multipart(mms(), 1));
    await expectRefused(multipart(mms({ fileIdLst: ['F-1'] }), 1), '21001', 'fileIdLst');
    await expectRefused(multipart(mms(), 0), '21001', 'parts');
  });
});
