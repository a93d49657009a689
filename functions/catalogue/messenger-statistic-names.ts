import type { MessengerStatsName } from '../../gateway/schemas/messenger-statistics.ts';

/**
 * The messenger statistics of spec 02 §4.5 (`MESSENGER_STATS` in the gateway schemas), by name, in
 * the same order. A list of its own so that the event catalogue names them without building the
 * gateway's response schemas in every Lambda that imports it; the type below fails to compile
 * when a name is missing here, and a unit test compares the order.
 */
export const MESSENGER_STATISTIC_NAMES = [
  'channelNoticeRead',
  'channelBrandRead',
  'channelBrandClick',
  'templateNoticeRead',
  'templateBrandRead',
  'templateNoticeClick',
  'templateBrandClick',
] as const satisfies readonly MessengerStatsName[];

type Missing = Exclude<MessengerStatsName, (typeof MESSENGER_STATISTIC_NAMES)[number]>;
/** Compiles only while every statistic of `MESSENGER_STATS` is listed above. */
export const everyMessengerStatisticListed: [Missing] extends [never] ? true : never = true;
