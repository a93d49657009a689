import { describe, expect, it } from 'vitest';
import {
  GatewayAuthenticationError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayRetryableError,
} from '../../functions/commons/gateway/errors.ts';
import { GatewayClient } from '../../functions/commons/gateway/gateway-client.ts';
import type { HttpAnswer, HttpCall } from '../../functions/commons/gateway/http.ts';
import {
  type MoListData,
  MoListDataSchema,
  type PollReportsResponseData,
  PollReportsResponseDataSchema,
} from '../../functions/commons/gateway/schemas/index.ts';
import type { Lease } from '../../functions/commons/lease.ts';
import type { EventRecord } from '../../functions/events/event-record.ts';
import type { EventStore } from '../../functions/events/store-ports.ts';
import {
  MO_POLLER_LEASE,
  type MoPollingGateway,
  type PollDeps,
  type PollLogger,
  PollTimingError,
  pollInbound,
  pollReports,
  REPORT_POLLER_LEASE,
  type ReportPollingGateway,
  runPolling,
} from '../../functions/polling/poll-reports.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { moItem, reportItem } from '../support/gateway-bodies.ts';
import { MemoryPageQuarantine } from '../support/memory-page-quarantine.ts';

const START = Date.parse('2026-11-21T00:31:00.000Z');

/** A clock that only moves when someone sleeps or a fake call takes time. */
class FakeClock {
  time = START;
  readonly sleeps: number[] = [];
  readonly now = (): number => this.time;
  readonly sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.time += ms;
  };
}

type PollScript = PollReportsResponseData | Error;

interface PollCall {
  readonly at: number;
  readonly answeredAt: number;
  readonly kind: 'empty' | 'page' | 'error';
}

/**
 * The gateway's report endpoints with scripted answers. Each call takes `latencyMs` of clock
 * time. It records every poll that came sooner than 10 s after the answer to an empty poll (the
 * gateway would refuse it) and what the store held when each confirm arrived.
 */
class FakeReportGateway implements ReportPollingGateway {
  readonly polls: PollCall[] = [];
  readonly confirms: { rptKey: string; at: number; storedMsgKeys: string[] }[] = [];
  readonly tooSoon: number[] = [];
  private lastEmptyAnswerAt: number | undefined;
  /** What each confirm does: throw the error, or succeed on `null` (then always succeed). */
  confirmFailures: (Error | null)[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly script: PollScript[] | ((call: number) => PollScript),
    private readonly store: FakeEventStore,
    private readonly latencyMs = 0,
  ) {}

  async pollReports(): Promise<PollReportsResponseData> {
    const at = this.clock.time;
    if (this.lastEmptyAnswerAt !== undefined && at - this.lastEmptyAnswerAt < 10_000)
      this.tooSoon.push(at);
    this.clock.time += this.latencyMs;
    const next =
      typeof this.script === 'function'
        ? this.script(this.polls.length)
        : (this.script.shift() ?? null);
    const answeredAt = this.clock.time;
    if (next instanceof Error) {
      this.polls.push({ at, answeredAt, kind: 'error' });
      throw next;
    }
    const empty = next === null || next.rptLst.length === 0;
    this.lastEmptyAnswerAt = empty ? answeredAt : undefined;
    this.polls.push({ at, answeredAt, kind: empty ? 'empty' : 'page' });
    return next;
  }

  async confirmReports(rptKeyLst: readonly string[]): Promise<void> {
    const at = this.clock.time;
    this.clock.time += this.latencyMs;
    const failure = this.confirmFailures.shift();
    if (failure) throw failure;
    for (const rptKey of rptKeyLst)
      this.confirms.push({
        rptKey,
        at,
        storedMsgKeys: this.store.details('report').map((detail) => String(detail.data.msgKey)),
      });
  }
}

/** An in-memory lease; `renewals` scripts what each renew answers (then `true`). */
class FakeLease implements Lease {
  holder: string | undefined;
  readonly calls: string[] = [];
  renewals: boolean[] = [];

  async acquire(name: string, owner: string): Promise<boolean> {
    this.calls.push(`acquire ${name}`);
    if (this.holder !== undefined && this.holder !== owner) return false;
    this.holder = owner;
    return true;
  }

  async renew(name: string, owner: string): Promise<boolean> {
    this.calls.push(`renew ${name}`);
    const answer = (this.renewals.shift() ?? true) && this.holder === owner;
    if (!answer) this.holder = 'someone-else';
    return answer;
  }

  async release(name: string, owner: string): Promise<void> {
    this.calls.push(`release ${name}`);
    if (this.holder === owner) this.holder = undefined;
  }
}

const silent: PollLogger = { info: () => {}, warn: () => {}, error: () => {} };

let pageNumber = 0;
/** A parsed poll page of `count` reports, as the gateway client returns it. */
const page = (count: number, overrides: Record<string, unknown> = {}): PollReportsResponseData => {
  pageNumber++;
  return PollReportsResponseDataSchema.parse({
    rptKey: `rpt-${pageNumber}`,
    rptCnt: count,
    rptLst: Array.from({ length: count }, (_, i) => ({
      ...reportItem(pageNumber * 1_000 + i, overrides),
      phone: undefined,
    })),
  });
};

const msgKeysOf = (data: PollReportsResponseData): string[] =>
  data === null ? [] : data.rptLst.map((report) => (report as { msgKey: string }).msgKey);

interface Harness<G> {
  readonly clock: FakeClock;
  readonly store: FakeEventStore;
  readonly lease: FakeLease;
  readonly quarantine: MemoryPageQuarantine;
  readonly deps: (gateway: G, overrides?: Partial<PollDeps<G>>) => PollDeps<G>;
}

const harness = <G>(
  options: { deadlineInMs?: number; putMs?: number; concurrency?: number } = {},
): Harness<G> => {
  const clock = new FakeClock();
  const store = new FakeEventStore();
  const lease = new FakeLease();
  const quarantine = new MemoryPageQuarantine();
  const putMs = options.putMs ?? 0;
  // Every put takes `putMs` of clock time, so a slow store can push a page past its window.
  const timedStore: EventStore = {
    putIfAbsent: async (record: EventRecord) => {
      clock.time += putMs;
      return store.putIfAbsent(record);
    },
  };
  return {
    clock,
    store,
    lease,
    quarantine,
    deps: (gateway, overrides = {}) => ({
      gateway,
      receive: {
        store: timedStore,
        now: () => new Date(clock.now()),
        retentionDays: 35,
        concurrency: options.concurrency ?? 4,
      },
      quarantine,
      lease,
      owner: 'run-1',
      now: clock.now,
      sleep: clock.sleep,
      deadline: START + (options.deadlineInMs ?? 120_000),
      logger: silent,
      ...overrides,
    }),
  };
};

describe('pollReports: the 10 s rule', () => {
  it('waits at least 10 s after every empty poll, never less, and not much more', async () => {
    // Prepare: calls take 800 ms, so a wait counted from the request instead of the answer fails.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 90_000 });
    const gateway = new FakeReportGateway(h.clock, [null, null, page(2), null], h.store, 800);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(gateway.tooSoon).toEqual([]);
    const gapsAfterEmpty = gateway.polls
      .slice(1)
      .map((call, i) => ({ previous: gateway.polls[i], call }))
      .filter(({ previous }) => previous?.kind === 'empty')
      .map(({ previous, call }) => call.at - (previous?.answeredAt ?? 0));
    expect(gapsAfterEmpty.length).toBeGreaterThanOrEqual(4);
    for (const gap of gapsAfterEmpty) {
      expect(gap).toBeGreaterThanOrEqual(10_000);
      expect(gap).toBeLessThanOrEqual(11_000);
    }
    expect(outcome).toMatchObject({ stopped: 'deadline', reportsStored: 2, pagesConfirmed: 1 });
    expect(outcome.emptyPolls).toBe(outcome.polls - 1);
  });

  it('polls again at once after a non-empty page', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const first = page(3);
    const second = page(2);
    const gateway = new FakeReportGateway(h.clock, [first, second, null], h.store, 200);

    // Act
    await pollReports(h.deps(gateway), 'polling');

    // Assess: the next poll follows the confirm with no wait in between.
    const [poll1, poll2, poll3] = gateway.polls;
    const [confirm1, confirm2] = gateway.confirms;
    expect([poll1?.kind, poll2?.kind, poll3?.kind]).toEqual(['page', 'page', 'empty']);
    expect(poll2?.at).toBe((confirm1?.at ?? 0) + 200);
    expect(poll3?.at).toBe((confirm2?.at ?? 0) + 200);
    expect(h.clock.sleeps.slice(0, 1)).toEqual([10_500]);
  });

  it('waits 10 s after a 29002, and after a failed poll that may have counted as empty', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>({ deadlineInMs: 60_000 });
    const rateLimited = new GatewayRateLimitedError({
      code: '29002',
      message: 'Rate limit exceeded',
      endpoint: 'GET /msg/v1.2/report',
      httpStatus: 400,
    });
    const unavailable = new GatewayRetryableError({
      code: '49999',
      message: 'temporary failure',
      endpoint: 'GET /msg/v1.2/report',
      httpStatus: 503,
    });
    const gateway = new FakeReportGateway(
      h.clock,
      [rateLimited, page(1), unavailable, page(1)],
      h.store,
      100,
    );

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    const [limited, next, failed, retried] = gateway.polls;
    expect([limited?.kind, next?.kind, failed?.kind, retried?.kind]).toEqual([
      'error',
      'page',
      'error',
      'page',
    ]);
    expect((next?.at ?? 0) - (limited?.answeredAt ?? 0)).toBeGreaterThanOrEqual(10_000);
    expect((retried?.at ?? 0) - (failed?.answeredAt ?? 0)).toBeGreaterThanOrEqual(10_000);
    expect(outcome).toMatchObject({
      rateLimitedPolls: 1,
      failedPolls: 1,
      reportsStored: 2,
      pagesConfirmed: 2,
    });
  });

  it('ends the run on an error a wait cannot fix, and gives the lease back', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const refused = new GatewayAuthenticationError({
      code: '29011',
      message: 'no permission',
      endpoint: 'GET /msg/v1.2/report',
      httpStatus: 401,
    });
    const gateway = new FakeReportGateway(h.clock, [page(1), refused], h.store);

    // Act
    const result = pollReports(h.deps(gateway), 'polling');

    // Assess
    await expect(result).rejects.toBe(refused);
    expect(h.lease.holder).toBeUndefined();
    expect(h.lease.calls.at(-1)).toBe(`release ${REPORT_POLLER_LEASE}`);
  });
});

describe('pollReports: storing and confirming', () => {
  it('confirms each page only after every report on it is stored, and each report once', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const pages = [page(3), page(4)];
    const gateway = new FakeReportGateway(h.clock, [...pages, null], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(gateway.confirms.map((c) => c.rptKey)).toEqual(
      pages.map((p) => (p === null ? '' : p.rptKey)),
    );
    pages.forEach((p, i) => {
      expect(gateway.confirms[i]?.storedMsgKeys).toEqual(expect.arrayContaining(msgKeysOf(p)));
    });
    expect(h.store.ofKind('report')).toHaveLength(7);
    expect(h.store.details('report').every((d) => d.metadata.via === 'polling')).toBe(true);
    expect(outcome).toMatchObject({
      reportsPolled: 7,
      reportsStored: 7,
      reportsDuplicate: 0,
      pagesConfirmed: 2,
      pagesUnconfirmed: 0,
    });
  });

  it('stores a page again in the run when its store asks for a retry, then confirms it', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const failing = page(3);
    const next = page(2);
    const gateway = new FakeReportGateway(h.clock, [failing, next, null], h.store);
    h.store.failNext(1);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess: the second attempt stored the item the first could not; nothing was kept aside.
    expect(gateway.confirms.map((c) => c.rptKey)).toEqual([failing?.rptKey, next?.rptKey]);
    expect(gateway.confirms[0]?.storedMsgKeys).toEqual(expect.arrayContaining(msgKeysOf(failing)));
    expect(h.quarantine.pages.size).toBe(0);
    expect(outcome).toMatchObject({
      pagesConfirmed: 2,
      pagesUnconfirmed: 0,
      pagesQuarantined: 0,
      reportsStored: 5,
      reportsDuplicate: 0,
    });
  });

  it('stores the other 99 reports of a page with a numeric msgKey, quarantines that one and confirms', async () => {
    // Prepare: the gateway's answer as the client reads it, one item with msgKey 123.
    const h = harness<ReportPollingGateway>();
    const items = Array.from({ length: 100 }, (_, i) => ({
      ...reportItem(50_000 + i),
      phone: undefined,
    }));
    items[42] = { ...reportItem(50_042), msgKey: 123 as unknown as string, phone: undefined };
    const odd = PollReportsResponseDataSchema.parse({
      rptKey: 'rpt-odd',
      rptCnt: 100,
      rptLst: items,
    });
    const gateway = new FakeReportGateway(h.clock, [odd, null], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(h.store.ofKind('report')).toHaveLength(99);
    const quarantined = h.store.details('quarantine');
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]?.data).toMatchObject({ webhook: 'report', index: 42 });
    expect(JSON.parse(String(quarantined[0]?.data.raw))).toMatchObject({ msgKey: 123 });
    expect(String(quarantined[0]?.data.reason)).toContain('msgKey');
    expect(gateway.confirms.map((c) => c.rptKey)).toEqual(['rpt-odd']);
    expect(outcome).toMatchObject({
      reportsPolled: 100,
      reportsStored: 99,
      itemsQuarantined: 1,
      pagesConfirmed: 1,
      pagesUnconfirmed: 0,
    });
  });

  it('keeps a page whose store keeps failing in durable quarantine, confirms it, and the next run stores it', async () => {
    // Prepare: every put of one report fails for the whole first run.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 30_000 });
    const failing = page(3);
    const gateway = new FakeReportGateway(h.clock, [failing, null], h.store);
    const stuck = `REPORT#${msgKeysOf(failing)[1]}`;
    h.store.failKey(stuck);

    // Act
    const first = await pollReports(h.deps(gateway), 'polling');
    h.store.heal();
    const next = new FakeReportGateway(h.clock, [null], h.store);
    const second = await pollReports(
      h.deps(next, { owner: 'run-2', deadline: h.clock.now() + 30_000 }),
      'polling',
    );

    // Assess: kept with its exact items, confirmed only after it was kept, then re-ingested.
    expect(first).toMatchObject({
      reportsStored: 2,
      pagesQuarantined: 1,
      pagesConfirmed: 1,
      pagesUnconfirmed: 0,
      pagesNotKept: 0,
    });
    expect(gateway.confirms.map((c) => c.rptKey)).toEqual([failing?.rptKey]);
    expect(h.quarantine.removed).toHaveLength(1);
    expect(h.quarantine.pages.size).toBe(0);
    expect(second).toMatchObject({
      pagesReingested: 1,
      quarantinedPagesLeft: 0,
      reportsStored: 1,
      reportsDuplicate: 2,
    });
    expect(h.store.ofKind('report').map((r) => r.pk)).toContain(stuck);
    expect(h.store.ofKind('report')).toHaveLength(3);
  });

  it('re-ingests a kept page with an odd item without a second quarantine record', async () => {
    // Prepare: one odd item and one report whose put fails: the page is kept.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 30_000 });
    const items = [reportItem(70_001), { ...reportItem(70_002), msgKey: 7 }, reportItem(70_003)];
    const data = PollReportsResponseDataSchema.parse({ rptKey: 'rpt-k', rptLst: items });
    h.store.failKey('REPORT#M0000070003');

    // Act
    await pollReports(h.deps(new FakeReportGateway(h.clock, [data, null], h.store)), 'polling');
    h.store.heal();
    const second = await pollReports(
      h.deps(new FakeReportGateway(h.clock, [null], h.store), {
        owner: 'run-2',
        deadline: h.clock.now() + 30_000,
      }),
      'polling',
    );

    // Assess
    expect(second).toMatchObject({ pagesReingested: 1, reportsStored: 1 });
    expect(h.store.ofKind('report')).toHaveLength(2);
    expect(h.store.ofKind('quarantine')).toHaveLength(1);
  });

  it('leaves a page unconfirmed when it can be neither stored nor kept: the gateway delivers it again', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>({ deadlineInMs: 30_000 });
    const failing = page(2);
    const gateway = new FakeReportGateway(h.clock, [failing, null], h.store);
    h.store.failKey(`REPORT#${msgKeysOf(failing)[0]}`);
    h.quarantine.failKeeps(1);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(gateway.confirms).toEqual([]);
    expect(h.quarantine.pages.size).toBe(0);
    expect(outcome).toMatchObject({
      pagesNotKept: 1,
      pagesUnconfirmed: 1,
      pagesQuarantined: 0,
      pagesConfirmed: 0,
    });
  });

  it('keeps a kept page that still fails for the next run, and polls meanwhile', async () => {
    // Prepare: a page kept by an earlier run whose report still cannot be stored.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 30_000 });
    await h.quarantine.keep(
      { kind: 'reports', body: JSON.stringify({ rptLst: [reportItem(80_001)] }), reason: 'test' },
      new Date(START - 60_000),
    );
    h.store.failKey('REPORT#M0000080001');
    const gateway = new FakeReportGateway(h.clock, [page(1), null], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(h.quarantine.pages.size).toBe(1);
    expect(outcome).toMatchObject({
      pagesReingested: 0,
      quarantinedPagesLeft: 1,
      reportsStored: 1,
      pagesConfirmed: 1,
    });
  });

  it('counts reports it already stored (a redelivered page) as duplicates and confirms them', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const original = page(3);
    const again = original === null ? null : { ...original, rptKey: 'rpt-again' };
    const gateway = new FakeReportGateway(h.clock, [original, again, null], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(h.store.ofKind('report')).toHaveLength(3);
    expect(outcome).toMatchObject({ reportsStored: 3, reportsDuplicate: 3, pagesConfirmed: 2 });
  });

  it('skips the confirm when storing took the page past its 120 s window (less the margin)', async () => {
    // Prepare: 10 puts of 11 s each, one at a time: 110 s, beyond 120 s - 15 s.
    const h = harness<ReportPollingGateway>({
      deadlineInMs: 600_000,
      putMs: 11_000,
      concurrency: 1,
    });
    const gateway = new FakeReportGateway(h.clock, [page(10), null], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(gateway.confirms).toEqual([]);
    expect(outcome).toMatchObject({ reportsStored: 10, pagesConfirmed: 0, pagesUnconfirmed: 1 });
  });

  it('still confirms a page stored within the window less the margin', async () => {
    // Prepare: 10 puts of 10 s each: 100 s, within 120 s - 15 s.
    const h = harness<ReportPollingGateway>({
      deadlineInMs: 600_000,
      putMs: 10_000,
      concurrency: 1,
    });
    const gateway = new FakeReportGateway(h.clock, [page(10), null], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(gateway.confirms).toHaveLength(1);
    expect((gateway.confirms[0]?.at ?? 0) - (gateway.polls[0]?.at ?? 0)).toBe(100_000);
    expect(outcome).toMatchObject({ pagesConfirmed: 1, pagesUnconfirmed: 0 });
  });

  it('tries a failed confirm once more when retryable, and gives a refused one up', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const first = page(1);
    const second = page(1);
    const gateway = new FakeReportGateway(h.clock, [first, second, null], h.store);
    gateway.confirmFailures = [
      new GatewayRetryableError({ code: '49999', message: 'x', endpoint: 'confirm' }),
      null,
      new GatewayRejectedError({ code: '21502', message: 'lapsed', endpoint: 'confirm' }),
    ];

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess: the retry confirmed the first page; the second was refused and left to redelivery.
    expect(gateway.confirms.map((c) => c.rptKey)).toEqual([first?.rptKey]);
    expect(outcome).toMatchObject({ pagesConfirmed: 1, pagesUnconfirmed: 1, reportsStored: 2 });
  });

  it('reports the largest poll lag: the oldest rptDt on a page against the time of its poll', async () => {
    // Prepare: rptDt is KST. Calls take 1 s, so the second page is polled 2 s after the first.
    // 09:30:50 KST is 10 s before START; 09:30:15 KST is 45 s before START, polled at START + 2 s.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 20_000 });
    const gateway = new FakeReportGateway(
      h.clock,
      [page(2, { rptDt: '20261121093050' }), page(1, { rptDt: '2026-11-21 09:30:15' }), null],
      h.store,
      1_000,
    );

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(gateway.polls[1]?.at).toBe(START + 2_000);
    expect(outcome.oldestReportAgeSeconds).toBe(47);
  });
});

describe('pollReports: deadline, lease and mode', () => {
  it('starts no poll it could not store and confirm before the deadline, and ends in time', async () => {
    // Prepare: an endless supply of pages, each call taking 1 s.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 60_000 });
    const gateway = new FakeReportGateway(h.clock, () => page(2), h.store, 1_000);
    const deadline = START + 60_000;

    // Act
    const outcome = await pollReports(h.deps(gateway, { deadline }), 'polling');

    // Assess
    const lastPoll = gateway.polls.at(-1)?.at ?? 0;
    expect(gateway.polls.every((call) => call.at <= deadline - 15_000)).toBe(true);
    expect(lastPoll).toBeGreaterThan(deadline - 15_000 - 2_000);
    expect(h.clock.now()).toBeLessThanOrEqual(deadline);
    expect(outcome).toMatchObject({ stopped: 'deadline', pagesUnconfirmed: 0 });
    expect(outcome.pagesConfirmed).toBe(gateway.polls.length);
    expect(h.lease.holder).toBeUndefined();
  });

  it('does not sleep past the deadline when only empty polls come', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>({ deadlineInMs: 50_000 });
    const gateway = new FakeReportGateway(h.clock, [], h.store, 100);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess: 0 s, 10.6 s, 21.2 s, 31.8 s; a fifth at 42.4 s would leave less than 15 s.
    expect(gateway.polls.map((call) => call.at - START)).toEqual([0, 10_600, 21_200, 31_800]);
    expect(h.clock.now()).toBeLessThanOrEqual(START + 50_000);
    expect(outcome).toMatchObject({ stopped: 'deadline', polls: 4, emptyPolls: 4 });
  });

  it('stops polling as soon as a renewal finds the lease lost', async () => {
    // Prepare: pages keep coming; the second renewal fails.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 300_000 });
    h.lease.renewals = [true, false];
    const gateway = new FakeReportGateway(h.clock, () => page(1), h.store, 1_000);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess: renewals come every 5 s of polling (2 s per page), so about 10 s in.
    expect(outcome.stopped).toBe('lease-lost');
    expect(h.lease.calls.filter((call) => call.startsWith('renew'))).toHaveLength(2);
    expect(gateway.polls.length).toBeGreaterThan(2);
    expect(gateway.polls.length).toBeLessThan(10);
    expect(outcome.pagesConfirmed).toBe(gateway.polls.length);
  });

  it('does not poll at all while another poller holds the lease', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    h.lease.holder = 'other-run';
    const gateway = new FakeReportGateway(h.clock, [page(1)], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'polling');

    // Assess
    expect(outcome).toMatchObject({ stopped: 'lease-busy', polls: 0 });
    expect(gateway.polls).toEqual([]);
    expect(h.lease.holder).toBe('other-run');
  });

  it('returns at once in webhook mode, without the lease or a poll', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const gateway = new FakeReportGateway(h.clock, [page(1)], h.store);

    // Act
    const outcome = await pollReports(h.deps(gateway), 'webhook');

    // Assess
    expect(outcome).toMatchObject({ stopped: 'webhook-mode', polls: 0 });
    expect(gateway.polls).toEqual([]);
    expect(h.lease.calls).toEqual([]);
  });

  it('refuses timing that would break the 10 s rule or let the lease lapse', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>();
    const gateway = new FakeReportGateway(h.clock, [], h.store);

    // Act
    const result = pollReports(
      h.deps(gateway, { timing: { emptyPollWaitMs: 9_000, leaseTtlMs: 20_000 } }),
      'both',
    );

    // Assess
    await expect(result).rejects.toBeInstanceOf(PollTimingError);
    await expect(result).rejects.toMatchObject({
      problems: [expect.stringContaining('emptyPollWaitMs'), expect.stringContaining('leaseTtlMs')],
    });
    expect(gateway.polls).toEqual([]);
  });
});

/** The MO list endpoint with scripted pages; each MO is handed out once. */
class FakeMoGateway implements MoPollingGateway {
  readonly calls: { at: number; count: number }[] = [];
  constructor(
    private readonly clock: FakeClock,
    private readonly script: MoListData[],
  ) {}

  async listMo(): Promise<MoListData> {
    const next = this.script.shift() ?? [];
    this.calls.push({ at: this.clock.time, count: next.length });
    return next;
  }
}

const moPage = (...indexes: number[]): MoListData =>
  MoListDataSchema.parse(indexes.map((index) => moItem(index)));

describe('pollInbound', () => {
  it('stores every polled MO message once, polls again at once after a page, 10 s after none', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 40_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2), moPage(3), [], moPage(2)]);

    // Act
    const outcome = await pollInbound(h.deps(gateway));

    // Assess
    expect(h.store.ofKind('mo').map((record) => record.pk)).toEqual([
      'MO#MO00000001',
      'MO#MO00000002',
      'MO#MO00000003',
    ]);
    expect(h.store.details('mo').every((d) => d.metadata.via === 'polling')).toBe(true);
    const [first, second, empty, afterEmpty] = gateway.calls;
    expect(second?.at).toBe(first?.at);
    expect((afterEmpty?.at ?? 0) - (empty?.at ?? 0)).toBeGreaterThanOrEqual(10_000);
    expect(outcome).toMatchObject({
      messagesPolled: 4,
      messagesStored: 3,
      messagesDuplicate: 1,
      messagesNotStored: 0,
    });
    expect(h.lease.calls[0]).toBe(`acquire ${MO_POLLER_LEASE}`);
  });

  it('stores a page again when its store asked for a retry, since the gateway will not repeat it', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2, 3)]);
    h.store.failNext(2);

    // Act
    const outcome = await pollInbound(h.deps(gateway));

    // Assess
    expect(h.store.ofKind('mo')).toHaveLength(3);
    expect(outcome).toMatchObject({
      messagesStored: 3,
      messagesDuplicate: 0,
      messagesNotStored: 0,
    });
  });

  it('keeps a page it could not store after every attempt in durable quarantine, and the next run stores it', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2)]);
    h.store.failKey('MO#MO00000002');

    // Act
    const outcome = await pollInbound(h.deps(gateway));
    h.store.heal();
    const next = await pollInbound(
      h.deps(new FakeMoGateway(h.clock, []), { owner: 'run-2', deadline: h.clock.now() + 30_000 }),
    );

    // Assess: three attempts, 1 s and 2 s apart, then kept; nothing counted as lost.
    expect(h.store.puts).toBe(6 + 2);
    expect(outcome).toMatchObject({ messagesStored: 1, messagesNotStored: 0, pagesQuarantined: 1 });
    expect(next).toMatchObject({
      pagesReingested: 1,
      quarantinedPagesLeft: 0,
      messagesStored: 1,
      messagesDuplicate: 1,
    });
    expect(h.store.ofKind('mo').map((record) => record.pk)).toEqual([
      'MO#MO00000001',
      'MO#MO00000002',
    ]);
    expect(h.quarantine.pages.size).toBe(0);
  });

  it('counts the messages neither stored nor kept (the double fault)', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const gateway = new FakeMoGateway(h.clock, [moPage(1, 2)]);
    h.store.failKey('MO#MO00000002');
    h.quarantine.failKeeps(1);
    const errors: string[] = [];
    const logger: PollLogger = { ...silent, error: (message) => errors.push(message) };

    // Act
    const outcome = await pollInbound(h.deps(gateway, { logger }));

    // Assess
    expect(outcome).toMatchObject({ messagesStored: 1, messagesNotStored: 1, pagesQuarantined: 0 });
    expect(errors.some((message) => message.includes('neither stored nor kept'))).toBe(true);
  });

  it('stores every message of a page with an empty contentSize, and quarantines a numeric moKey', async () => {
    // Prepare: the list as the client reads it.
    const h = harness<MoPollingGateway>({ deadlineInMs: 30_000 });
    const attachment = {
      contentName: 'a.jpg',
      contentSize: '',
      contentExt: 'jpg',
      contentUrl: 'https://f/a',
    };
    const list = MoListDataSchema.parse([
      moItem(11),
      moItem(12, { contentCnt: '', contentInfoLst: [attachment] }),
      moItem(13),
    ]);
    const withOdd = MoListDataSchema.parse([moItem(14), moItem(15, { moKey: 15 })]);
    const gateway = new FakeMoGateway(h.clock, [list, withOdd]);

    // Act
    const outcome = await pollInbound(h.deps(gateway));

    // Assess
    expect(h.store.ofKind('mo').map((record) => record.pk)).toEqual([
      'MO#MO00000011',
      'MO#MO00000012',
      'MO#MO00000013',
      'MO#MO00000014',
    ]);
    const withAttachment = h.store.details('mo').find((d) => d.data.moKey === 'MO00000012');
    expect(withAttachment?.data).toMatchObject({
      attachmentCount: 1,
      attachments: [{ name: 'a.jpg', sizeBytes: null, extension: 'jpg' }],
    });
    expect(h.store.ofKind('quarantine')).toHaveLength(1);
    expect(outcome).toMatchObject({ messagesPolled: 5, messagesStored: 4, itemsQuarantined: 1 });
  });
});

describe('runPolling', () => {
  it('polls MO messages in webhook mode without polling reports', async () => {
    // Prepare
    const h = harness<ReportPollingGateway & MoPollingGateway>({ deadlineInMs: 20_000 });
    const reports = new FakeReportGateway(h.clock, [page(1)], h.store);
    const mo = new FakeMoGateway(h.clock, [moPage(7)]);
    const gateway = {
      pollReports: () => reports.pollReports(),
      confirmReports: (keys: readonly string[]) => reports.confirmReports(keys),
      listMo: () => mo.listMo(),
    };

    // Act
    const run = await runPolling({ reportDelivery: 'webhook', moPolling: true }, h.deps(gateway));

    // Assess
    expect(run.reports?.stopped).toBe('webhook-mode');
    expect(run.inbound?.messagesStored).toBe(1);
    expect(reports.polls).toEqual([]);
    expect(run.errors).toEqual([]);
  });

  it('lets one poller finish when the other fails, and reports the failure', async () => {
    // Prepare
    const h = harness<ReportPollingGateway & MoPollingGateway>({ deadlineInMs: 20_000 });
    const reports = new FakeReportGateway(h.clock, [page(2)], h.store);
    const broken = new Error('listMo exploded');
    const gateway = {
      pollReports: () => reports.pollReports(),
      confirmReports: (keys: readonly string[]) => reports.confirmReports(keys),
      listMo: () => Promise.reject(broken),
    };
    // Both pollers share the fake lease, so give each its own holder check.
    const leases = new Map<string, string>();
    const lease: Lease = {
      acquire: async (name, owner) => (leases.has(name) ? false : !!leases.set(name, owner)),
      renew: async () => true,
      release: async (name) => {
        leases.delete(name);
      },
    };

    // Act
    const run = await runPolling(
      { reportDelivery: 'both', moPolling: true },
      h.deps(gateway, { lease }),
    );

    // Assess
    expect(run.errors).toEqual([broken]);
    expect(run.inbound).toBeUndefined();
    expect(run.reports?.reportsStored).toBe(2);
    expect(leases.size).toBe(0);
  });
});

describe('through the gateway client', () => {
  /** The gateway's HTTP answers: report polls and MO lists from a script, confirms succeed. */
  const gatewayAnswering = (polls: unknown[], moLists: unknown[]) => {
    const calls: HttpCall[] = [];
    const answer = (data: unknown): HttpAnswer => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify({ code: '10000', message: 'success', data }),
    });
    const client = new GatewayClient({
      hosts: {
        api: 'https://api.gw.test',
        send: 'https://send.gw.test',
        mnt: 'https://mnt.gw.test',
      },
      tokens: { getToken: async () => 'token', invalidate: async () => {} },
      transport: async (call) => {
        calls.push(call);
        if (call.url.endsWith('/msg/v1.2/report')) return answer(polls.shift() ?? null);
        if (call.url.endsWith('/msg/v1.2/report/result')) return answer(null);
        if (call.url.endsWith('/mo/v1/msg')) return answer(moLists.shift() ?? []);
        throw new Error(`unexpected call ${call.url}`);
      },
    });
    return { client, calls };
  };

  it('reads a polled page with a numeric msgKey, stores the rest and confirms it', async () => {
    // Prepare: the gateway's JSON, as it arrives.
    const h = harness<ReportPollingGateway>({ deadlineInMs: 20_000 });
    const rptLst = Array.from({ length: 100 }, (_, i) => reportItem(90_000 + i));
    rptLst[7] = { ...reportItem(90_007), msgKey: 123 as unknown as string };
    const { client, calls } = gatewayAnswering([{ rptKey: 'RK1', rptCnt: '100', rptLst }], []);

    // Act
    const outcome = await pollReports(h.deps(client), 'polling');

    // Assess
    expect(outcome).toMatchObject({
      failedPolls: 0,
      reportsStored: 99,
      itemsQuarantined: 1,
      pagesConfirmed: 1,
    });
    const confirm = calls.find((call) => call.url.endsWith('/report/result'));
    expect(JSON.parse(String(confirm?.body))).toEqual({ rptKeyLst: ['RK1'] });
  });

  it('reads a polled MO list with an empty contentSize and stores every message', async () => {
    // Prepare
    const h = harness<MoPollingGateway>({ deadlineInMs: 20_000 });
    const moLst = [
      moItem(21),
      moItem(22, {
        contentCnt: '1',
        contentInfoLst: [
          { contentName: 'a.png', contentSize: '', contentExt: 'png', contentUrl: 'https://f/a' },
        ],
      }),
    ];
    const { client } = gatewayAnswering([], [moLst]);

    // Act
    const outcome = await pollInbound(h.deps(client));

    // Assess
    expect(outcome).toMatchObject({ failedPolls: 0, messagesStored: 2, itemsQuarantined: 0 });
    expect(h.store.ofKind('mo')).toHaveLength(2);
  });
});
