import { describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import {
  pollReports,
  REPORT_POLLER_LEASE,
  type ReportPollingGateway,
} from '../../functions/polling/poll-use-case.ts';
import {
  GatewayAuthenticationError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayRetryableError,
} from '../../gateway/errors.ts';
import {
  type PollReportsResponseData,
  PollReportsResponseDataSchema,
} from '../../gateway/schemas/index.ts';
import { harness, page, START } from '../support/poll-harness.ts';
import { reportPoller } from '../support/report-poller.ts';

const msgKeysOf = (data: PollReportsResponseData): string[] =>
  data === null ? [] : data.rptLst.map((report) => (report as { msgKey: string }).msgKey);

/** The context of an error answer from the report endpoint. */
const fromReports = (code: string, message: string, httpStatus: number) => ({
  code,
  message,
  endpoint: 'GET /msg/v1.2/report',
  httpStatus,
});

describe('pollReports: the 10 s rule', () => {
  it('waits at least 10 s after every empty poll, never less, and not much more', async () => {
    // Prepare: calls take 800 ms, so a wait counted from the request instead of the answer fails.
    const { gateway, poll } = reportPoller([null, null, page(2), null], {
      deadlineInMs: 90_000,
      latencyMs: 800,
    });

    // Act
    const outcome = await poll();

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
    const { h, gateway, poll } = reportPoller([page(3), page(2), null], { latencyMs: 200 });

    // Act
    await poll();

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
    const rateLimited = new GatewayRateLimitedError(
      fromReports('29002', 'Rate limit exceeded', 400),
    );
    const unavailable = new GatewayRetryableError(fromReports('49999', 'temporary failure', 503));
    const { gateway, poll } = reportPoller([rateLimited, page(1), unavailable, page(1)], {
      deadlineInMs: 60_000,
      latencyMs: 100,
    });

    // Act
    const outcome = await poll();

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
    const refused = new GatewayAuthenticationError(fromReports('29011', 'no permission', 401));
    const { h, poll } = reportPoller([page(1), refused]);

    // Act
    const result = poll();

    // Assess
    await expect(result).rejects.toBe(refused);
    expect(h.lease.holder).toBeUndefined();
    expect(h.lease.calls.at(-1)).toBe(`release ${REPORT_POLLER_LEASE}`);
  });
});

/** A page of 10 reports stored one put at a time, each put taking `putMs`. */
const storeOneAtATime = (putMs: number) =>
  reportPoller([page(10), null], { deadlineInMs: 600_000, putMs, concurrency: 1 });

describe('pollReports: storing and confirming', () => {
  it('confirms each page only after every report on it is stored, and each report once', async () => {
    // Prepare
    const pages = [page(3), page(4)];
    const { h, gateway, poll } = reportPoller([...pages, null]);

    // Act
    const outcome = await poll();

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
    const failing = page(3);
    const next = page(2);
    const { h, gateway, poll } = reportPoller([failing, next, null]);
    h.store.failNext(1);

    // Act
    const outcome = await poll();

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
    const { h, gateway, poll } = reportPoller([odd, null]);

    // Act
    const outcome = await poll();

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
    const failing = page(3);
    const { h, gateway, poll, pollAgain } = reportPoller([failing, null], { deadlineInMs: 30_000 });
    const stuck = `REPORT#${msgKeysOf(failing)[1]}`;
    h.store.failKey(stuck);

    // Act
    const first = await poll();
    h.store.heal();
    const second = await pollAgain([null]);

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
    const items = [reportItem(70_001), { ...reportItem(70_002), msgKey: 7 }, reportItem(70_003)];
    const data = PollReportsResponseDataSchema.parse({ rptKey: 'rpt-k', rptLst: items });
    const { h, poll, pollAgain } = reportPoller([data, null], { deadlineInMs: 30_000 });
    h.store.failKey('REPORT#M0000070003');

    // Act
    await poll();
    h.store.heal();
    const second = await pollAgain([null]);

    // Assess
    expect(second).toMatchObject({ pagesReingested: 1, reportsStored: 1 });
    expect(h.store.ofKind('report')).toHaveLength(2);
    expect(h.store.ofKind('quarantine')).toHaveLength(1);
  });

  it('leaves a page unconfirmed when it can be neither stored nor kept: the gateway delivers it again', async () => {
    // Prepare
    const failing = page(2);
    const { h, gateway, poll } = reportPoller([failing, null], { deadlineInMs: 30_000 });
    h.store.failKey(`REPORT#${msgKeysOf(failing)[0]}`);
    h.quarantine.failKeeps(1);

    // Act
    const outcome = await poll();

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
    const { h, poll } = reportPoller([page(1), null], { deadlineInMs: 30_000 });
    await h.quarantine.keep(
      { kind: 'reports', body: JSON.stringify({ rptLst: [reportItem(80_001)] }), reason: 'test' },
      new Date(START - 60_000),
    );
    h.store.failKey('REPORT#M0000080001');

    // Act
    const outcome = await poll();

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
    const original = page(3);
    const again = original === null ? null : { ...original, rptKey: 'rpt-again' };
    const { h, poll } = reportPoller([original, again, null]);

    // Act
    const outcome = await poll();

    // Assess
    expect(h.store.ofKind('report')).toHaveLength(3);
    expect(outcome).toMatchObject({ reportsStored: 3, reportsDuplicate: 3, pagesConfirmed: 2 });
  });

  it('skips the confirm when storing took the page past its 120 s window (less the margin)', async () => {
    // Prepare: 10 puts of 11 s each, one at a time: 110 s, beyond 120 s - 15 s.
    const { gateway, poll } = storeOneAtATime(11_000);

    // Act
    const outcome = await poll();

    // Assess
    expect(gateway.confirms).toEqual([]);
    expect(outcome).toMatchObject({ reportsStored: 10, pagesConfirmed: 0, pagesUnconfirmed: 1 });
  });

  it('still confirms a page stored within the window less the margin', async () => {
    // Prepare: 10 puts of 10 s each: 100 s, within 120 s - 15 s.
    const { gateway, poll } = storeOneAtATime(10_000);

    // Act
    const outcome = await poll();

    // Assess
    expect(gateway.confirms).toHaveLength(1);
    expect((gateway.confirms[0]?.at ?? 0) - (gateway.polls[0]?.at ?? 0)).toBe(100_000);
    expect(outcome).toMatchObject({ pagesConfirmed: 1, pagesUnconfirmed: 0 });
  });

  it('tries a failed confirm once more when retryable, and gives a refused one up', async () => {
    // Prepare
    const first = page(1);
    const { gateway, poll } = reportPoller([first, page(1), null]);
    gateway.confirmFailures = [
      new GatewayRetryableError({ code: '49999', message: 'x', endpoint: 'confirm' }),
      null,
      new GatewayRejectedError({ code: '21502', message: 'lapsed', endpoint: 'confirm' }),
    ];

    // Act
    const outcome = await poll();

    // Assess: the retry confirmed the first page; the second was refused and left to redelivery.
    expect(gateway.confirms.map((c) => c.rptKey)).toEqual([first?.rptKey]);
    expect(outcome).toMatchObject({ pagesConfirmed: 1, pagesUnconfirmed: 1, reportsStored: 2 });
  });

  it('reports the largest poll lag: the oldest rptDt on a page against the time of its poll', async () => {
    // Prepare: rptDt is KST. Calls take 1 s, so the second page is polled 2 s after the first.
    // 09:30:50 KST is 10 s before START; 09:30:15 KST is 45 s before START, polled at START + 2 s.
    const { gateway, poll } = reportPoller(
      [page(2, { rptDt: '20261121093050' }), page(1, { rptDt: '2026-11-21 09:30:15' }), null],
      { deadlineInMs: 20_000, latencyMs: 1_000 },
    );

    // Act
    const outcome = await poll();

    // Assess
    expect(gateway.polls[1]?.at).toBe(START + 2_000);
    expect(outcome.oldestReportAgeSeconds).toBe(47);
  });
});

describe('pollReports: pages in flight', () => {
  /** A gateway handing out `full` pages of 100 reports, then one of 7, then none; each call yields. */
  const busyGateway = (h: ReturnType<typeof harness<ReportPollingGateway>>, full: number) => {
    const script: PollReportsResponseData[] = [
      ...Array.from({ length: full }, () => page(100)),
      page(7),
    ];
    const state = {
      inFlight: 0,
      maxInFlight: 0,
      polls: 0,
      emptyAnsweredAt: undefined as number | undefined,
      tooSoon: 0,
    };
    const inFlightAfterPartial: number[] = [];
    let partialSeen = false;
    const confirmed: string[] = [];
    const gateway: ReportPollingGateway = {
      pollReports: async () => {
        state.polls += 1;
        if (state.emptyAnsweredAt !== undefined && h.clock.now() - state.emptyAnsweredAt < 10_000)
          state.tooSoon += 1;
        state.inFlight += 1;
        state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
        if (partialSeen) inFlightAfterPartial.push(state.inFlight);
        for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
        h.clock.time += 50;
        state.inFlight -= 1;
        const next = script.shift() ?? null;
        if (next === null) state.emptyAnsweredAt = h.clock.now();
        if (next !== null && next.rptLst.length < 100) partialSeen = true;
        return next;
      },
      confirmReports: async (keys) => {
        await new Promise((resolve) => setImmediate(resolve));
        confirmed.push(...keys);
      },
    };
    return { gateway, state, confirmed, inFlightAfterPartial };
  };

  it('keeps more polls in flight while pages come full, never more than pagesInFlight, each page stored and confirmed once', async () => {
    // Prepare
    const h = harness<ReportPollingGateway>({ deadlineInMs: 60_000 });
    const { gateway, state, confirmed, inFlightAfterPartial } = busyGateway(h, 40);

    // Act
    const outcome = await pollReports(h.deps(gateway, { timing: { pagesInFlight: 6 } }), 'polling');

    // Assess
    expect(state.maxInFlight).toBeGreaterThan(1);
    expect(state.maxInFlight).toBeLessThanOrEqual(6);
    expect(outcome.reportsStored).toBe(40 * 100 + 7);
    expect(outcome.reportsDuplicate).toBe(0);
    expect(confirmed).toHaveLength(41);
    expect(new Set(confirmed).size).toBe(41);
    // Every poll after an empty one waited the gateway's 10 s, whatever was in flight; once a page
    // came back short, the polls went on one at a time.
    expect(state.tooSoon).toBe(0);
    expect(inFlightAfterPartial.slice(-3)).toEqual([1, 1, 1]);
    expect(outcome.stopped).toBe('deadline');
  });

  it('polls one page at a time with pagesInFlight 1, as before', async () => {
    const h = harness<ReportPollingGateway>({ deadlineInMs: 60_000 });
    const { gateway, state } = busyGateway(h, 10);

    await pollReports(h.deps(gateway, { timing: { pagesInFlight: 1 } }), 'polling');

    expect(state.maxInFlight).toBe(1);
  });

  it('refuses a pagesInFlight outside 1 to 50', async () => {
    const h = harness<ReportPollingGateway>();
    const { gateway } = busyGateway(h, 1);

    await expect(
      pollReports(h.deps(gateway, { timing: { pagesInFlight: 0 } }), 'polling'),
    ).rejects.toThrow(/pagesInFlight must be an integer from 1 to 50/);
  });
});
