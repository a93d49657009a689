import {
  NullableStringSchema,
  NumericSchema,
  nullableStrings,
  nullishCounts,
  oneOrMany,
} from './lenient.ts';
import { MsgrChIdSchema } from './messenger-ids.ts';
import * as z from './zod.ts';

/*
 * The read and click statistics of messenger channels and templates, spec 02 §4.5: seven `GET`s on
 * {mnt_url}, each with the same query. Responses are lenient (unknown fields kept, counts as
 * numbers, one object or a list both read as a list).
 */

const isRealCompactDate = (value: string): boolean => {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(4, 6));
  const day = Number(value.slice(6, 8));
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
};

/** Query of every statistics `GET`: send date `yyyyMMdd` and 0 to 2 days elapsed since it. */
export const MessengerStatsQuerySchema = z.strictObject({
  msgrChId: MsgrChIdSchema,
  date: z.string().check(
    z.superRefine((value, ctx) => {
      if (!/^\d{8}$/.test(value)) ctx.addIssue({ code: 'custom', message: 'expected yyyyMMdd' });
      else if (!isRealCompactDate(value)) {
        ctx.addIssue({ code: 'custom', message: `${value} is not a real calendar date` });
      }
    }),
  ),
  /** A String on the wire; 0, 1 or 2 given as a number is written as its string. */
  elapsedDay: z.pipe(z.union([z.enum(['0', '1', '2']), z.literal([0, 1, 2])]), z.transform(String)),
});
export type MessengerStatsQuery = z.infer<typeof MessengerStatsQuerySchema>;
export type MessengerStatsQueryInput = z.input<typeof MessengerStatsQuerySchema>;

const count = z.nullish(NumericSchema);
const orders = z.nullish(z.array(z.unknown()));
const countsByType = z.nullish(z.record(z.string(), NumericSchema));

const brandDimensions = nullableStrings(
  'date',
  'msgrChId',
  'messageSpec',
  'chatBubbleType',
  'targeting',
  'friendType',
);

export const ChannelNoticeReadItemSchema = z.looseObject({
  ...nullableStrings('date', 'msgrChId', 'messageType', 'receiveUserType'),
  readCount: count,
});
export const ChannelBrandReadItemSchema = z.looseObject({
  ...brandDimensions,
  receiveUserType: NullableStringSchema,
  readCount: count,
});
export const ChannelBrandClickItemSchema = z.looseObject({
  ...brandDimensions,
  receiveUserType: NullableStringSchema,
  ...nullishCounts('buttonClickCount', 'listClickCount', 'thumbnailClickCount', 'etcClickCount'),
});
export const TemplateNoticeReadItemSchema = z.looseObject({
  ...nullableStrings('date', 'msgrChId', 'messageType', 'templateCode'),
  readCount: count,
});
export const TemplateBrandReadItemSchema = z.looseObject({
  ...brandDimensions,
  ...nullableStrings('templateCode', 'groupTagKey'),
  readCount: count,
});
export const TemplateNoticeClickItemSchema = z.looseObject({
  ...nullableStrings('date', 'msgrChId', 'templateCode', 'messageType'),
  clickInfo: z.nullish(
    z.looseObject({
      buttonOrders: orders,
      buttonType: countsByType,
      qrType: countsByType,
      etc: count,
    }),
  ),
});
export const TemplateBrandClickItemSchema = z.looseObject({
  ...brandDimensions,
  ...nullableStrings('templateCode', 'groupTagKey'),
  clickInfo: z.nullish(
    z.looseObject({ buttonOrders: orders, imageOrders: orders, listOrders: orders, etc: count }),
  ),
});

/**
 * The seven statistics: path and the schema of the answer's `data` (a list). The spec names item
 * fields only, so one object or a list are both read as a list.
 */
export const MESSENGER_STATS = {
  channelNoticeRead: {
    path: '/msgr/v2/stat/msgrChId/noticeRead',
    dataSchema: oneOrMany(ChannelNoticeReadItemSchema),
  },
  channelBrandRead: {
    path: '/msgr/v2/stat/msgrChId/brandRead',
    dataSchema: oneOrMany(ChannelBrandReadItemSchema),
  },
  channelBrandClick: {
    path: '/msgr/v2/stat/msgrChId/brandClick',
    dataSchema: oneOrMany(ChannelBrandClickItemSchema),
  },
  templateNoticeRead: {
    path: '/msgr/v2/stat/template/noticeRead',
    dataSchema: oneOrMany(TemplateNoticeReadItemSchema),
  },
  templateBrandRead: {
    path: '/msgr/v2/stat/template/brandRead',
    dataSchema: oneOrMany(TemplateBrandReadItemSchema),
  },
  templateNoticeClick: {
    path: '/msgr/v2/stat/template/noticeClick',
    dataSchema: oneOrMany(TemplateNoticeClickItemSchema),
  },
  templateBrandClick: {
    path: '/msgr/v2/stat/template/brandClick',
    dataSchema: oneOrMany(TemplateBrandClickItemSchema),
  },
} as const;
export type MessengerStatsName = keyof typeof MESSENGER_STATS;
export type MessengerStatsData<N extends MessengerStatsName> = z.output<
  (typeof MESSENGER_STATS)[N]['dataSchema']
>;
