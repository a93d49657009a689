import { describe, expect, it } from 'vitest';
import { checkReports } from '../../functions/reconcile/reconcile-use-case.ts';
import type { ReportCheck } from '../../functions/send-records/ports.ts';
import { parseReportCheck, reportCheckBody } from '../../functions/send-records/report-checks.ts';
import { GatewayRetryableError } from '../../gateway/errors.ts';
import { formatKst } from '../../protocol/kst.ts';
import { MemoryReportChecks } from '../support/memory-report-checks.ts';
import { ago, HOUR, NOW, world } from '../support/reconcile-world.ts';

const MINUTE = 60_000;

/**
 * reconcile-status reading the report-check queue the sender fills (`checkReports`, the queue's
 * event source's invocation): a world whose queue runs on a clock the test moves (checks hidden 10
 * minutes once received), and whose gateway knows each queued recipient as sent on the day of its
 * check.
 */
const setup = (settings: Parameters<typeof world>[0] = {}) => {
  let now = NOW;
  const w = world(settings);
  const checks = new MemoryReportChecks(() => now, { visibilityMs: 10 * MINUTE });
  const queue = async (
    acceptedAt: string,
    cliKeys: readonly string[],
    status: 'DONE' | 'REG' | 'ING' = 'DONE',
  ) => {
    const check: ReportCheck = {
      channel: 'sms',
      acceptedAt,
      recipients: cliKeys.map((cliKey) => ({ cliKey, msgKey: `M-${cliKey}` })),
    };
    await checks.expect(check);
    for (const cliKey of cliKeys)
      w.gateway.known.set(cliKey, {
        sentOn: formatKst(Date.parse(acceptedAt), 'YYYY-MM-DD'),
        msgKey: `M-${cliKey}`,
        status,
      });
  };
  const run = () =>
    checkReports({ ...w.deps({ awaiting: checks, now: () => new Date(now) }), checks });
  return {
    ...w,
    checks,
    queue,
    run,
    advance: (ms: number) => {
      now += ms;
    },
  };
};

const keys = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('reconcile-status on the report-check queue', () => {
  it('puts a check that is not yet due back, delayed until it is, then reconciles and finishes it', async () => {
    // Prepare: ten recipients accepted 20 minutes ago, their reports never came
    const w = setup({ afterMinutes: 30 });
    await w.queue(ago(20 * MINUTE), keys('a', 10));

    // Act
    const early = await w.run();
    w.advance(11 * MINUTE);
    const due = await w.run();
    const after = await w.run();

    // Assess
    expect(early).toMatchObject({
      checksReceived: 1,
      checksNotDue: 1,
      checksPostponed: 1,
      examined: 0,
    });
    // Put back as a new message due in the 10 minutes left, not left received (in flight)
    expect(w.checks.putBacks).toEqual([
      { check: expect.objectContaining({ recipients: expect.any(Array) }), delaySeconds: 600 },
    ]);
    expect(w.gateway.calls).toHaveLength(1);
    expect(due).toMatchObject({
      checksReceived: 1,
      examined: 10,
      statusQueries: 1,
      reportsReconciled: 10,
      checksFinished: 1,
      stoppedBy: 'complete',
    });
    expect(w.checks.size).toBe(0);
    expect(after).toMatchObject({ checksReceived: 0, examined: 0, statusQueries: 0 });
  });

  it('asks nothing about recipients whose report is stored, and finishes their check', async () => {
    const w = setup();
    await w.queue(ago(40 * MINUTE), ['r-1', 'r-2']);
    await w.run();
    w.gateway.calls.length = 0;
    await w.queue(ago(40 * MINUTE), ['r-1', 'r-2']); // a second copy of the same check

    const again = await w.run();

    expect(again).toMatchObject({ examined: 2, alreadyRecorded: 2, checksFinished: 1 });
    expect(w.gateway.calls).toHaveLength(0);
    expect(w.store.reportEvents()).toHaveLength(2);
  });

  it('puts back, 15 minutes later, only the recipients still pending, until a later look finds them done', async () => {
    // Prepare: one recipient the gateway is still delivering (ING), one done
    const w = setup();
    await w.queue(ago(40 * MINUTE), ['p-1', 'p-2']);
    const pending = w.gateway.known.get('p-2');
    if (pending) pending.status = 'ING';

    // Act
    const first = await w.run();
    w.advance(14 * MINUTE);
    const hidden = await w.run();
    if (pending) pending.status = 'DONE';
    w.advance(MINUTE);
    const second = await w.run();

    // Assess: the done one is stored once; the pending one comes back alone and is finished then
    expect(first).toMatchObject({
      reportsReconciled: 1,
      stillPending: 1,
      checksFinished: 0,
      checksPostponed: 1,
    });
    expect(
      w.checks.putBacks.map(({ check, delaySeconds }) => [check.recipients, delaySeconds]),
    ).toEqual([[[{ cliKey: 'p-2', msgKey: 'M-p-2' }], 900]]);
    expect(hidden).toMatchObject({ checksReceived: 0 });
    expect(second).toMatchObject({
      examined: 1,
      alreadyRecorded: 0,
      reportsReconciled: 1,
      checksFinished: 1,
    });
    expect(w.checks.size).toBe(0);
    expect(w.store.reportEvents()).toHaveLength(2);
  });

  it('finishes a check older than the horizon without asking', async () => {
    const w = setup({ horizonHours: 96 });
    await w.queue(ago(97 * HOUR), ['old-1']);

    const result = await w.run();

    expect(result).toMatchObject({ checksExpired: 1, checksFinished: 1, statusQueries: 0 });
    expect(w.checks.size).toBe(0);
  });

  it('leaves a check it cannot read on the queue (for its DLQ) and says so', async () => {
    const w = setup();
    w.checks.sendRaw('{"v":1,"channel":"sms","acceptedAt":"yesterday","recipients":[]}');
    const told: string[] = [];

    const result = await checkReports({
      ...w.deps({ onInvalidCheck: (check) => told.push(check.problem) }),
      checks: w.checks,
    });

    expect(result).toMatchObject({ checksReceived: 1, checksInvalid: 1, checksFinished: 0 });
    expect(told).toEqual([expect.stringContaining('acceptedAt')]);
    expect(w.checks.size).toBe(1);
  });

  it('puts unqueried checks back for a later look when the gateway is unavailable', async () => {
    const w = setup();
    await w.queue(ago(40 * MINUTE), keys('u', 10));
    w.gateway.failWith = new GatewayRetryableError({
      code: '29019',
      message: 'db error',
      endpoint: 'e',
    });

    const down = await w.run();
    w.gateway.failWith = undefined;
    w.advance(15 * MINUTE);
    const up = await w.run();

    expect(down).toMatchObject({
      stoppedBy: 'gateway-unavailable',
      checksFinished: 0,
      checksPostponed: 1,
    });
    expect(up).toMatchObject({ reportsReconciled: 10, checksFinished: 1 });
    expect(w.checks.size).toBe(0);
  });

  it('stops at the budget, leaving the checks it did not reach', async () => {
    const w = setup({ maxRecipients: 20 });
    for (const prefix of ['b1', 'b2', 'b3']) await w.queue(ago(40 * MINUTE), keys(prefix, 10));

    const first = await w.run();
    w.advance(11 * MINUTE);
    const second = await w.run();

    expect(first).toMatchObject({ examined: 20, stoppedBy: 'budget', checksFinished: 2 });
    expect(second).toMatchObject({ examined: 10, stoppedBy: 'complete', checksFinished: 1 });
    expect(w.checks.size).toBe(0);
  });

  it('counts only recipients without a report against the budget, and finishes checks as it goes', async () => {
    // Prepare: 50 recipients in 5 checks whose reports all came, then one check of 10 without
    const w = setup({ maxRecipients: 20 });
    for (const prefix of ['r1', 'r2', 'r3', 'r4', 'r5']) {
      await w.queue(ago(40 * MINUTE), keys(prefix, 10));
      for (const cliKey of keys(prefix, 10))
        w.store.items.set(`REPORT#M-${cliKey}|REPORT`, {
          pk: `REPORT#M-${cliKey}`,
          sk: 'REPORT',
        } as never);
    }
    await w.queue(ago(40 * MINUTE), keys('late', 10));
    const finishes: number[] = [];
    const finish = w.checks.finish.bind(w.checks);
    w.checks.finish = async (ids) => {
      finishes.push(ids.length);
      await finish(ids);
    };

    // Act
    const result = await w.run();

    // Assess: every check read and finished in one run; only the 10 late ones were queried
    expect(result).toMatchObject({
      examined: 60,
      alreadyRecorded: 50,
      keysQueried: 10,
      reportsReconciled: 10,
      checksFinished: 6,
      stoppedBy: 'complete',
    });
    expect(w.checks.size).toBe(0);
    // Deleted batch by batch as the run read them, not all at its end
    expect(finishes.length).toBeGreaterThan(1);
    expect(finishes.reduce((a, b) => a + b, 0)).toBe(6);
  });

  it('does not go round a queue whose visibility timeout is shorter than the run', async () => {
    // Prepare: received checks come back at once, as with a visibility timeout of 0; an unreadable
    // one is never finished
    const w = setup();
    const checks = new MemoryReportChecks(() => NOW, { visibilityMs: 0 });
    checks.sendRaw('not a check');

    const result = await checkReports({ ...w.deps(), checks });

    expect(result).toMatchObject({ checksReceived: 1, checksInvalid: 1, stoppedBy: 'complete' });
  });
});

describe('report check messages', () => {
  it('go through the queue unchanged, msgKey or not', () => {
    const check: ReportCheck = {
      channel: 'brand-free',
      acceptedAt: '2026-03-11T05:00:00.000Z',
      recipients: [{ cliKey: 'k-1', msgKey: 'M-1' }, { cliKey: 'k-2' }],
    };
    expect(parseReportCheck(reportCheckBody(check))).toEqual({ check });
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['an unknown version', JSON.stringify({ v: 2 }), 'v'],
    [
      'eleven recipients',
      JSON.stringify({
        v: 1,
        channel: 'sms',
        acceptedAt: '2026-03-11T05:00:00.000Z',
        recipients: keys('k', 11).map((cliKey) => ({ cliKey })),
      }),
      'recipients',
    ],
  ])('refuse %s, naming the problem', (_, body, named) => {
    const parsed = parseReportCheck(body);
    expect(parsed).toEqual({ problem: expect.stringContaining(named) });
  });
});
