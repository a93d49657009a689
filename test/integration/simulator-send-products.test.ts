/**
 * The simulator's own send rules, driven over HTTP with raw request bodies: each case shows the
 * simulator enforcing one rule of spec 01 (§2, §4.3–4.10, §8) or of the field notes by itself,
 * whatever the bridge believes.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import type { Simulator } from '../../simulator/index.ts';
import {
  brandFree,
  brandTemplate,
  credentials,
  expectAccepted,
  notice,
  REPORT_DELAY_MS,
  recipients,
  send,
  sim,
  start,
  token,
  useRulesSimulator,
} from '../support/send-rules-simulator.ts';
import { asList, asObject, authenticate, callGateway } from '../support/simulator-http.ts';

useRulesSimulator();

const statusOf = async (cliKey: string, on: Simulator = sim, withToken = token) => {
  const answer = await send(
    '/msg/v1/sent',
    { cliKeyLst: [{ cliKey, reqDt: formatKst(on.clock.now(), 'YYYY-MM-DD') }] },
    on,
    withToken,
  );
  return asList(asObject(asObject(answer.body).data).cliKeyLst)[0];
};

/** The polled report of `cliKey`: pages are polled and confirmed until it shows up. */
const reportOf = async (on: Simulator, withToken: string, cliKey: string) => {
  for (let page = 0; page < 50; page++) {
    const poll = await callGateway(on, {
      method: 'GET',
      path: '/msg/v1.2/report',
      token: withToken,
    });
    const data = asObject(poll.body).data;
    if (data === null || data === undefined) break;
    const { rptKey, rptLst } = asObject(data);
    const reports = asList(rptLst ?? []);
    if (reports.length === 0) break;
    await callGateway(on, {
      method: 'POST',
      path: '/msg/v1.2/report/result',
      token: withToken,
      body: { rptKeyLst: [rptKey] },
    });
    const found = reports.find((report) => report.cliKey === cliKey);
    if (found) return found;
  }
  throw new Error(`no report for ${cliKey}`);
};

describe('product codes', () => {
  it('reports ITMPL for a notification message, in the status query and the polled report', async () => {
    const recvInfoLst = recipients(1);
    await expectAccepted(send('/msgr/notice/v1.2', notice({ recvInfoLst })));
    await sim.advance(REPORT_DELAY_MS);

    const status = await statusOf(recvInfoLst[0]?.cliKey ?? '');
    const report = await reportOf(sim, token, recvInfoLst[0]?.cliKey ?? '');

    expect(status).toMatchObject({ status: 'DONE', productCode: 'ITMPL' });
    expect(report).toMatchObject({ productCode: 'ITMPL' });
  });

  describe('brand messages before and after 2026-01-01 KST', () => {
    let early: Simulator;
    let earlyToken: string;

    beforeAll(async () => {
      // 2025-12-31 23:00 KST: the manual clock starts at the (faked) wall clock.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2025-12-31T14:00:00Z'));
      try {
        early = await start();
      } finally {
        vi.useRealTimers();
      }
      ({ token: earlyToken } = await authenticate(early, credentials));
    });

    afterAll(async () => {
      await early.close();
    });

    const BUBBLES: ReadonlyArray<[string, string]> = [
      ['TEXT', 'KFRT1'],
      ['IMAGE', 'KFRM2'],
      ['WIDE', 'KFRM3'],
      ['WIDE_ITEM_LIST', 'KFRM4'],
      ['CAROUSEL_FEED', 'KFRM5'],
      ['PREMIUM_VIDEO', 'KFRM6'],
      ['COMMERCE', 'KFRM7'],
      ['CAROUSEL_COMMERCE', 'KFRM8'],
    ];

    it.each(BUBBLES)('a %s template message in 2025 reports %s', async (chatBubbleType, code) => {
      const recvInfoLst = recipients(1);
      const body = brandTemplate({ chatBubbleType, recvInfoLst });
      await expectAccepted(send('/msgr/brand/tmplt/v1', body, early, earlyToken));

      expect(await statusOf(recvInfoLst[0]?.cliKey ?? '', early, earlyToken)).toMatchObject({
        ch: 'BRAND',
        productCode: code,
      });
    });

    it('a free-type WIDE message in 2025 reports KFRM3, and the report carries it', async () => {
      const recvInfoLst = recipients(1);
      const body = brandFree({
        chatBubbleType: 'WIDE',
        imageUrl: 'https://img.example.com/1.jpg',
        recvInfoLst,
      });
      await expectAccepted(send('/msgr/brand/custom/v1', body, early, earlyToken));
      await early.advance(REPORT_DELAY_MS);

      const report = await reportOf(early, earlyToken, recvInfoLst[0]?.cliKey ?? '');

      expect(report).toMatchObject({ productCode: 'KFRM3' });
    });

    it('from 2026-01-01 00:00 KST the same sends report BRDF (targeting I) and BRDNF', async () => {
      await early.advance(Date.parse('2026-01-01T00:00:00+09:00') - early.clock.now());
      ({ token: earlyToken } = await authenticate(early, credentials));
      const friends = recipients(1);
      const others = recipients(1);
      await expectAccepted(
        send('/msgr/brand/tmplt/v1', brandTemplate({ recvInfoLst: friends }), early, earlyToken),
      );
      await expectAccepted(
        send(
          '/msgr/brand/tmplt/v1',
          brandTemplate({ targeting: 'M', recvInfoLst: others }),
          early,
          earlyToken,
        ),
      );

      expect(await statusOf(friends[0]?.cliKey ?? '', early, earlyToken)).toMatchObject({
        productCode: 'BRDF',
      });
      expect(await statusOf(others[0]?.cliKey ?? '', early, earlyToken)).toMatchObject({
        productCode: 'BRDNF',
      });
    });
  });
});
