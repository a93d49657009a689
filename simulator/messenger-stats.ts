import type { MessengerStatName } from './messenger-requests.ts';
import { stableHash } from './stable-hash.ts';

/**
 * The rows of one read/click statistic (spec 02 §4.5) for a channel, send date and elapsed day.
 * Counts are deterministic (a hash of the statistic, channel, date, day and dimension) so a test
 * can ask twice and compare. Channel statistics answer one row; template statistics one row per
 * template of the channel. The spec lists the item fields and their values but not how many rows
 * come back, nor `groupTagKey`'s value: one row per dimension set, and `groupTagKey` `null`.
 */
export const statRows = (
  name: MessengerStatName,
  query: { readonly msgrChId: string; readonly date: string; readonly elapsedDay: string },
  templateCodes: readonly string[],
): readonly object[] => {
  const { msgrChId, date, elapsedDay } = query;
  const n = (label: string) =>
    stableHash(`${name}|${msgrChId}|${date}|${elapsedDay}|${label}`) % 50;
  const base = { date, msgrChId };
  const brand = {
    ...base,
    messageSpec: 'BASIC',
    chatBubbleType: 'TEXT',
    targeting: 'I',
    friendType: 'F',
  };
  const brandOf = (templateCode: string) => ({ ...brand, templateCode, groupTagKey: null });
  switch (name) {
    case 'channelNoticeRead':
      return [{ ...base, messageType: 'AT', receiveUserType: 'PhoneNumber', readCount: n('read') }];
    case 'channelBrandRead':
      return [{ ...brand, receiveUserType: 'PhoneNumber', readCount: n('read') }];
    case 'channelBrandClick':
      return [
        {
          ...brand,
          receiveUserType: 'PhoneNumber',
          buttonClickCount: n('button'),
          listClickCount: n('list'),
          thumbnailClickCount: n('thumb'),
          etcClickCount: n('etc'),
        },
      ];
    case 'templateNoticeRead':
      return templateCodes.map((templateCode) => ({
        ...base,
        messageType: 'AT',
        templateCode,
        readCount: n(`read|${templateCode}`),
      }));
    case 'templateBrandRead':
      return templateCodes.map((templateCode) => ({
        ...brandOf(templateCode),
        readCount: n(`read|${templateCode}`),
      }));
    case 'templateNoticeClick':
      return templateCodes.map((templateCode) => ({
        ...base,
        templateCode,
        messageType: 'AT',
        clickInfo: {
          buttonOrders: [n(`b1|${templateCode}`)],
          buttonType: { WL: n(`wl|${templateCode}`), AL: 0, DS: 0, MD: 0 },
          qrType: {},
          etc: n(`etc|${templateCode}`),
        },
      }));
    case 'templateBrandClick':
      return templateCodes.map((templateCode) => ({
        ...brandOf(templateCode),
        clickInfo: {
          buttonOrders: [n(`b1|${templateCode}`)],
          imageOrders: [],
          listOrders: [],
          etc: n(`etc|${templateCode}`),
        },
      }));
  }
};
