import type {
  ClickUrlItem,
  MessengerStatsData,
  MessengerStatsName,
  MessengerStatsQueryInput,
  UrlStatsByChannelItem,
  UrlStatsDayItem,
} from '../../gateway/schemas/index.ts';
import { MESSENGER_STATS } from '../../gateway/schemas/messenger-statistics.ts';
import * as z from '../../gateway/schemas/zod.ts';
import { formatKst, parseGatewayDateTime } from '../../protocol/kst.ts';
import { messengerStatistics, trackingUrlStatistics } from '../catalogue/catalogue.ts';
import { buildEventDetail, type EventInput } from '../catalogue/envelope.ts';
import type {
  MessengerStatisticsData,
  TrackingUrlStatisticsData,
} from '../catalogue/statistics-events.ts';
import { mapWithConcurrency } from '../commons/helpers/map-with-concurrency.ts';
import { maskPhonesInText } from '../commons/helpers/mask.ts';
import { eventKeys, idempotencyKeys } from '../commons/table-keys.ts';
import { type EventRecord, toEventRecord } from '../event-table/event-record.ts';
import type { EventStore } from '../event-table/ports.ts';

/** The tracking-URL calls of spec 01 §4.16 the export makes (`GatewayClient` has them). */
export interface TrackingUrlStatisticsGateway {
  /** One page (from 1) of up to 100 URLs; expired ones included, deleted ones not. */
  listClickUrls(page: number): Promise<readonly ClickUrlItem[]>;
  /** `stat/url/channel`: by send date. */
  urlStatsByChannel(request: {
    from: string;
    to: string;
    urlId: string;
  }): Promise<readonly UrlStatsByChannelItem[]>;
  /** `stat/url/clickDay`: by click date. */
  urlStatsClickDay(request: {
    from: string;
    to: string;
    urlId: string;
  }): Promise<readonly UrlStatsDayItem[]>;
}

/** The read/click statistics of spec 02 §4.5 (`GatewayManagementClient.stats`). */
export interface MessengerStatisticsGateway {
  stats<N extends MessengerStatsName>(
    name: N,
    query: MessengerStatsQueryInput,
  ): Promise<MessengerStatsData<N>>;
}

/** Where the optional JSON-lines copy goes: one object per key, overwritten by a rerun. */
export interface StatisticsObjectSink {
  putObject(key: string, body: string, contentType: string): Promise<void>;
}

/** The two kinds of statistics, as they appear in object keys and failures. */
export type StatisticsKind = 'tracking-url' | 'messenger';

export const MESSENGER_STATISTIC_NAMES = Object.keys(MESSENGER_STATS) as MessengerStatsName[];

/** Pages of the tracking-URL list read at most (100 URLs each). */
const MAX_URL_PAGES_LIMIT = 1_000;
const URL_LIST_PAGE_SIZE = 100;
/** Rows of one messenger statistic per event, so that an event stays far below 256 KB. */
export const MESSENGER_ROWS_PER_EVENT = 100;

export const STATISTICS_DEFAULTS = {
  trackingUrls: true,
  messengerStatistics: MESSENGER_STATISTIC_NAMES,
  elapsedDays: [0, 1, 2],
  maxUrlPages: 100,
  concurrency: 4,
  keyPrefix: 'statistics/',
} as const;

export const StatisticsSettingsSchema = z.strictObject({
  /** Collect the statistics of the account's tracking URLs. */
  trackingUrls: z._default(z.boolean(), STATISTICS_DEFAULTS.trackingUrls),
  /** Messenger channels (`msgrChId`) whose read/click statistics are collected. */
  messengerChannels: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(61))), []),
  /** Which of the seven statistics of spec 02 §4.5. */
  messengerStatistics: z._default(
    z
      .array(z.enum(MESSENGER_STATISTIC_NAMES as [MessengerStatsName, ...MessengerStatsName[]]))
      .check(z.minLength(1)),
    [...STATISTICS_DEFAULTS.messengerStatistics],
  ),
  /**
   * Elapsed days asked for: for the day D before the run, send date D − e with `elapsedDay` e,
   * so every figure the gateway has for day D is collected, whichever way it counts.
   */
  elapsedDays: z._default(
    z.array(z.union([z.literal(0), z.literal(1), z.literal(2)])).check(z.minLength(1)),
    [...STATISTICS_DEFAULTS.elapsedDays],
  ),
  /** Pages of the tracking-URL list read at most (100 URLs a page). */
  maxUrlPages: z._default(
    z.int().check(z.minimum(1), z.maximum(MAX_URL_PAGES_LIMIT)),
    STATISTICS_DEFAULTS.maxUrlPages,
  ),
  /** Gateway calls in flight at once. */
  concurrency: z._default(
    z.int().check(z.minimum(1), z.maximum(16)),
    STATISTICS_DEFAULTS.concurrency,
  ),
  /** Key prefix of the JSON-lines objects. */
  keyPrefix: z._default(z.string(), STATISTICS_DEFAULTS.keyPrefix),
});
export type StatisticsSettings = z.output<typeof StatisticsSettingsSchema>;

export interface ExportStatisticsDeps {
  readonly trackingUrls: TrackingUrlStatisticsGateway;
  /** Needed only when `settings.messengerChannels` lists channels. */
  readonly messenger?: MessengerStatisticsGateway;
  /** Each statistic becomes one event-table item, published from the table's stream. */
  readonly store: EventStore;
  /** The JSON-lines export; absent, nothing is written to S3. */
  readonly sink?: StatisticsObjectSink;
  readonly now: () => Date;
  /** Days the items stay in the event table. */
  readonly retentionDays: number;
  readonly settings: StatisticsSettings;
}

/** A subject whose statistics could not be collected, stored or exported this run. */
export interface StatisticsFailure {
  readonly kind: StatisticsKind;
  /** `list` (the URL list), a urlId, `<msgrChId> <statistic> <sendDate>`, or `object <key>`. */
  readonly subject: string;
  readonly error: string;
}

export interface ExportStatisticsResult {
  /** The KST day exported (`YYYY-MM-DD`). */
  readonly date: string;
  readonly urlsListed: number;
  /** URLs not asked about: expired before the day, or registered after it. */
  readonly urlsSkipped: number;
  /** Subjects answered with figures (one or more events each). */
  readonly subjectsCollected: number;
  /** Subjects answered without any figure: no event. */
  readonly subjectsEmpty: number;
  readonly eventsStored: number;
  /** Events already stored by an earlier run of the same day: not stored again. */
  readonly eventsDuplicate: number;
  /** Keys of the JSON-lines objects written. */
  readonly objectsWritten: readonly string[];
  readonly failures: readonly StatisticsFailure[];
}

/** The run finished but some subjects failed: thrown after everything else was stored. */
export class StatisticsExportIncompleteError extends Error {
  override readonly name = 'StatisticsExportIncompleteError';

  constructor(readonly result: ExportStatisticsResult) {
    const shown = result.failures
      .slice(0, 5)
      .map((f) => `${f.kind} ${f.subject}: ${f.error}`)
      .join('; ');
    super(
      `statistics export of ${result.date}: ${result.failures.length} subject(s) failed (${shown}${result.failures.length > 5 ? '; …' : ''})`,
    );
  }
}

/** Throws {@link StatisticsExportIncompleteError} when any subject failed. */
export const throwIfIncomplete = (result: ExportStatisticsResult): void => {
  if (result.failures.length > 0) throw new StatisticsExportIncompleteError(result);
};

const DAY_MS = 86_400_000;

/** The KST calendar day before the one holding `now`, `YYYY-MM-DD`. */
export const previousKstDay = (now: Date): string =>
  formatKst(now.getTime() - DAY_MS, 'YYYY-MM-DD');

/** A `YYYY-MM-DD` KST day shifted by whole days. */
const shiftDay = (day: string, days: number): string =>
  formatKst(Date.parse(`${day}T00:00:00+09:00`) + days * DAY_MS, 'YYYY-MM-DD');

/** Where the event of one statistic is stored; the keys make a rerun of the day a duplicate. */
export const statisticsKeys = {
  trackingUrl: eventKeys.trackingUrlStatistics,
  messenger: (
    msgrChId: string,
    statistic: MessengerStatsName,
    sendDate: string,
    elapsedDay: number,
    part: number,
  ) => eventKeys.messengerStatistics(msgrChId, statistic, sendDate, elapsedDay, part),
};

/** The JSON-lines object of one kind and day. */
export const statisticsObjectKey = (prefix: string, kind: StatisticsKind, date: string): string =>
  `${prefix}${kind}/dt=${date}/part.jsonl`;

/**
 * Collects the previous KST day's tracking-URL and messenger read/click statistics and stores
 * each as an event (and, optionally, as JSON lines in S3) for dashboards.
 *
 * Input: the ports and settings. Output: counts, the objects written and the failed subjects.
 *
 * Primary course: for the KST day D before `now()`, list the tracking URLs page by page (100 a
 * page, until a shorter page); for each URL live on D (not expired before D, not registered
 * after it) ask `stat/url/channel` and `stat/url/clickDay` for D and store one "Tracking Url
 * Statistics Collected" event; for each configured messenger channel, each chosen statistic
 * and each elapsed day e, ask for send date D − e with `elapsedDay` e and store one
 * "Messenger Statistics Collected" event per 100 rows. Events are conditional puts keyed by
 * kind, subject and day, so a rerun of the same day stores nothing twice. With a sink, one
 * JSON-lines object per kind and day holds every statistic this run collected (PutObject, so a
 * rerun overwrites it).
 *
 * Alternative courses: an answer without figures stores no event (`subjectsEmpty`); a gateway or
 * storage failure of one subject (or of the URL list) is recorded in `failures` and the other
 * subjects go on; the caller decides what a failure means ({@link throwIfIncomplete}).
 */
export const exportStatistics = async (
  deps: ExportStatisticsDeps,
): Promise<ExportStatisticsResult> => {
  const { settings } = deps;
  const now = deps.now();
  const date = previousKstDay(now);
  const at = now.toISOString();
  const failures: StatisticsFailure[] = [];
  const counts = {
    urlsListed: 0,
    urlsSkipped: 0,
    subjectsCollected: 0,
    subjectsEmpty: 0,
    eventsStored: 0,
    eventsDuplicate: 0,
  };
  const fail = (kind: StatisticsKind, subject: string, error: unknown) =>
    failures.push({ kind, subject, error: describe(error) });

  /** Stores the events of one subject; answers false (and records why) when a put failed. */
  const store = async (
    kind: StatisticsKind,
    subject: string,
    records: readonly EventRecord[],
  ): Promise<boolean> => {
    try {
      for (const record of records) {
        if ((await deps.store.putIfAbsent(record)) === 'stored') counts.eventsStored += 1;
        else counts.eventsDuplicate += 1;
      }
      return true;
    } catch (error) {
      fail(kind, subject, error);
      return false;
    }
  };

  const lines: Record<StatisticsKind, string[]> = { 'tracking-url': [], messenger: [] };
  const event = <E extends typeof trackingUrlStatistics | typeof messengerStatistics>(
    type: E,
    idempotencyKey: string,
    keys: { pk: string; sk: string },
    data: EventInput<E['name']>['data'],
  ) => {
    const detail = buildEventDetail(type, {
      idempotencyKey,
      occurredAt: at,
      receivedAt: at,
      via: 'statistics-query',
      data,
    });
    return {
      record: toEventRecord({ ...keys, kind: 'statistics' }, detail, deps.retentionDays),
      line: JSON.stringify({ eventId: detail.metadata.id, ...detail.data }),
    };
  };

  if (settings.trackingUrls) {
    const urls = await listUrls(deps.trackingUrls, settings.maxUrlPages).catch((error: unknown) => {
      fail('tracking-url', 'list', error);
      return [] as ClickUrlItem[];
    });
    counts.urlsListed = urls.length;
    const live = urls.filter((url) => isLiveOn(url, date));
    counts.urlsSkipped = urls.length - live.length;
    await mapWithConcurrency(live, settings.concurrency, async (url) => {
      const request = { from: date, to: date, urlId: url.urlId };
      let data: TrackingUrlStatisticsData;
      try {
        const [byChannel, clickDay] = await Promise.all([
          deps.trackingUrls.urlStatsByChannel(request),
          deps.trackingUrls.urlStatsClickDay(request),
        ]);
        data = trackingUrlData(date, url, byChannel, clickDay);
      } catch (error) {
        fail('tracking-url', url.urlId, error);
        return;
      }
      if (data.sentOnDate.length === 0 && data.clicksOnDate.length === 0) {
        counts.subjectsEmpty += 1;
        return;
      }
      const built = event(
        trackingUrlStatistics,
        idempotencyKeys.trackingUrlStatistics(url.urlId, date),
        statisticsKeys.trackingUrl(url.urlId, date),
        data,
      );
      lines['tracking-url'].push(built.line);
      counts.subjectsCollected += 1;
      await store('tracking-url', url.urlId, [built.record]);
    });
  }

  const channels = settings.messengerChannels;
  if (channels.length > 0) {
    const messenger = deps.messenger;
    const queries = channels.flatMap((msgrChId) =>
      settings.messengerStatistics.flatMap((statistic) =>
        settings.elapsedDays.map((elapsedDay) => ({
          msgrChId,
          statistic,
          elapsedDay,
          sendDate: shiftDay(date, -elapsedDay),
        })),
      ),
    );
    await mapWithConcurrency(queries, settings.concurrency, async (query) => {
      const subject = `${query.msgrChId} ${query.statistic} ${query.sendDate}`;
      let rows: Array<Record<string, unknown>>;
      try {
        if (!messenger) throw new Error('no messenger statistics gateway was given');
        const answer = await messenger.stats(query.statistic, {
          msgrChId: query.msgrChId,
          date: query.sendDate.replaceAll('-', ''),
          elapsedDay: query.elapsedDay,
        });
        rows = answer.map((row) => ({ ...row }));
      } catch (error) {
        fail('messenger', subject, error);
        return;
      }
      if (rows.length === 0) {
        counts.subjectsEmpty += 1;
        return;
      }
      const parts = Math.ceil(rows.length / MESSENGER_ROWS_PER_EVENT);
      const built = Array.from({ length: parts }, (_, i) => {
        const part = i + 1;
        const data: MessengerStatisticsData = {
          statistic: query.statistic,
          msgrChId: query.msgrChId,
          date,
          sendDate: query.sendDate,
          elapsedDay: query.elapsedDay,
          part,
          parts,
          rows: rows.slice(i * MESSENGER_ROWS_PER_EVENT, part * MESSENGER_ROWS_PER_EVENT),
        };
        return event(
          messengerStatistics,
          idempotencyKeys.messengerStatistics(
            query.msgrChId,
            query.statistic,
            query.sendDate,
            query.elapsedDay,
            part,
          ),
          statisticsKeys.messenger(
            query.msgrChId,
            query.statistic,
            query.sendDate,
            query.elapsedDay,
            part,
          ),
          data,
        );
      });
      lines.messenger.push(...built.map((b) => b.line));
      counts.subjectsCollected += 1;
      await store(
        'messenger',
        subject,
        built.map((b) => b.record),
      );
    });
  }

  const objectsWritten: string[] = [];
  if (deps.sink) {
    for (const kind of ['tracking-url', 'messenger'] as const) {
      if (lines[kind].length === 0) continue;
      const key = statisticsObjectKey(settings.keyPrefix, kind, date);
      // Sorted, so that the same figures always make the same object whatever the call order.
      const body = `${[...lines[kind]].sort().join('\n')}\n`;
      try {
        await deps.sink.putObject(key, body, 'application/x-ndjson');
        objectsWritten.push(key);
      } catch (error) {
        fail(kind, `object ${key}`, error);
      }
    }
  }

  return { date, ...counts, objectsWritten, failures };
};

/** Every tracking URL, page by page, until a page holds fewer than 100 (or `maxPages`). */
const listUrls = async (
  gateway: TrackingUrlStatisticsGateway,
  maxPages: number,
): Promise<ClickUrlItem[]> => {
  const urls: ClickUrlItem[] = [];
  const seen = new Set<string>();
  for (let page = 1; page <= maxPages; page++) {
    const items = await gateway.listClickUrls(page);
    for (const item of items) {
      if (seen.has(item.urlId)) continue;
      seen.add(item.urlId);
      urls.push(item);
    }
    if (items.length < URL_LIST_PAGE_SIZE) break;
  }
  return urls;
};

/**
 * False for a URL that cannot have figures on `date`: expired before the day began, or
 * registered after it ended. A date the gateway wrote in a form we cannot read keeps the URL.
 */
const isLiveOn = (url: ClickUrlItem, date: string): boolean => {
  const dayStart = Date.parse(`${date}T00:00:00+09:00`);
  const dayEnd = dayStart + DAY_MS;
  const instant = (value: string | null | undefined) => {
    const iso = value ? parseGatewayDateTime(value) : undefined;
    return iso === undefined ? undefined : Date.parse(iso);
  };
  const expires = instant(url.expDt);
  const registered = instant(url.regDt);
  if (expires !== undefined && expires <= dayStart) return false;
  if (registered !== undefined && registered >= dayEnd) return false;
  return true;
};

const orNull = (value: number | null | undefined): number | null => value ?? null;
const sum = (values: ReadonlyArray<number | null>): number =>
  values.reduce<number>((total, value) => total + (value ?? 0), 0);

/** The figures of one URL for `date`, as the event carries them. */
export const trackingUrlData = (
  date: string,
  url: ClickUrlItem,
  byChannel: readonly UrlStatsByChannelItem[],
  clickDay: readonly UrlStatsDayItem[],
): TrackingUrlStatisticsData => {
  const sentOnDate = byChannel.map((row) => ({
    channel: row.ch ?? null,
    sent: orNull(row.totCnt),
    clicked: orNull(row.conCnt),
    clickThroughRate: row.clickThroughRate ?? null,
  }));
  // The gateway filters by the range asked; a row of another day would be its mistake, not D's.
  const compactDate = date.replaceAll('-', '');
  const clicksOnDate = clickDay
    .filter((row) => !row.ymd || row.ymd.replaceAll('-', '') === compactDate)
    .map((row) => ({
      channel: row.ch ?? null,
      clicks: orNull(row.sumCnt),
      average: orNull(row.avgCnt),
    }));
  return {
    date,
    urlId: url.urlId,
    title: url.title ?? null,
    orgUrl: url.orgUrl ?? null,
    sentOnDate,
    clicksOnDate,
    totals: {
      sent: sum(sentOnDate.map((row) => row.sent)),
      clicked: sum(sentOnDate.map((row) => row.clicked)),
      clicks: sum(clicksOnDate.map((row) => row.clicks)),
    },
  };
};

/** An error as one line for the failure list; phone numbers in gateway messages are masked. */
const describe = (error: unknown): string => {
  const text =
    error instanceof Error
      ? `${error.name}: ${error.message}${'code' in error && typeof error.code === 'string' ? ` (${error.code})` : ''}`
      : String(error);
  return maskPhonesInText(text);
};
