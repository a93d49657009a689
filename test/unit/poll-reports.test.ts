import { describe, expect, it } from 'vitest';
import {
  GatewayAuthenticationError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayRetryableError,
} from '../../functions/commons/gateway/errors.ts';
import {
  type PollReportsResponseData,
  PollReportsResponseDataSchema,
} from '../../functions/commons/gateway/schemas/index.ts';
import {
  pollReports,
  REPORT_POLLER_LEASE,
  type ReportPollingGateway,
} from '../../functions/polling/poll-reports.ts';
import { reportItem } from '../support/gateway-bodies.ts';
import { FakeReportGateway, harness, page, START } from '../support/poll-harness.ts';

const msgKeysOf = (data: PollReportsResponseData): string[] =>
  data === null ? [] : data.rptLst.map((report) => (report as { msgKey: string }).msgKey);

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
