import type { MessengerStatsName } from '../../functions/commons/gateway/schemas/index.ts';
import { type CommandSpec, compactDateOption, type GroupSpec } from '../framework.ts';
import type { Column } from '../output.ts';

/*
 * `msgbridge stats …`: the seven messenger read/click statistics of spec 02 §4.5, one subcommand
 * each, for one channel and send date.
 */

type Row = Record<string, unknown>;
const clickInfo =
  (field: string) =>
  (row: Row): unknown =>
    (row.clickInfo as Row | null | undefined)?.[field];

const BRAND_DIMENSIONS: Column<Row>[] = [
  { header: 'SPEC', key: 'messageSpec' },
  { header: 'BUBBLE', key: 'chatBubbleType' },
  { header: 'TARGETING', key: 'targeting' },
  { header: 'FRIEND', key: 'friendType' },
];

interface Statistic {
  readonly name: MessengerStatsName;
  readonly summary: string;
  readonly columns: Column<Row>[];
}

/** Subcommand name → the client's statistic and the columns worth reading. */
const STATISTICS: Readonly<Record<string, Statistic>> = {
  'channel-notice-read': {
    name: 'channelNoticeRead',
    summary: 'notification reads of the channel',
    columns: [
      { header: 'DATE', key: 'date' },
      { header: 'TYPE', key: 'messageType' },
      { header: 'RECEIVER', key: 'receiveUserType' },
      { header: 'READS', key: 'readCount', right: true },
    ],
  },
  'channel-brand-read': {
    name: 'channelBrandRead',
    summary: 'brand message reads of the channel',
    columns: [
      { header: 'DATE', key: 'date' },
      ...BRAND_DIMENSIONS,
      { header: 'RECEIVER', key: 'receiveUserType' },
      { header: 'READS', key: 'readCount', right: true },
    ],
  },
  'channel-brand-click': {
    name: 'channelBrandClick',
    summary: 'brand message clicks of the channel',
    columns: [
      { header: 'DATE', key: 'date' },
      ...BRAND_DIMENSIONS,
      { header: 'RECEIVER', key: 'receiveUserType' },
      { header: 'BUTTON', key: 'buttonClickCount', right: true },
      { header: 'LIST', key: 'listClickCount', right: true },
      { header: 'THUMBNAIL', key: 'thumbnailClickCount', right: true },
      { header: 'OTHER', key: 'etcClickCount', right: true },
    ],
  },
  'template-notice-read': {
    name: 'templateNoticeRead',
    summary: 'notification reads per template',
    columns: [
      { header: 'DATE', key: 'date' },
      { header: 'TEMPLATE', key: 'templateCode' },
      { header: 'TYPE', key: 'messageType' },
      { header: 'READS', key: 'readCount', right: true },
    ],
  },
  'template-brand-read': {
    name: 'templateBrandRead',
    summary: 'brand message reads per template',
    columns: [
      { header: 'DATE', key: 'date' },
      { header: 'TEMPLATE', key: 'templateCode' },
      { header: 'TAG', key: 'groupTagKey' },
      ...BRAND_DIMENSIONS,
      { header: 'READS', key: 'readCount', right: true },
    ],
  },
  'template-notice-click': {
    name: 'templateNoticeClick',
    summary: 'notification clicks per template',
    columns: [
      { header: 'DATE', key: 'date' },
      { header: 'TEMPLATE', key: 'templateCode' },
      { header: 'TYPE', key: 'messageType' },
      { header: 'BUTTON ORDERS', value: clickInfo('buttonOrders') },
      { header: 'BY BUTTON TYPE', value: clickInfo('buttonType') },
      { header: 'BY QR TYPE', value: clickInfo('qrType') },
      { header: 'OTHER', value: clickInfo('etc'), right: true },
    ],
  },
  'template-brand-click': {
    name: 'templateBrandClick',
    summary: 'brand message clicks per template',
    columns: [
      { header: 'DATE', key: 'date' },
      { header: 'TEMPLATE', key: 'templateCode' },
      { header: 'TAG', key: 'groupTagKey' },
      ...BRAND_DIMENSIONS,
      { header: 'BUTTON ORDERS', value: clickInfo('buttonOrders') },
      { header: 'IMAGE ORDERS', value: clickInfo('imageOrders') },
      { header: 'LIST ORDERS', value: clickInfo('listOrders') },
      { header: 'OTHER', value: clickInfo('etc'), right: true },
    ],
  },
};

const statisticCommand = (command: string, statistic: Statistic): CommandSpec => ({
  summary: statistic.summary,
  usage: `msgbridge stats ${command} --channel CHANNEL_ID --date YYYY-MM-DD [--elapsed DAYS]

The ${statistic.summary} (spec 02 §4.5) for messages sent on --date (KST), as counted
--elapsed days after it: 0 (the default), 1 or 2.`,
  options: {
    channel: { type: 'string' },
    date: { type: 'string' },
    elapsed: { type: 'string' },
  },
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
