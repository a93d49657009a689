import type { MessengerStatsName } from '../../gateway/schemas/index.ts';
import { type CommandSpec, compactDateOption, type GroupSpec, valueOptions } from '../framework.ts';
import { type Column, columns } from '../output.ts';

/*
 * `msgbridge stats …`: the seven messenger read/click statistics of spec 02 §4.5, one subcommand
 * each, for one channel and send date.
 */

type Row = Record<string, unknown>;
const clickInfo =
  (field: string) =>
  (row: Row): unknown =>
    (row.clickInfo as Row | null | undefined)?.[field];

interface Statistic {
  readonly name: MessengerStatsName;
  readonly summary: string;
  readonly columns: Column<Row>[];
}

const DATE: Column<Row> = { header: 'DATE', key: 'date' };
const TEMPLATE: Column<Row>[] = [DATE, { header: 'TEMPLATE', key: 'templateCode' }];
const TYPE: Column<Row> = { header: 'TYPE', key: 'messageType' };
const RECEIVER: Column<Row> = { header: 'RECEIVER', key: 'receiveUserType' };
const TAG: Column<Row> = { header: 'TAG', key: 'groupTagKey' };
const READS: Column<Row> = { header: 'READS', key: 'readCount', right: true };
const OTHER_CLICKS: Column<Row> = { header: 'OTHER', value: clickInfo('etc'), right: true };
const BRAND_DIMENSIONS = columns<Row>({
  SPEC: 'messageSpec',
  BUBBLE: 'chatBubbleType',
  TARGETING: 'targeting',
  FRIEND: 'friendType',
});
const BRAND_CLICKS: Column<Row>[] = [
  { header: 'BUTTON', key: 'buttonClickCount', right: true },
  { header: 'LIST', key: 'listClickCount', right: true },
  { header: 'THUMBNAIL', key: 'thumbnailClickCount', right: true },
  { header: 'OTHER', key: 'etcClickCount', right: true },
];

/** Subcommand name → the client's statistic and the columns worth reading. */
const STATISTICS: Readonly<Record<string, Statistic>> = {
  'channel-notice-read': {
    name: 'channelNoticeRead',
    summary: 'notification reads of the channel',
    columns: [DATE, TYPE, RECEIVER, READS],
  },
  'channel-brand-read': {
    name: 'channelBrandRead',
    summary: 'brand message reads of the channel',
    columns: [DATE, ...BRAND_DIMENSIONS, RECEIVER, READS],
  },
  'channel-brand-click': {
    name: 'channelBrandClick',
    summary: 'brand message clicks of the channel',
    columns: [DATE, ...BRAND_DIMENSIONS, RECEIVER, ...BRAND_CLICKS],
  },
  'template-notice-read': {
    name: 'templateNoticeRead',
    summary: 'notification reads per template',
    columns: [...TEMPLATE, TYPE, READS],
  },
  'template-brand-read': {
    name: 'templateBrandRead',
    summary: 'brand message reads per template',
    columns: [...TEMPLATE, TAG, ...BRAND_DIMENSIONS, READS],
  },
  'template-notice-click': {
    name: 'templateNoticeClick',
    summary: 'notification clicks per template',
    columns: [
      ...TEMPLATE,
      TYPE,
      ...columns<Row>({
        'BUTTON ORDERS': clickInfo('buttonOrders'),
        'BY BUTTON TYPE': clickInfo('buttonType'),
        'BY QR TYPE': clickInfo('qrType'),
      }),
      OTHER_CLICKS,
    ],
  },
  'template-brand-click': {
    name: 'templateBrandClick',
    summary: 'brand message clicks per template',
    columns: [
      ...TEMPLATE,
      TAG,
      ...BRAND_DIMENSIONS,
      ...columns<Row>({
        'BUTTON ORDERS': clickInfo('buttonOrders'),
        'IMAGE ORDERS': clickInfo('imageOrders'),
        'LIST ORDERS': clickInfo('listOrders'),
      }),
      OTHER_CLICKS,
    ],
  },
};

const statisticCommand = (command: string, statistic: Statistic): CommandSpec => ({
  summary: statistic.summary,
  usage: `msgbridge stats ${command} --channel CHANNEL_ID --date YYYY-MM-DD [--elapsed DAYS]

The ${statistic.summary} (spec 02 §4.5) for messages sent on --date (KST), as counted
--elapsed days after it: 0 (the default), 1 or 2.`,
  options: valueOptions('channel', 'date', 'elapsed'),
  run: async (context) => {
    const query = {
      msgrChId: context.required('channel'),
      date: compactDateOption('date', context.required('date'), 8),
      elapsedDay: String(context.integer('elapsed', 0, { min: 0, max: 2 })) as '0' | '1' | '2',
    };
    const client = (await context.target()).gateway().management;
    const rows: Row[] = await client.stats(statistic.name, query);
    context.out.emit({ statistic: statistic.name, ...query, rows }, () =>
      context.out.table(rows, statistic.columns, '(no statistics for this day)'),
    );
    return 0;
  },
});

export const statsCommands: GroupSpec = {
  summary: 'messenger read and click statistics (spec 02)',
  description: 'Read and click statistics of a messenger channel for one send date (spec 02 §4.5).',
  commands: Object.fromEntries(
    Object.entries(STATISTICS).map(([command, statistic]) => [
      command,
      statisticCommand(command, statistic),
    ]),
  ),
};
