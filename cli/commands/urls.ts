import { maskPhone } from '../../functions/commons/helpers/mask.ts';
import { UsageError } from '../errors.ts';
import type { CommandSpec, GroupSpec } from '../framework.ts';
import { flagOptions, valueOptions } from '../framework.ts';
import { type Column, columns, gatewayTimes } from '../output.ts';

/*
 * `msgbridge urls …`: the gateway's response-tracking URLs (spec 01 §4.16), on the bearer token.
 */

const create: CommandSpec = {
  summary: 'create a tracking URL',
  usage: `msgbridge urls create --title TITLE --url URL --expires "YYYY-MM-DD HH:mm:ss"

Creates a tracking URL for URL (http:// or https://) that stops working after --expires (KST).
Prints its urlId; use it in a message with clickUrlYn "Y".`,
  options: valueOptions('title', 'url', 'expires'),
  run: async (context) => {
    const request = {
      urlTitle: context.required('title'),
      orgUrl: context.required('url'),
      expDt: context.required('expires'),
    };
    const target = await context.target();
    const urlId = await target.gateway().messaging.createClickUrl(request);
    context.out.emit({ urlId, ...request }, () =>
      context.out.line(`created tracking URL ${urlId}`),
    );
    return 0;
  },
};

interface UrlRow {
  urlId: string;
  title?: string | null | undefined;
  orgUrl?: string | null | undefined;
  expDt?: string | null | undefined;
  regDt?: string | null | undefined;
}
const URL_COLUMNS: Column<UrlRow>[] = gatewayTimes(
  columns({
    'URL ID': 'urlId',
    TITLE: 'title',
    URL: 'orgUrl',
    EXPIRES: 'expDt',
    CREATED: 'regDt',
  }),
  'EXPIRES',
  'CREATED',
);

const list: CommandSpec = {
  summary: 'list tracking URLs (100 a page; expired ones included)',
  usage: `msgbridge urls list [--page N]

Lists the tracking URLs, 100 to a page, starting at page 1. Expired URLs are listed; deleted
ones are not.`,
  options: { page: { type: 'string' } },
  run: async (context) => {
    const page = context.integer('page', 1, { min: 1 });
    const target = await context.target();
    const urls = await target.gateway().messaging.listClickUrls(page);
    context.out.emit({ page, urls }, () =>
      context.out.table(urls, URL_COLUMNS, '(no tracking URLs)'),
    );
    return 0;
  },
};

const remove: CommandSpec = {
  summary: 'delete a tracking URL for good',
  usage: `msgbridge urls delete URL_ID

Deletes the tracking URL. Irreversible; links in messages already sent keep working.`,
  positionals: { min: 1, max: 1, name: 'URL_ID' },
  run: async (context) => {
    const [urlId = ''] = context.positionals;
    const target = await context.target();
    await target.gateway().messaging.deleteClickUrl(urlId);
    context.out.emit({ urlId, deleted: true }, () =>
      context.out.line(`deleted tracking URL ${urlId}`),
    );
    return 0;
  },
};

const STATS_VIEWS = [
  'url',
  'channel',
  'receiver',
  'send-day',
  'send-hour',
  'click-day',
  'click-hour',
] as const;
type StatsView = (typeof STATS_VIEWS)[number];

const stats: CommandSpec = {
  summary: 'click statistics of a tracking URL',
  usage: `msgbridge urls stats URL_ID --from YYYY-MM-DD --to YYYY-MM-DD [--by VIEW] [--page N] [--reveal]

Statistics of one tracking URL over a range of days (KST, both ends included). VIEW is one of
  url         sent and clicked counts and the click-through rate (default; range up to 31 days)
  channel     the same per channel (up to 31 days)
  receiver    each recipient's accesses, 100 a page (up to 31 days)
  send-day, send-hour, click-day, click-hour
              counts per day or hour of sending or clicking (up to 15 days)
The receiver view lists phone numbers: they are masked unless --reveal or --json is given.`,
  positionals: { min: 1, max: 1, name: 'URL_ID' },
  options: { ...valueOptions('from', 'to', 'by', 'page'), ...flagOptions('reveal') },
  run: async (context) => {
    const [urlId = ''] = context.positionals;
    const by = (context.string('by') ?? 'url') as StatsView;
    if (!STATS_VIEWS.includes(by)) {
      throw new UsageError(`--by must be one of ${STATS_VIEWS.join(', ')}`);
    }
    const range = { from: context.required('from'), to: context.required('to'), urlId };
    const page = context.integer('page', 1, { min: 1 });
    const client = (await context.target()).gateway().messaging;
    const { out } = context;
    // Every view but receiver answers rows only: the view and range with the rows, or their table.
    const rowsOfView = <Row>(rows: readonly Row[], columns: readonly Column<Row>[]) => {
      out.emit({ view: by, ...range, rows }, () => out.table(rows, columns));
      return 0;
    };
    switch (by) {
      case 'url': {
        const rows = await client.urlStatsByUrl(range);
        return rowsOfView(rows, [
          { header: 'URL ID', key: 'urlId' },
          { header: 'TITLE', key: 'title' },
          { header: 'SENT', key: 'totCnt', right: true },
          { header: 'CLICKED', key: 'conCnt', right: true },
          { header: 'RATE', key: 'clickThroughRate', right: true },
        ]);
      }
      case 'channel': {
        const rows = await client.urlStatsByChannel(range);
        return rowsOfView(rows, [
          { header: 'CHANNEL', key: 'ch' },
          { header: 'SENT', key: 'totCnt', right: true },
          { header: 'CLICKED', key: 'conCnt', right: true },
          { header: 'RATE', key: 'clickThroughRate', right: true },
        ]);
      }
      case 'receiver': {
        const data = await client.urlStatsByReceiver({ ...range, page });
        const reveal = context.flag('reveal');
        out.emit({ view: by, ...range, page, ...data }, () => {
          out.line(`${data.totCnt ?? data.recvlst.length} accesses`);
          out.table(data.recvlst, [
            {
              header: 'PHONE',
              value: (row) => (row.phone && !reveal ? maskPhone(row.phone) : row.phone),
            },
            { header: 'CHANNEL', key: 'ch' },
            { header: 'SENT', key: 'sndYmd' },
            { header: 'ACCESSED', key: 'conYmd' },
            { header: 'MOBILE', key: 'isMobile' },
          ]);
        });
        return 0;
      }
      default: {
        const call = {
          'send-day': () => client.urlStatsSendDay(range),
          'send-hour': () => client.urlStatsSendHour(range),
          'click-day': () => client.urlStatsClickDay(range),
          'click-hour': () => client.urlStatsClickHour(range),
        }[by];
        const rows: Array<Record<string, unknown>> = await call();
        return rowsOfView(rows, [
          { header: 'DAY', key: 'ymd' },
          ...(by.endsWith('hour') ? [{ header: 'HOUR', key: 'hour' }] : []),
          { header: 'CHANNEL', key: 'ch' },
          { header: 'TOTAL', key: 'sumCnt', right: true },
          { header: 'AVERAGE', key: 'avgCnt', right: true },
        ]);
      }
    }
  },
};

export const urlsCommands: GroupSpec = {
  summary: 'tracking URLs: create, list, delete, stats',
  description: 'Response-tracking URLs of the gateway (spec 01 §4.16).',
  commands: { create, list, delete: remove, stats },
};
