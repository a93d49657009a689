import { describe, expect, it } from 'vitest';
import { confirm, poll, pollPage, reportsOf, sendSms, start } from '../support/report-simulator.ts';
import { asList, asObject, callGateway } from '../support/simulator-http.ts';

const POLLED_KEYS = [
  'ch',
  'cliKey',
  'fbReasonLst',
  'msgKey',
  'productCode',
  'resultCode',
  'resultCodeDesc',
  'resultNetwork',
  'rptDt',
  'telco',
];

describe('simulator reports: polling', () => {
  it('serves 100 reports per page and answers a poll right after a non-empty page', async () => {
    // Prepare
    const { sim, token } = await start({ fbReasonStyle: 'list', emptyPollStyle: 'null' });
    const sent = await sendSms(sim, token, 150);
    await sim.advance(2_000);

    // Act
    const first = await pollPage(sim, token);
    const second = await pollPage(sim, token);
    const third = await poll(sim, token);

    // Assess
    expect(first.rptCnt).toBe(100);
    expect(first.items).toHaveLength(100);
    expect(second.rptCnt).toBe(50);
    expect(second.rptKey).not.toBe(first.rptKey);
    expect([...first.items, ...second.items].map((item) => item.msgKey).sort()).toEqual(
      [...sent].sort(),
    );
    expect(Object.keys(first.items[0] ?? {}).sort()).toEqual(POLLED_KEYS);
    expect(third).toEqual({ status: 200, body: { code: '10000', message: 'success', data: null } });
  });

  it('rejects a poll less than 10 s after an empty poll with 29002, even when reports exist by then', async () => {
    // Prepare
    const { sim, token } = await start({ reportDelayMs: 5_000, emptyPollStyle: 'null' });
    const empty = await poll(sim, token);
    await sendSms(sim, token, 1);

    // Act
    await sim.advance(9_999);
    const tooSoon = await poll(sim, token);
    await sim.advance(1);
    const allowed = await pollPage(sim, token);

    // Assess
    expect(empty.body).toMatchObject({ code: '10000', data: null });
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.body.code).toBe('29002');
    expect(String(tooSoon.body.message)).toMatch(/empty poll/);
    expect(allowed.items).toHaveLength(1);
  });

  it('delivers unconfirmed reports again after 120 s under a new rptKey, and stops once confirmed', async () => {
    // Prepare
    const { sim, token } = await start({ reportOrder: 'ordered', emptyPollStyle: 'null' });
    await sendSms(sim, token, 3);
    await sim.advance(2_000);
    const first = await pollPage(sim, token);

    // Act
    await sim.advance(120_000);
    const again = await pollPage(sim, token);
    const confirmed = await confirm(sim, token, [again.rptKey]);
    const lateConfirm = await confirm(sim, token, [first.rptKey]);
    const unknown = await confirm(sim, token, ['no-such-key']);
    await sim.advance(120_000);
    const afterConfirm = await poll(sim, token);

    // Assess
    expect(again.rptKey).not.toBe(first.rptKey);
    expect(again.items).toEqual(first.items);
    expect(confirmed.body).toEqual({ code: '10000', message: 'success' });
    expect(lateConfirm).toMatchObject({ status: 400, body: { code: '21502' } });
    expect(unknown).toMatchObject({ status: 400, body: { code: '21501' } });
    expect(afterConfirm.body).toMatchObject({ code: '10000', data: null });
    expect(reportsOf(sim).polling).toMatchObject({ confirmed: 3, returnedUnconfirmed: 3 });
  });

  it('accepts a confirmation just inside the window and refuses one at 120 s, returning the reports', async () => {
    // Prepare
    const { sim, token } = await start({ reportOrder: 'ordered' });
    await sendSms(sim, token, 2);
    await sim.advance(2_000);
    const inTime = await pollPage(sim, token);
    await sim.advance(119_999);
    const inTimeAnswer = await confirm(sim, token, [inTime.rptKey]);
    await sendSms(sim, token, 2, 'late');
    await sim.advance(2_000);
    const late = await pollPage(sim, token);

    // Act
    await sim.advance(120_000);
    const lateAnswer = await confirm(sim, token, [late.rptKey]);
    const back = await pollPage(sim, token);

    // Assess
    expect(inTimeAnswer.body.code).toBe('10000');
    expect(lateAnswer.status).toBe(400);
    expect(lateAnswer.body.code).toBe('21502');
    expect(back.items.map((item) => item.msgKey)).toEqual(late.items.map((item) => item.msgKey));
  });

  it('rejects a confirm body without rptKeyLst with 21001', async () => {
    // Prepare
    const { sim, token } = await start();

    // Act
    const answer = await confirm(sim, token, []);

    // Assess
    expect(answer.status).toBe(400);
    expect(asObject(answer.body).code).toBe('21001');
  });

  it('keeps an available report past 81 h while report requests keep coming, even ones that hand out other reports', async () => {
    // Prepare: one report per page, in order, so the unconfirmed first report comes back to the
    // front every 120 s and the second stays available behind it.
    const { sim, token } = await start({
      accessTokenTtlSeconds: 200 * 3_600,
      reportBatchSize: 1,
      reportOrder: 'ordered',
    });
    const [first, second] = await sendSms(sim, token, 2);
    await sim.advance(2_000);

    // Act: a poll every 30 h hands out the first report again; the second is never handed out.
    const handedOut: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      handedOut.push((await pollPage(sim, token)).items[0]?.msgKey);
      await sim.advance(30 * 3_600_000);
    }
    const last = await pollPage(sim, token);
    const confirmed = await confirm(sim, token, [last.rptKey]);
    const behind = await pollPage(sim, token);

    // Assess: 122 h after it became available, the second report is still there.
    expect(handedOut).toEqual([first, first, first, first]);
    expect(confirmed.body.code).toBe('10000');
    expect(behind.items.map((item) => item.msgKey)).toEqual([second]);
    expect(reportsOf(sim).polling.expired).toBe(0);
  });

  it('counts empty polls as report requests for the 81 h rule', async () => {
    // Prepare
    const { sim, token } = await start({ accessTokenTtlSeconds: 200 * 3_600 });

    // Act: empty polls at 0 h and 60 h; a report becomes available at 70 h; polled at 140 h.
    await poll(sim, token);
    await sim.advance(60 * 3_600_000);
    const empty = await poll(sim, token);
    await sim.advance(10 * 3_600_000);
    const [late] = await sendSms(sim, token, 1);
    await sim.advance(70 * 3_600_000 - 1);
    const page = await pollPage(sim, token);

    // Assess
    expect(empty.body.code).toBe('10000');
    expect(page.items.map((item) => item.msgKey)).toEqual([late]);
    expect(reportsOf(sim).polling).toMatchObject({ expired: 0, emptyPolls: 2 });
  });

  it('removes every available report once 81 h pass without a report request, however recent', async () => {
    // Prepare: a poll at 0 h; reports become available at 30 h and at 80 h.
    const { sim, token } = await start({ accessTokenTtlSeconds: 200 * 3_600 });
    await poll(sim, token);
    await sim.advance(30 * 3_600_000);
    await sendSms(sim, token, 1, 'old');
    await sim.advance(50 * 3_600_000);
    await sendSms(sim, token, 1, 'recent');
    await sim.advance(2_000);
    const before = reportsOf(sim).polling;

    // Act: 81 h after the last poll.
    await sim.advance(3_600_000 - 2_000);
    const after = reportsOf(sim).polling;
    const answer = await poll(sim, token);

    // Assess
    expect(before).toMatchObject({ available: 2, expired: 0 });
    expect(after).toMatchObject({ available: 0, expired: 2 });
    expect(answer.body.code).toBe('10000');
    expect(asList(asObject(answer.body.data ?? { rptLst: [] }).rptLst)).toEqual([]);
  });

  it('requires a bearer token', async () => {
    // Prepare
    const { sim } = await start();

    // Act
    const answer = await callGateway(sim, { method: 'GET', path: '/msg/v1.2/report' });

    // Assess
    expect(answer.status).toBe(401);
  });
});
