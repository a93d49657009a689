import { describe, expect, it } from 'vitest';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import type { StatusGateway } from '../../functions/reconcile/status-query.ts';
import { GatewayRejectedError, GatewayRetryableError } from '../../gateway/errors.ts';
import { StatusQueryDataSchema } from '../../gateway/schemas/index.ts';
import type { FakeEventStore } from '../support/fake-event-store.ts';
import { ago, HOUR, NOW, world } from '../support/reconcile-world.ts';

const MINUTE = 60_000;

const details = (store: FakeEventStore, kind: 'report' | 'status') => store.details(kind);

const STATUS_ENDPOINT = 'POST /msg/v1/sent';

/** A world with one recipient awaiting its report, whose status query fails with `error`. */
const oneRecipientWhileGatewayFails = async (error: Error) => {
  const w = world();
  await await w.accept('x1', ago(3 * HOUR));
  w.gateway.failWith = error;
  return w;
};

/**
 * The status query of accepted recipients whose report is late, each queued as a report check of
 * its own (`checkReports`; test/unit/reconcile-report-checks.test.ts has the checks' own course).
 */
describe('reconcile-status on late reports', () => {
  it('queries at most 10 keys per call, each call for one KST send date', async () => {
    // Prepare: 23 sent on 2026-03-10 (KST), 4 on 2026-03-11 — one of them at 01:00 KST, which
    // is still 2026-03-10 in UTC.
    const w = world();
    for (let i = 0; i < 23; i++) await w.accept(`a${String(i).padStart(2, '0')}`, ago(24 * HOUR));
    for (let i = 0; i < 3; i++) await w.accept(`b${i}`, ago(2 * HOUR));
    await w.accept('b-kst-midnight', '2026-03-10T16:00:00.000Z');

    // Act
    const result = await w.run();

    // Assess
    expect(w.gateway.calls.map((call) => [call[0]?.reqDt, call.length])).toEqual([
      ['2026-03-10', 10],
      ['2026-03-10', 10],
      ['2026-03-10', 3],
      ['2026-03-11', 4],
    ]);
    for (const call of w.gateway.calls) expect(new Set(call.map((k) => k.reqDt)).size).toBe(1);
    expect(w.gateway.calls.at(-1)?.map((k) => k.cliKey)).toContain('b-kst-midnight');
    expect(result).toMatchObject({
      examined: 27,
      statusQueries: 4,
      keysQueried: 27,
      reportsReconciled: 27,
      stoppedBy: 'complete',
    });
  });

  it('stores a finished status as a delivery report via the status query, once', async () => {
    // Prepare
    const w = world();
    await w.accept('done-1', ago(45 * MINUTE), { resultCode: '30001' });

    // Act
    const first = await w.run();
    const second = await w.run();

    // Assess
    expect(first).toMatchObject({ reportsReconciled: 1, stillPending: 0, statusUnavailable: 0 });
    expect(second).toMatchObject({ examined: 0, statusQueries: 0 });
    expect(w.gateway.calls).toHaveLength(1);
    expect([...w.store.items.keys()]).toEqual(['REPORT#M-done-1|RESULT#30001#SMS']);
    const [report] = details(w.store, 'report');
    expect(report?.metadata).toMatchObject({
      type: 'Delivery Report Received',
      via: 'status-query',
      idempotencyKey: 'report:M-done-1:30001:SMS',
      occurredAt: '2026-03-10T02:00:05.000Z',
    });
    expect(report?.data).toMatchObject({
      msgKey: 'M-done-1',
      cliKey: 'done-1',
      delivered: false,
      resultCode: '30001',
      resultCodeDesc: 'success',
      failureCategory: 'permanent',
      channel: 'SMS',
      telco: 'SKT',
      productCode: 'SMS',
      fallbackReasons: [],
      reportedAtKst: '2026-03-10 11:00:05',
    });
    expect(w.checks.size).toBe(0);
  });

  it('makes the later real report a duplicate: no second item, no second event', async () => {
    // Prepare
    const w = world();
    await w.accept('late-1', ago(40 * MINUTE));
    await w.run();
    const webhookItem = {
      msgKey: 'M-late-1',
      cliKey: 'late-1',
      ch: 'SMS',
      resultCode: '10000',
      resultCodeDesc: 'success',
      fbReasonLst: [],
      telco: 'SKT',
      rptDt: '20260310110005',
      productCode: 'SMS',
      phone: '01012345678',
    };

    // Act
    const outcome = await receiveReports(JSON.stringify({ rptCnt: 1, rptLst: [webhookItem] }), {
      store: w.store,
      now: () => new Date(NOW),
      retentionDays: 35,
      concurrency: 1,
    });

    // Assess
    expect(outcome).toMatchObject({ stored: 0, duplicates: 1 });
    expect(w.store.ofKind('report')).toHaveLength(1);
  });

  it('files a recipient accepted as a duplicate (no msgKey) under the msgKey the gateway answers', async () => {
    // Prepare
    const w = world();
    await w.accept('dup-1', ago(2 * HOUR), { msgKey: null });

    // Act
    const result = await w.run();

    // Assess
    expect(w.gateway.keysQueried()).toEqual(['dup-1']);
    expect(result.reportsReconciled).toBe(1);
    expect(details(w.store, 'report')[0]?.data).toMatchObject({
      msgKey: 'M-dup-1',
      cliKey: 'dup-1',
    });
  });

  it.each([
    ['OVER_DATE', 1],
    ['INVALID_KEY', 2],
  ] as const)('stores %s as one "Message Status Unavailable" event', async (status, calls) => {
    // Prepare
    const w = world();
    await w.accept('gone-1', ago(3 * HOUR), { status });

    // Act
    const first = await w.run();
    // A second copy of the check comes: the stored event is recognised.
    await w.accept('gone-1', ago(3 * HOUR), { status });
    const second = await w.run();

    // Assess
    expect(first).toMatchObject({ statusUnavailable: 1, reportsReconciled: 0, stillPending: 0 });
    expect(second).toMatchObject({ alreadyRecorded: 1, statusQueries: 0, statusUnavailable: 0 });
    expect(w.gateway.calls).toHaveLength(calls);
    expect([...w.store.items.keys()]).toEqual(['STATUS#gone-1|UNAVAILABLE']);
    const events = details(w.store, 'status');
    expect(events).toHaveLength(1);
    expect(events[0]?.metadata).toMatchObject({
      type: 'Message Status Unavailable',
      via: 'status-query',
      idempotencyKey: 'status-unavailable:gone-1',
    });
    expect(events[0]?.data).toEqual({
      cliKey: 'gone-1',
      msgKey: 'M-gone-1',
      status,
      acceptedAt: ago(3 * HOUR),
    });
  });

  it('asks with the day before the acceptance date before believing INVALID_KEY', async () => {
    // Prepare: sent at 23:59:59 KST on the 10th, acceptance recorded just after midnight.
    const w = world();
    await w.accept('midnight-1', '2026-03-10T15:00:01.000Z', { sentOn: '2026-03-10' });

    // Act
    const result = await w.run();

    // Assess
    expect(w.gateway.calls).toEqual([
      [{ cliKey: 'midnight-1', reqDt: '2026-03-11' }],
      [{ cliKey: 'midnight-1', reqDt: '2026-03-10' }],
    ]);
    expect(result).toMatchObject({ reportsReconciled: 1, statusUnavailable: 0 });
    expect(w.store.ofKind('status')).toHaveLength(0);
  });

  it('leaves REG and ING recipients for the next run and stores nothing', async () => {
    // Prepare
    const w = world();
    await w.accept('reg-1', ago(35 * MINUTE), { status: 'REG' });
    await w.accept('ing-1', ago(35 * MINUTE), { status: 'ING' });
    await w.accept('unlisted-status', ago(35 * MINUTE), { status: 'HELD' });

    // Act: the second look comes when the checks put back are due again
    const first = await w.run();
    w.advance(15 * MINUTE);
    const second = await w.run();

    // Assess
    expect(first).toMatchObject({ stillPending: 3, reportsReconciled: 0, statusUnavailable: 0 });
    expect(second).toMatchObject({ examined: 3, stillPending: 3 });
    expect(w.store.items.size).toBe(0);
    expect(w.checks.size).toBe(3);
  });

  it('treats a DONE without a result code as still pending', async () => {
    // Prepare
    const w = world();
    await w.accept('done-blank', ago(35 * MINUTE));
    const gateway: StatusGateway = {
      queryStatus: async (keys) =>
        StatusQueryDataSchema.parse({
          cliKeyLst: keys.map((k) => ({ cliKey: k.cliKey, msgKey: 'M-x', status: 'DONE' })),
        }),
    };

    // Act
    const result = await w.run({ gateway });

    // Assess
    expect(result).toMatchObject({ stillPending: 1, reportsReconciled: 0 });
    expect(w.store.items.size).toBe(0);
  });

  it('does not query recipients whose report or unavailable status is already stored', async () => {
    // Prepare
    const w = world();
    await w.accept('reported-1', ago(2 * HOUR));
    await w.accept('unavailable-1', ago(2 * HOUR), { msgKey: null });
    await w.accept('open-1', ago(2 * HOUR));
    await receiveReports(
      JSON.stringify({
        rptLst: [{ msgKey: 'M-reported-1', cliKey: 'reported-1', resultCode: '10000', ch: 'SMS' }],
      }),
      { store: w.store, now: () => new Date(NOW), retentionDays: 35, concurrency: 1 },
    );
    await w.store.putIfAbsent({
      pk: 'STATUS#unavailable-1',
      sk: 'UNAVAILABLE',
      kind: 'status',
      detailType: 'Message Status Unavailable',
      detail: '{}',
      eventId: 'e',
      receivedAt: ago(HOUR),
      expiresAt: 0,
    });

    // Act
    const result = await w.run();

    // Assess
    expect(w.gateway.keysQueried()).toEqual(['open-1']);
    expect(result).toMatchObject({ examined: 3, alreadyRecorded: 2, reportsReconciled: 1 });
    expect(w.checks.size).toBe(0);
  });

  it('looks only at recipients accepted between the horizon and the wait', async () => {
    // Prepare
    const w = world({ afterMinutes: 30, horizonHours: 96 });
    await w.accept('too-young', ago(29 * MINUTE));
    await w.accept('just-old-enough', ago(31 * MINUTE));
    await w.accept('near-horizon', ago(95 * HOUR + 59 * MINUTE));
    await w.accept('past-horizon', ago(96 * HOUR + MINUTE));

    // Act
    const result = await w.run();

    // Assess: the young one is put back until it is due, the old one finished unasked
    expect(w.gateway.keysQueried().sort()).toEqual(['just-old-enough', 'near-horizon']);
    expect(result).toMatchObject({ examined: 2, checksNotDue: 1, checksExpired: 1 });
    expect(w.checks.pending().map((check) => check.recipients[0]?.cliKey)).toEqual(['too-young']);
  });

  it('queries nothing before the wait is over, however many are waiting', async () => {
    // Prepare
    const w = world({ afterMinutes: 30 });
    for (let i = 0; i < 12; i++) await w.accept(`fresh-${i}`, ago(10 * MINUTE));

    // Act
    const result = await w.run();

    // Assess
    expect(result).toMatchObject({
      examined: 0,
      statusQueries: 0,
      checksNotDue: 12,
      stoppedBy: 'complete',
    });
    expect(w.gateway.calls).toHaveLength(0);
  });

  it('stops reading at the per-run budget, queries what it read, and leaves the rest', async () => {
    // Prepare
    const w = world({ maxRecipients: 15 });
    for (let i = 0; i < 30; i++) await w.accept(`r${String(i).padStart(2, '0')}`, ago(3 * HOUR));

    // Act
    const first = await w.run();

    // Assess
    expect(first).toMatchObject({ examined: 15, keysQueried: 15, stoppedBy: 'budget' });
    expect(w.gateway.calls.map((call) => call.length)).toEqual([10, 5]);
    expect(w.checks.size).toBe(15);
  });

  it('starts no query once time is up', async () => {
    // Prepare
    const w = world();
    for (let i = 0; i < 12; i++) await w.accept(`t${i}`, ago(3 * HOUR));
    let budget = 1;

    // Act
    const result = await w.run({ hasTimeLeft: () => budget-- > 0 });

    // Assess: the checks read (10 a receive) go back on the queue, unqueried, with the others
    expect(result).toMatchObject({
      examined: 10,
      statusQueries: 0,
      notQueried: 10,
      checksPostponed: 10,
    });
    expect(result.stoppedBy).toBe('time');
    expect(w.checks.size).toBe(12);
  });

  it('stops on a retryable gateway error and leaves every recipient on the queue', async () => {
    // Prepare
    const w = await oneRecipientWhileGatewayFails(
      new GatewayRetryableError({ code: '49000', message: 'busy', endpoint: STATUS_ENDPOINT }),
    );

    // Act
    const result = await w.run();

    // Assess
    expect(result).toMatchObject({
      stoppedBy: 'gateway-unavailable',
      statusQueries: 0,
      notQueried: 1,
    });
    expect(result.gatewayError).toContain('49000');
    expect(w.checks.size).toBe(1);
  });

  it('throws on a gateway error that retrying will not fix', async () => {
    const w = await oneRecipientWhileGatewayFails(
      new GatewayRejectedError({
        code: '21001',
        message: 'bad request',
        endpoint: STATUS_ENDPOINT,
      }),
    );

    await expect(w.run()).rejects.toThrow(GatewayRejectedError);
  });

  it('keeps recipients on the queue when their report could not be stored', async () => {
    // Prepare
    const w = world();
    await w.accept('s1', ago(3 * HOUR));
    await w.accept('s2', ago(3 * HOUR));
    w.store.failKey('REPORT#M-s2');

    // Act
    const first = await w.run();
    w.store.heal();
    w.advance(15 * MINUTE);
    const second = await w.run();

    // Assess
    expect(first).toMatchObject({ reportsReconciled: 1, storeFailures: 1 });
    expect(second).toMatchObject({ alreadyRecorded: 1, keysQueried: 1, reportsReconciled: 1 });
    expect(w.store.ofKind('report')).toHaveLength(2);
    expect(w.checks.size).toBe(0);
  });
});
