import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, eventDetailSchema } from '../../functions/catalogue/index.ts';
import {
  type ExportStatisticsDeps,
  exportStatistics,
  MESSENGER_ROWS_PER_EVENT,
  type MessengerStatisticsGateway,
  previousKstDay,
  StatisticsExportIncompleteError,
  StatisticsSettingsSchema,
  type TrackingUrlStatisticsGateway,
  throwIfIncomplete,
} from '../../functions/statistics/export-use-case.ts';
import { GatewayRejectedError } from '../../gateway/errors.ts';
import type {
  ClickUrlItem,
  MessengerStatsData,
  MessengerStatsName,
  MessengerStatsQueryInput,
  UrlStatsByChannelItem,
  UrlStatsDayItem,
} from '../../gateway/schemas/index.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';

// 2026-03-11 01:30 KST: the export is for 2026-03-10.
const NOW = new Date('2026-03-10T16:30:00.000Z');
const DAY = '2026-03-10';

const url = (urlId: string, fields: Partial<ClickUrlItem> = {}): ClickUrlItem => ({
  no: null,
  title: `title ${urlId}`,
  urlId,
  orgUrl: `https://example.com/${urlId}`,
  expDt: '2026-12-31 23:59:59',
  regDt: '2026-01-01 09:00:00',
  ...fields,
});

/** Tracking URLs in memory: pages of 100, figures by urlId, failures by urlId. */
class FakeTrackingUrls implements TrackingUrlStatisticsGateway {
  urls: ClickUrlItem[] = [];
  readonly byChannel = new Map<string, UrlStatsByChannelItem[]>();
  readonly clickDay = new Map<string, UrlStatsDayItem[]>();
  readonly failing = new Map<string, Error>();
  listFailure: Error | undefined;
  readonly pagesRead: number[] = [];
  readonly statsRequests: Array<{ from: string; to: string; urlId: string }> = [];

  async listClickUrls(page: number) {
    this.pagesRead.push(page);
    if (this.listFailure) throw this.listFailure;
    return this.urls.slice((page - 1) * 100, page * 100);
  }

  async urlStatsByChannel(request: { from: string; to: string; urlId: string }) {
    this.statsRequests.push(request);
    const failure = this.failing.get(request.urlId);
    if (failure) throw failure;
    return this.byChannel.get(request.urlId) ?? [];
  }

  async urlStatsClickDay(request: { from: string; to: string; urlId: string }) {
    const failure = this.failing.get(request.urlId);
    if (failure) throw failure;
    return this.clickDay.get(request.urlId) ?? [];
  }
}

/** Messenger statistics in memory: rows by `<name>|<msgrChId>|<date>|<elapsedDay>`. */
class FakeMessenger implements MessengerStatisticsGateway {
  readonly rows = new Map<string, Array<Record<string, unknown>>>();
  readonly failingChannels = new Map<string, Error>();
  readonly queries: Array<{ name: MessengerStatsName } & MessengerStatsQueryInput> = [];

  async stats<N extends MessengerStatsName>(
    name: N,
    query: MessengerStatsQueryInput,
  ): Promise<MessengerStatsData<N>> {
    this.queries.push({ name, ...query });
    const failure = this.failingChannels.get(query.msgrChId);
    if (failure) throw failure;
    const key = `${name}|${query.msgrChId}|${query.date}|${query.elapsedDay}`;
    return (this.rows.get(key) ?? []) as MessengerStatsData<N>;
  }
}

class FakeSink {
  readonly objects = new Map<string, { body: string; contentType: string }>();
  failing = false;
  async putObject(key: string, body: string, contentType: string) {
    if (this.failing) throw new Error('S3 unavailable');
    this.objects.set(key, { body, contentType });
  }
}

const world = (settings: Record<string, unknown> = {}) => {
  const trackingUrls = new FakeTrackingUrls();
  const messenger = new FakeMessenger();
  const store = new FakeEventStore();
  const sink = new FakeSink();
  const deps = (): ExportStatisticsDeps => ({
    trackingUrls,
    messenger,
    store,
    sink,
    now: () => NOW,
    retentionDays: 35,
    settings: StatisticsSettingsSchema.parse(settings),
  });
  return { trackingUrls, messenger, store, sink, deps };
};

const rejected = (code: string) =>
  new GatewayRejectedError({ code, message: `refused for 01012345678`, endpoint: 'stats' });

describe('previousKstDay', () => {
  it('is the KST calendar day before the run, also across UTC midnight', () => {
    // Prepare / Act / Assess: 00:10 KST on the 11th is still the 10th in UTC.
    expect(previousKstDay(new Date('2026-03-10T15:10:00Z'))).toBe('2026-03-10');
    expect(previousKstDay(new Date('2026-03-10T14:50:00Z'))).toBe('2026-03-09');
    expect(previousKstDay(new Date('2026-03-01T00:00:00Z'))).toBe('2026-02-28');
  });
});

describe('exportStatistics: tracking URLs', () => {
  it('maps the figures of each URL for the previous KST day into one event', async () => {
    // Prepare
    const w = world();
    w.trackingUrls.urls = [url('1001')];
    w.trackingUrls.byChannel.set('1001', [
      { ch: 'SMS', totCnt: 20, conCnt: 5, clickThroughRate: '25.00' },
      { ch: 'RCS', totCnt: 10, conCnt: null, clickThroughRate: null },
    ]);
    w.trackingUrls.clickDay.set('1001', [
      { urlId: '1001', ymd: '20260310', ch: 'SMS', conDt: '20260310', sumCnt: 7, avgCnt: 0.29 },
    ]);

    // Act
    const result = await exportStatistics(w.deps());

    // Assess
    expect(w.trackingUrls.statsRequests).toEqual([{ from: DAY, to: DAY, urlId: '1001' }]);
    expect(result).toMatchObject({
      date: DAY,
      urlsListed: 1,
      subjectsCollected: 1,
      eventsStored: 1,
      failures: [],
    });
    const [record] = w.store.ofKind('statistics');
    expect(record).toMatchObject({
      pk: 'STATISTICS#tracking-url#1001',
      sk: DAY,
      detailType: 'Tracking Url Statistics Collected',
    });
    const [detail] = w.store.details('statistics');
    expect(detail?.metadata).toMatchObject({
      via: 'statistics-query',
      idempotencyKey: `statistics:tracking-url:1001:${DAY}`,
    });
    expect(detail?.data).toEqual({
      date: DAY,
      urlId: '1001',
      title: 'title 1001',
      orgUrl: 'https://example.com/1001',
      sentOnDate: [
        { channel: 'SMS', sent: 20, clicked: 5, clickThroughRate: '25.00' },
        { channel: 'RCS', sent: 10, clicked: null, clickThroughRate: null },
      ],
      clicksOnDate: [{ channel: 'SMS', clicks: 7, average: 0.29 }],
      totals: { sent: 30, clicked: 5, clicks: 7 },
    });
    // The published contract accepts it.
    expect(() =>
      eventDetailSchema(EVENT_TYPES.trackingUrlStatistics.data).parse(detail),
    ).not.toThrow();
  });

  it('reads every page of the URL list and skips URLs that cannot have figures that day', async () => {
    // Prepare: 150 live URLs over two pages, one expired before the day, one registered after it.
    const w = world();
    w.trackingUrls.urls = [
      ...Array.from({ length: 150 }, (_, i) => url(String(2000 + i))),
      url('expired', { expDt: '2026-03-09 23:59:59' }),
      url('new', { regDt: '2026-03-11 00:30:00' }),
      url('expires-that-day', { expDt: '2026-03-10 12:00:00' }),
    ];
    for (const each of w.trackingUrls.urls)
      w.trackingUrls.byChannel.set(each.urlId, [{ ch: 'SMS', totCnt: 1, conCnt: 1 }]);

    // Act
    const result = await exportStatistics(w.deps());

    // Assess
    expect(w.trackingUrls.pagesRead).toEqual([1, 2]);
    expect(result).toMatchObject({ urlsListed: 153, urlsSkipped: 2, eventsStored: 151 });
    const asked = new Set(w.trackingUrls.statsRequests.map((r) => r.urlId));
    expect(asked.has('expired')).toBe(false);
    expect(asked.has('new')).toBe(false);
    expect(asked.has('expires-that-day')).toBe(true);
  });

  it('stores no event for a URL without figures', async () => {
    const w = world();
    w.trackingUrls.urls = [url('quiet')];

    const result = await exportStatistics(w.deps());

    expect(result).toMatchObject({ subjectsEmpty: 1, subjectsCollected: 0, eventsStored: 0 });
    expect(w.store.items.size).toBe(0);
  });
});

describe('exportStatistics: messenger statistics', () => {
  it('asks each channel, statistic and elapsed day for the matching send date', async () => {
    // Prepare
    const w = world({
      trackingUrls: false,
      messengerChannels: ['@shop'],
      messengerStatistics: ['channelNoticeRead'],
    });
    const row = {
      date: '20260309',
      msgrChId: '@shop',
      messageType: 'AT',
      receiveUserType: 'PhoneNumber',
      readCount: 12,
    };
    w.messenger.rows.set('channelNoticeRead|@shop|20260309|1', [row]);

    // Act
    const result = await exportStatistics(w.deps());

    // Assess
    expect(
      w.messenger.queries.map((q) => `${q.name} ${q.msgrChId} ${q.date} ${q.elapsedDay}`).sort(),
    ).toEqual([
      'channelNoticeRead @shop 20260308 2',
      'channelNoticeRead @shop 20260309 1',
      'channelNoticeRead @shop 20260310 0',
    ]);
    expect(result).toMatchObject({ subjectsCollected: 1, subjectsEmpty: 2, eventsStored: 1 });
    const [record] = w.store.ofKind('statistics');
    expect(record).toMatchObject({
      pk: 'STATISTICS#messenger#@shop',
      sk: 'channelNoticeRead#2026-03-09#1#1',
      detailType: 'Messenger Statistics Collected',
    });
    const [detail] = w.store.details('statistics');
    expect(detail?.data).toEqual({
      statistic: 'channelNoticeRead',
      msgrChId: '@shop',
      date: DAY,
      sendDate: '2026-03-09',
      elapsedDay: 1,
      part: 1,
      parts: 1,
      rows: [row],
    });
    expect(() =>
      eventDetailSchema(EVENT_TYPES.messengerStatistics.data).parse(detail),
    ).not.toThrow();
  });

  it(`splits an answer into events of at most ${MESSENGER_ROWS_PER_EVENT} rows`, async () => {
    const w = world({
      trackingUrls: false,
      messengerChannels: ['@shop'],
      messengerStatistics: ['templateNoticeRead'],
      elapsedDays: [0],
    });
    const rows = Array.from({ length: 250 }, (_, i) => ({ templateCode: `T${i}`, readCount: i }));
    w.messenger.rows.set('templateNoticeRead|@shop|20260310|0', rows);

    const result = await exportStatistics(w.deps());

    expect(result.eventsStored).toBe(3);
    const details = w.store
      .details('statistics')
      .map((d) => d.data as { part: number; parts: number; rows: unknown[] })
      .sort((a, b) => a.part - b.part);
    expect(details.map((d) => [d.part, d.parts, d.rows.length])).toEqual([
      [1, 3, 100],
      [2, 3, 100],
      [3, 3, 50],
    ]);
    expect(details.flatMap((d) => d.rows)).toEqual(rows);
  });
});

describe('exportStatistics: idempotency', () => {
  it('stores nothing twice when the same day is exported again', async () => {
    // Prepare
    const w = world({ messengerChannels: ['@shop'], elapsedDays: [0] });
    w.trackingUrls.urls = [url('1001')];
    w.trackingUrls.byChannel.set('1001', [{ ch: 'SMS', totCnt: 3, conCnt: 1 }]);
    w.messenger.rows.set('channelBrandRead|@shop|20260310|0', [{ readCount: 4 }]);
    const first = await exportStatistics(w.deps());
    const ids = [...w.store.items.values()].map((r) => r.eventId);

    // Act: a retry of the same run, a little later the same day.
    const later = new Date(NOW.getTime() + 3_600_000);
    const second = await exportStatistics({ ...w.deps(), now: () => later });

    // Assess
    expect(first).toMatchObject({ eventsStored: 2, eventsDuplicate: 0 });
    expect(second).toMatchObject({ date: DAY, eventsStored: 0, eventsDuplicate: 2 });
    expect([...w.store.items.values()].map((r) => r.eventId)).toEqual(ids);
  });
});

describe('exportStatistics: failures', () => {
  it('goes on past a failing subject and reports it', async () => {
    // Prepare: one URL and one channel refused, the rest answering.
    const w = world({
      messengerChannels: ['@broken', '@shop'],
      messengerStatistics: ['channelNoticeRead'],
      elapsedDays: [0],
    });
    w.trackingUrls.urls = [url('good'), url('bad')];
    w.trackingUrls.byChannel.set('good', [{ ch: 'SMS', totCnt: 3, conCnt: 1 }]);
    w.trackingUrls.failing.set('bad', rejected('21803'));
    w.messenger.failingChannels.set('@broken', rejected('22601'));
    w.messenger.rows.set('channelNoticeRead|@shop|20260310|0', [{ readCount: 1 }]);

    // Act
    const result = await exportStatistics(w.deps());

    // Assess
    expect(result.eventsStored).toBe(2);
    expect(
      w.store
        .ofKind('statistics')
        .map((r) => r.pk)
        .sort(),
    ).toEqual(['STATISTICS#messenger#@shop', 'STATISTICS#tracking-url#good']);
    expect(result.failures).toEqual([
      expect.objectContaining({ kind: 'tracking-url', subject: 'bad' }),
      expect.objectContaining({
        kind: 'messenger',
        subject: '@broken channelNoticeRead 2026-03-10',
      }),
    ]);
    // Phone numbers in gateway messages never reach the failure list (it is logged).
    expect(JSON.stringify(result.failures)).not.toContain('01012345678');
    expect(result.failures[0]?.error).toContain('21803');
    // The JSON lines still hold what was collected.
    expect(result.objectsWritten).toHaveLength(2);
    expect(() => throwIfIncomplete(result)).toThrow(StatisticsExportIncompleteError);
  });

  it('reports a failed URL list and still collects the messenger statistics', async () => {
    const w = world({ messengerChannels: ['@shop'], elapsedDays: [0] });
    w.trackingUrls.listFailure = rejected('29019');
    w.messenger.rows.set('channelBrandClick|@shop|20260310|0', [{ buttonClickCount: 2 }]);

    const result = await exportStatistics(w.deps());

    expect(result.failures).toEqual([
      expect.objectContaining({ kind: 'tracking-url', subject: 'list' }),
    ]);
    expect(result.eventsStored).toBe(1);
  });

  it('reports a subject whose event could not be stored, and the others are stored', async () => {
    const w = world({ trackingUrls: true });
    w.trackingUrls.urls = [url('a'), url('b')];
    for (const id of ['a', 'b']) w.trackingUrls.byChannel.set(id, [{ ch: 'SMS', totCnt: 1 }]);
    w.store.failKey('STATISTICS#tracking-url#a');

    const result = await exportStatistics(w.deps());

    expect(result.eventsStored).toBe(1);
    expect(result.failures).toEqual([
      expect.objectContaining({
        kind: 'tracking-url',
        subject: 'a',
        error: expect.stringContaining('ProvisionedThroughputExceededException'),
      }),
    ]);
  });

  it('reports a failed object write after storing every event', async () => {
    const w = world();
    w.trackingUrls.urls = [url('a')];
    w.trackingUrls.byChannel.set('a', [{ ch: 'SMS', totCnt: 1 }]);
    w.sink.failing = true;

    const result = await exportStatistics(w.deps());

    expect(result.eventsStored).toBe(1);
    expect(result.failures).toEqual([
      expect.objectContaining({
        kind: 'tracking-url',
        subject: `object statistics/tracking-url/dt=${DAY}/part.jsonl`,
      }),
    ]);
  });

  it('completes without throwing when nothing failed', () => {
    expect(() =>
      throwIfIncomplete({
        date: DAY,
        urlsListed: 0,
        urlsSkipped: 0,
        subjectsCollected: 0,
        subjectsEmpty: 0,
        eventsStored: 0,
        eventsDuplicate: 0,
        objectsWritten: [],
        failures: [],
      }),
    ).not.toThrow();
  });
});

describe('exportStatistics: JSON lines', () => {
  it('writes one object per kind and day, one line per event, the same on a rerun', async () => {
    // Prepare
    const w = world({
      messengerChannels: ['@shop'],
      messengerStatistics: ['channelNoticeRead'],
      elapsedDays: [0],
      keyPrefix: 'stats/',
    });
    w.trackingUrls.urls = [url('b'), url('a')];
    w.trackingUrls.byChannel.set('a', [{ ch: 'SMS', totCnt: 2, conCnt: 1 }]);
    w.trackingUrls.byChannel.set('b', [{ ch: 'LMS', totCnt: 4, conCnt: 0 }]);
    w.messenger.rows.set('channelNoticeRead|@shop|20260310|0', [{ readCount: 9 }]);

    // Act
    const result = await exportStatistics(w.deps());
    const firstBodies = new Map([...w.sink.objects].map(([key, o]) => [key, o.body]));
    await exportStatistics(w.deps());

    // Assess
    const urlKey = `stats/tracking-url/dt=${DAY}/part.jsonl`;
    const messengerKey = `stats/messenger/dt=${DAY}/part.jsonl`;
    expect([...result.objectsWritten].sort()).toEqual([messengerKey, urlKey]);
    const urlObject = w.sink.objects.get(urlKey);
    expect(urlObject?.contentType).toBe('application/x-ndjson');
    const lines = (urlObject?.body ?? '')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.urlId, line.totals.sent]).sort()).toEqual([
      ['a', 2],
      ['b', 4],
    ]);
    const ids = new Set(w.store.ofKind('statistics').map((r) => r.eventId));
    for (const line of lines) expect(ids.has(line.eventId)).toBe(true);
    const [messengerLine] = (w.sink.objects.get(messengerKey)?.body ?? '')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messengerLine).toMatchObject({
      statistic: 'channelNoticeRead',
      rows: [{ readCount: 9 }],
    });
    // A rerun writes the same bytes (PutObject overwrites).
    expect(new Map([...w.sink.objects].map(([key, o]) => [key, o.body]))).toEqual(firstBodies);
  });

  it('writes nothing without a sink, and no object for a kind without figures', async () => {
    const w = world();
    w.trackingUrls.urls = [url('a')];
    w.trackingUrls.byChannel.set('a', [{ ch: 'SMS', totCnt: 1 }]);

    const withoutSink = await exportStatistics({ ...w.deps(), sink: undefined });
    const withSink = await exportStatistics(w.deps());

    expect(withoutSink.objectsWritten).toEqual([]);
    expect(withSink.objectsWritten).toEqual([`statistics/tracking-url/dt=${DAY}/part.jsonl`]);
  });
});

describe('StatisticsSettingsSchema', () => {
  it('defaults to tracking URLs only, all seven statistics and elapsed days 0 to 2', () => {
    expect(StatisticsSettingsSchema.parse({})).toMatchObject({
      trackingUrls: true,
      messengerChannels: [],
      messengerStatistics: [
        'channelNoticeRead',
        'channelBrandRead',
        'channelBrandClick',
        'templateNoticeRead',
        'templateBrandRead',
        'templateNoticeClick',
        'templateBrandClick',
      ],
      elapsedDays: [0, 1, 2],
    });
  });

  it('refuses an unknown statistic and an elapsed day outside 0 to 2', () => {
    const parsed = StatisticsSettingsSchema.safeParse({
      messengerStatistics: ['channelRead'],
      elapsedDays: [3],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path[0]).sort()).toEqual([
      'elapsedDays',
      'messengerStatistics',
    ]);
  });
});
