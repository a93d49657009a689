import { scanItems } from '../functions/commons/clients/dynamodb.ts';
import { maskPhonesDeep } from '../functions/commons/helpers/mask.ts';
import {
  KEY_PREFIX,
  parsePartitionKey,
  parseRateKey,
  parseResultKey,
  SORT_KEY,
} from '../functions/commons/table-keys.ts';
import { storedDetail } from '../functions/event-table/stored-detail.ts';
import { ACCEPTED_PREFIX } from '../functions/send-records/send-record.ts';
import type { Target } from '../ops/target.ts';
import type { PublishedEvent } from './event-log.ts';

/*
 * The flow: counts per slot (a minute over the last hour, a quarter of an hour over the last day)
 * of sends, reports by outcome, inbound messages and quarantined items, read from the event table
 * (a Scan, the same items `msgbridge trace` reads by key), and the TPS quota's use from the rate
 * limiter's per-second counters in the state table.
 */

export const SERIES = [
  'accepted',
  'scheduled',
  'rejected',
  'unknown',
  'delivered',
  'failed',
  'inbound',
  'quarantined',
  'quotaPercent',
] as const;
export type SeriesName = (typeof SERIES)[number];

/** The windows the flow is shown over, and the slot each counts per. */
export const FLOW_WINDOWS = {
  hour: { slots: 60, slotSeconds: 60 },
  day: { slots: 96, slotSeconds: 900 },
} as const;
export type FlowWindow = keyof typeof FLOW_WINDOWS;

/** How long `window` is, in milliseconds. */
export const windowMs = (window: FlowWindow): number =>
  FLOW_WINDOWS[window].slots * FLOW_WINDOWS[window].slotSeconds * 1000;

export interface FlowSeries {
  readonly window: FlowWindow;
  /** Start of each slot, epoch seconds (uPlot's x values). */
  readonly starts: number[];
  readonly slotSeconds: number;
  readonly series: Record<SeriesName, number[]>;
  /** The recipients per second the quota allows; undefined when not known. */
  readonly tpsQuota: number | undefined;
}

type Item = Record<string, unknown>;

/** Counts per slot over the window ending at `now`. */
export const flowSeries = async (
  target: Target,
  options: { readonly now: number; readonly window: FlowWindow; readonly tpsQuota?: number },
): Promise<FlowSeries> => {
  const { slots, slotSeconds } = FLOW_WINDOWS[options.window];
  const slotOf = (ms: number): number => Math.floor(ms / 1000 / slotSeconds) * slotSeconds;
  const first = slotOf(options.now) - (slots - 1) * slotSeconds;
  const starts = Array.from({ length: slots }, (_, index) => first + index * slotSeconds);
  const series = Object.fromEntries(SERIES.map((name) => [name, starts.map(() => 0)])) as Record<
    SeriesName,
    number[]
  >;
  const indexOf = (ms: number) => (slotOf(ms) - first) / slotSeconds;
  const count = (name: SeriesName, ms: number, by = 1) => {
    const slot = indexOf(ms);
    if (slot >= 0 && slot < starts.length) series[name][slot] = (series[name][slot] ?? 0) + by;
  };
  const since = new Date(first * 1000).toISOString();
  for await (const item of scanItems(target.documents, {
    TableName: target.tables.events,
    FilterExpression:
      'begins_with(pk, :send) OR ((begins_with(pk, :report) OR begins_with(pk, :mo) OR begins_with(pk, :quarantine) OR begins_with(pk, :unrecognised)) AND receivedAt >= :since)',
    ExpressionAttributeValues: {
      ':send': KEY_PREFIX.send,
      ':report': KEY_PREFIX.report,
      ':mo': KEY_PREFIX.mo,
      ':quarantine': KEY_PREFIX.quarantine,
      ':unrecognised': KEY_PREFIX.unrecognised,
      ':since': since,
    },
  })) {
    countItem(item, count);
  }
  if (options.tpsQuota !== undefined) {
    const perSecond = new Map<number, number>();
    for await (const item of scanItems(target.documents, {
      TableName: target.tables.state,
      FilterExpression: 'begins_with(pk, :rate)',
      ExpressionAttributeValues: { ':rate': KEY_PREFIX.rate },
    })) {
      const second = parseRateKey(String(item.pk))?.window ?? Number.NaN;
      const used = Number(item.used);
      if (Number.isFinite(second) && Number.isFinite(used))
        perSecond.set(second, (perSecond.get(second) ?? 0) + used);
    }
    for (const [second, used] of perSecond) {
      const slot = indexOf(second * 1000);
      const percent = Math.round((used / options.tpsQuota) * 100);
      if (slot >= 0 && slot < starts.length)
        series.quotaPercent[slot] = Math.max(series.quotaPercent[slot] ?? 0, percent);
    }
  }
  return {
    window: options.window,
    starts,
    slotSeconds,
    series,
    tpsQuota: options.tpsQuota,
  };
};

const countItem = (item: Item, count: (name: SeriesName, ms: number, by?: number) => void) => {
  const pk = String(item.pk);
  const sk = String(item.sk);
  const at = Date.parse(String(item.receivedAt ?? ''));
  const partition = parsePartitionKey(pk).kind;
  if (partition === 'send') {
    if (sk === SORT_KEY.sendRecord) {
      for (const [name, value] of Object.entries(item)) {
        if (!name.startsWith(ACCEPTED_PREFIX) || value === null || typeof value !== 'object')
          continue;
        const t = Number((value as Item).t);
        if (Number.isFinite(t)) count('accepted', t * 1000);
      }
      return;
    }
    if (sk === SORT_KEY.unknown) {
      const attempted = Date.parse(String(item.attemptedAt ?? item.receivedAt ?? ''));
      if (Number.isFinite(attempted)) count('unknown', attempted);
      return;
    }
    if (sk !== SORT_KEY.outcome || !Number.isFinite(at)) return;
    // An accepted outcome published as an event is also in its message's record: counted there.
    if (item.detailType === 'Message Scheduled') count('scheduled', at);
    if (item.detailType === 'Message Rejected') count('rejected', at);
    return;
  }
  if (!Number.isFinite(at)) return;
  if (partition === 'report') {
    if (parseResultKey(sk) === undefined) return;
    let delivered = false;
    try {
      delivered = JSON.parse(storedDetail(item) ?? '{}').data?.delivered === true;
    } catch {
      // counted as not delivered
    }
    count(delivered ? 'delivered' : 'failed', at);
    return;
  }
  if (partition === 'mo') {
    if (sk === SORT_KEY.mo) count('inbound', at);
    return;
  }
  count('quarantined', at);
};

/** Events stored in the table since `since` (a stack has no readable bus log), newest last. */
export const storedEvents = async (
  target: Target,
  since: string,
  limit: number,
): Promise<PublishedEvent[]> => {
  const events: PublishedEvent[] = [];
  for await (const item of scanItems(target.documents, {
    TableName: target.tables.events,
    FilterExpression: 'attribute_exists(detailType) AND receivedAt >= :since',
    ExpressionAttributeValues: { ':since': since },
  })) {
    let data: unknown = {};
    try {
      data = JSON.parse(storedDetail(item) ?? '{}').data ?? {};
    } catch {
      // shown without data
    }
    const masked = maskPhonesDeep(data);
    events.push({
      line: 0,
      time: String(item.receivedAt),
      detailType: String(item.detailType),
      id: typeof item.eventId === 'string' ? item.eventId : undefined,
      replayName: undefined,
      data:
        masked !== null && typeof masked === 'object' ? (masked as Record<string, unknown>) : {},
    });
  }
  events.sort((a, b) => a.time.localeCompare(b.time));
  return events.slice(-limit).map((event, index) => ({ ...event, line: index + 1 }));
};

/** The code an event carries (`resultCode`, `code`), for the flow's filter. */
export const codeOf = (event: PublishedEvent): string | undefined => {
  for (const name of ['resultCode', 'code', 'failureCategory']) {
    const value = event.data[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
};
