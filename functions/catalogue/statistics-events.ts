import * as z from '../../gateway/schemas/zod.ts';
import { lazily } from '../commons/helpers/lazily.ts';
import { MESSENGER_STATISTIC_NAMES } from './messenger-statistic-names.ts';

/*
 * The data of the two statistics events of the catalogue (`catalogue.ts`), which the statistics
 * export alone emits: the daily figures of a tracking URL and of a messenger read/click statistic.
 */

const kstDateSchema = /* @__PURE__ */ lazily(() => z.iso.date());
const countSchema = /* @__PURE__ */ lazily(() => z.nullable(z.number()));

export const trackingUrlStatisticsDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    date: kstDateSchema().check(z.describe('The Korean (KST) calendar day the figures are for.')),
    urlId: z.string().check(z.describe("The gateway's id of the tracking URL.")),
    title: z.nullable(z.string()),
    orgUrl: z.nullable(z.string()).check(z.describe('Where the short URL leads.')),
    sentOnDate: z
      .array(
        z.strictObject({
          channel: z.nullable(z.string()),
          sent: countSchema().check(z.describe('Messages sent with the URL that day (`totCnt`).')),
          clicked: countSchema().check(
            z.describe('How many of those were opened so far (`conCnt`).'),
          ),
          clickThroughRate: z
            .nullable(z.string())
            .check(
              z.describe(
                '`clickThroughRate` as the gateway wrote it (a percentage such as `"12.50"`).',
              ),
            ),
        }),
      )
      .check(
        z.describe(
          '`stat/url/channel` for the day (measured by send date), one entry per channel.',
        ),
      ),
    clicksOnDate: z
      .array(
        z.strictObject({
          channel: z.nullable(z.string()),
          clicks: countSchema().check(z.describe('Clicks that day (`sumCnt`).')),
          average: countSchema().check(z.describe('`avgCnt` as the gateway computes it.')),
        }),
      )
      .check(
        z.describe(
          '`stat/url/clickDay` for the day (measured by click date), one entry per channel.',
        ),
      ),
    totals: z
      .strictObject({
        sent: z.number().check(z.describe('Sum of `sentOnDate[].sent`.')),
        clicked: z.number().check(z.describe('Sum of `sentOnDate[].clicked`.')),
        clicks: z.number().check(z.describe('Sum of `clicksOnDate[].clicks`.')),
      })
      .check(z.describe('Sums over the channels; a missing count counts as 0.')),
  }),
);
export type TrackingUrlStatisticsData = z.infer<ReturnType<typeof trackingUrlStatisticsDataSchema>>;

const messengerStatisticNameSchema = /* @__PURE__ */ lazily(() =>
  z.enum(MESSENGER_STATISTIC_NAMES),
);

export const messengerStatisticsDataSchema = /* @__PURE__ */ lazily(() =>
  z.strictObject({
    statistic: messengerStatisticNameSchema().check(
      z.describe(
        'Which read/click statistic (spec 02 §4.5): `channelNoticeRead` is `/msgr/v2/stat/msgrChId/noticeRead`, `templateBrandClick` is `/msgr/v2/stat/template/brandClick`, and so on.',
      ),
    ),
    msgrChId: z.string().check(z.describe('The messenger channel.')),
    date: kstDateSchema().check(
      z.describe(
        'The KST day of the export run that collected the figures (the day before the run).',
      ),
    ),
    sendDate: kstDateSchema().check(z.describe('The send date asked for (`date` of the query).')),
    elapsedDay: z
      .int()
      .check(
        z.minimum(0),
        z.maximum(2),
        z.describe(
          'Days elapsed since `sendDate` (`elapsedDay` of the query): `date` minus `sendDate`.',
        ),
      ),
    part: z
      .int()
      .check(
        z.minimum(1),
        z.describe('Which part of the answer, when its rows are split over several events.'),
      ),
    parts: z
      .int()
      .check(
        z.minimum(1),
        z.describe('How many parts the answer was split into (at most 100 rows each).'),
      ),
    rows: z
      .array(z.record(z.string(), z.unknown()))
      .check(
        z.describe(
          "The gateway's items as it sent them (dimensions such as `messageType`, `templateCode`, `chatBubbleType`, and the counts, read as numbers); unknown fields are kept.",
        ),
      ),
  }),
);
export type MessengerStatisticsData = z.infer<ReturnType<typeof messengerStatisticsDataSchema>>;
