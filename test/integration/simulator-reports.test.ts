import { describe, expect, it } from 'vitest';
import { parseGatewayDateTime } from '../../protocol/kst.ts';
import type { Simulator } from '../../simulator/server.ts';
import { pollPage, reportsOf, sendSms, start, statusOf } from '../support/report-simulator.ts';
import { asList, callGateway, dateFormatOf } from '../support/simulator-http.ts';

describe('simulator reports: outcome and timing', () => {
  it('reports a recipient only after reportDelayMs, moving its status REG → ING → DONE', async () => {
    // Prepare
    const { sim, token } = await start({ reportDelayMs: 30_000, reportOrder: 'ordered' });
    const [msgKey] = await sendSms(sim, token, 1);

    // Act
    await sim.advance(29_999);
    const before = await statusOf(sim, token, 'k-0');
    const early = reportsOf(sim);
    await sim.advance(1);
    const after = await statusOf(sim, token, 'k-0');
    const page = await pollPage(sim, token);

    // Assess
    expect(before.status).toBe('ING');
    expect(early.generated).toBe(0);
    expect(after.status).toBe('DONE');
    expect(after.resultCode).toBe('10000');
    expect(page.items.map((item) => item.msgKey)).toEqual([msgKey]);
  });

  it('lets failures fall back at fallbackRate: ch is the final channel, fbReasonLst says why', async () => {
    // Prepare
    const { sim, token } = await start({ failureRate: 1, fallbackRate: 1 });
    const recvInfoLst = Array.from({ length: 10 }, (_, i) => ({
      cliKey: `rcs-${i}`,
      phone: `0109000000${i}`,
    }));
    const sent = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/rcs',
      token,
      body: {
        messagebaseId: 'SS000000',
        callback: '0212345678',
        header: '0',
        recvInfoLst,
        fbInfoLst: [{ ch: 'SMS', msg: 'fallback text' }],
      },
    });
    expect(sent.status).toBe(200);

    // Act
    await sim.advance(2_000);
    const { items } = await pollPage(sim, token);
    const status = await statusOf(sim, token, 'rcs-0');

    // Assess
    expect(items).toHaveLength(10);
    for (const item of items) {
      expect(item).toMatchObject({ ch: 'SMS', resultCode: '10000', productCode: 'SMS' });
      const [reason, ...others] = asList(item.fbReasonLst);
      expect(others).toEqual([]);
      expect(reason).toMatchObject({
        ch: 'RCS',
        fbResultCode: expect.stringMatching(/^(41|5\d)\d{3}$/),
      });
      expect(typeof reason?.fbResultDesc).toBe('string');
      expect(['SKT', 'KT', 'LGU']).toContain(reason?.telco);
    }
    expect(items.some((item) => asList(item.fbReasonLst)[0]?.fbResultCode === '54002')).toBe(true);
    expect(status).toMatchObject({ status: 'DONE', ch: 'SMS', resultCode: '10000' });
  });

  it('reports channel failures without fallback, with fbReasonLst null on some items and [] on others', async () => {
    // Prepare
    const { sim, token } = await start({ failureRate: 1, fallbackRate: 1 });
    await sendSms(sim, token, 10);

    // Act
    await sim.advance(2_000);
    const { items } = await pollPage(sim, token);

    // Assess
    expect(items.every((item) => /^30\d{3}$/.test(String(item.resultCode)))).toBe(true);
    expect(items.every((item) => item.ch === 'SMS' && item.productCode === 'SMS')).toBe(true);
    expect(items.some((item) => item.fbReasonLst === null)).toBe(true);
    expect(
      items.some((item) => Array.isArray(item.fbReasonLst) && item.fbReasonLst.length === 0),
    ).toBe(true);
  });

  it('reports messenger messages as 32114 (success uncertain) at uncertainRate', async () => {
    // Prepare
    const { sim, token } = await start({ uncertainRate: 1 });
    const sent = await callGateway(sim, {
      method: 'POST',
      path: '/msgr/notice/v1.2',
      token,
      body: {
        callback: '0212345678',
        msg: 'Your order has shipped',
        msgrChId: 'channel-1',
        tmpltCode: 'T-1',
        recvInfoLst: [{ cliKey: 'msgr-1', phone: '01011112222' }],
      },
    });
    expect(sent.status).toBe(200);

    // Act
    await sim.advance(2_000);
    const { items } = await pollPage(sim, token);

    // Assess
    expect(items).toEqual([
      expect.objectContaining({ ch: 'MSGR', resultCode: '32114', telco: '' }),
    ]);
  });

  it('writes date-times in every production format with dateStyle mixed, zoned ones too, and one with standard', async () => {
    // Prepare: reports in send order, so every report has the same instant.
    const mixed = await start({ dateStyle: 'mixed', reportOrder: 'ordered' });
    const standard = await start({ dateStyle: 'standard', reportOrder: 'ordered' });
    await sendSms(mixed.sim, mixed.token, 6);
    await sendSms(standard.sim, standard.token, 6);

    // Act
    await mixed.sim.advance(2_000);
    await standard.sim.advance(2_000);
    const mixedDates = (await pollPage(mixed.sim, mixed.token)).items.map((i) => String(i.rptDt));
    const standardDates = (await pollPage(standard.sim, standard.token)).items.map((i) =>
      String(i.rptDt),
    );

    // Assess
    const shapes = (dates: string[]) => new Set(dates.map(dateFormatOf));
    expect(shapes(mixedDates)).toEqual(new Set(['space', 'T', 'compact', 'kst-zoned', 'utc']));
    expect(shapes(standardDates)).toEqual(new Set(['space']));
    // Every format names the same instant: the report time, 2 s after the send.
    const second = (sim: Simulator) =>
      new Date(Math.floor(sim.clock.now() / 1_000) * 1_000).toISOString();
    expect(new Set(mixedDates.map(parseGatewayDateTime))).toEqual(new Set([second(mixed.sim)]));
    expect(new Set(standardDates.map(parseGatewayDateTime))).toEqual(
      new Set([second(standard.sim)]),
    );
  });
});
