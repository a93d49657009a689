import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  PollReportsResponseDataSchema,
  ReportWebhookBodySchema,
} from '../../gateway/schemas/reports.ts';
import type { Simulator } from '../../simulator/server.ts';
import {
  confirm,
  poll,
  pollPage,
  sendSms,
  start,
  startReceiver,
} from '../support/report-simulator.ts';
import { asList, asObject, callGateway, type Json } from '../support/simulator-http.ts';

describe('simulator reports: field-note behaviours', () => {
  it('validates the confirm body itself: reports.ts imports nothing from functions/', async () => {
    // Prepare
    const source = await readFile(new URL('../../simulator/reports.ts', import.meta.url), 'utf8');
    const { sim, token } = await start();
    const bodies: Json[] = [
      {},
      { rptKeyLst: 'rpt-1' },
      { rptKeyLst: [''] },
      { rptKeyLst: [1] },
      { rptKeyLst: ['rpt-1'], extra: true },
    ];

    // Act
    const answers = await Promise.all(
      bodies.map((body) =>
        callGateway(sim, { method: 'POST', path: '/msg/v1.2/report/result', token, body }),
      ),
    );

    // Assess
    expect(source).not.toMatch(/from '\.\.\/functions\//);
    expect(answers.map((answer) => [answer.status, asObject(answer.body).code])).toEqual(
      bodies.map(() => [400, '21001']),
    );
  });

  it('answers an empty poll with data null, with rptCnt 0 and an empty list, or either by seed', async () => {
    // Prepare
    const nullStyle = await start({ emptyPollStyle: 'null' });
    const zeroStyle = await start({ emptyPollStyle: 'zero' });
    const mixed = await start({ emptyPollStyle: 'mixed', seed: 7 });
    const again = await start({ emptyPollStyle: 'mixed', seed: 7 });
    const polls = async ({ sim, token }: { sim: Simulator; token: string }, count: number) => {
      const data: unknown[] = [];
      for (let i = 0; i < count; i++) {
        const answer = await poll(sim, token);
        expect(answer).toMatchObject({ status: 200, body: { code: '10000' } });
        data.push(answer.body.data);
        await sim.advance(10_000);
      }
      return data;
    };

    // Act
    const nulls = await polls(nullStyle, 2);
    const zeros = await polls(zeroStyle, 2);
    const mixedData = await polls(mixed, 12);
    const mixedAgain = await polls(again, 12);

    // Assess
    expect(nulls).toEqual([null, null]);
    expect(zeros).toEqual([
      { rptCnt: 0, rptLst: [] },
      { rptKey: null, rptCnt: 0, rptLst: [] },
    ]);
    expect(mixedData).toContainEqual(null);
    expect(mixedData.some((data) => data !== null)).toBe(true);
    for (const data of mixedData) {
      expect(PollReportsResponseDataSchema.parse(data)).toBeNull();
    }
    expect(mixedAgain).toEqual(mixedData);
  });

  it('writes fbReasonLst of a report without fallback as [], null or no field (mixed), only [] with list', async () => {
    // Prepare: no fallback and a mix of successes and failures, polled and posted.
    const receiver = await startReceiver(() => ({ status: 200 }));
    const options = {
      failureRate: 0.5,
      reportDelivery: 'both',
      reportWebhookUrl: receiver.url,
    } as const;
    const mixed = await start({ ...options, fbReasonStyle: 'mixed' });
    const list = await start({ ...options, fbReasonStyle: 'list' });
    await sendSms(mixed.sim, mixed.token, 9);
    await sendSms(list.sim, list.token, 9);

    // Act
    await mixed.sim.advance(2_000);
    await list.sim.advance(2_000);
    const mixedPolled = (await pollPage(mixed.sim, mixed.token)).items;
    const listPolled = (await pollPage(list.sim, list.token)).items;
    const posted = receiver.bodies().flatMap((body) => asList(body.rptLst));

    // Assess
    const shape = (item: Record<string, unknown>) =>
      !('fbReasonLst' in item) ? 'absent' : item.fbReasonLst === null ? 'null' : 'list';
    expect(new Set(mixedPolled.map(shape))).toEqual(new Set(['absent', 'null', 'list']));
    expect(new Set(listPolled.map(shape))).toEqual(new Set(['list']));
    expect(listPolled.every((item) => asList(item.fbReasonLst).length === 0)).toBe(true);
    expect(posted).toHaveLength(18);
    expect(new Set(posted.map(shape))).toEqual(new Set(['absent', 'null', 'list']));
    for (const body of receiver.bodies()) {
      expect(ReportWebhookBodySchema.safeParse(body).success).toBe(true);
    }
  });

  it('hands out reports out of send order within and across pages when shuffled, reproducibly by seed', async () => {
    // Prepare: 30 recipients in one go, pages of 10.
    const shuffled = await start({ reportBatchSize: 10, reportOrder: 'shuffled', seed: 3 });
    const sameSeed = await start({ reportBatchSize: 10, reportOrder: 'shuffled', seed: 3 });
    const ordered = await start({ reportBatchSize: 10, reportOrder: 'ordered', seed: 3 });
    const pagesOf = async ({ sim, token }: { sim: Simulator; token: string }) => {
      const sent = await sendSms(sim, token, 30);
      await sim.advance(2_000);
      const pages: unknown[][] = [];
      for (let i = 0; i < 3; i++) {
        const page = await pollPage(sim, token);
        pages.push(page.items.map((item) => item.msgKey));
        await confirm(sim, token, [page.rptKey]);
      }
      return { sent, pages };
    };

    // Act
    const out = await pagesOf(shuffled);
    const again = await pagesOf(sameSeed);
    const inOrder = await pagesOf(ordered);

    // Assess
    const position = (sent: string[], key: unknown) => sent.indexOf(String(key));
    const ascending = (keys: number[]) =>
      keys.every((key, i) => i === 0 || (keys[i - 1] ?? 0) < key);
    expect(inOrder.pages.flat()).toEqual(inOrder.sent);
    expect([...out.pages.flat()].sort()).toEqual([...out.sent].sort());
    const pagePositions = out.pages.map((page) => page.map((key) => position(out.sent, key)));
    // Within a page, and across pages: a later page holds a report sent before one of an earlier page.
    expect(pagePositions.every(ascending)).toBe(false);
    expect(Math.min(...(pagePositions[1] ?? []))).toBeLessThan(
      Math.max(...(pagePositions[0] ?? [])),
    );
    expect(again.pages.map((page) => page.map((key) => position(again.sent, key)))).toEqual(
      pagePositions,
    );
  });

  it('posts reports out of send order within and across webhook bodies when shuffled', async () => {
    // Prepare: the clock moves in 100 ms steps, so reports ready at different times leave in
    // different bodies.
    const run = async (reportOrder: 'shuffled' | 'ordered') => {
      const receiver = await startReceiver(() => ({ status: 200 }));
      const { sim, token } = await start({ reportWebhookUrl: receiver.url, reportOrder, seed: 5 });
      const sent = await sendSms(sim, token, 20);
      for (let step = 0; step < 20; step++) await sim.advance(100);
      const bodies = receiver
        .bodies()
        .map((body) => asList(body.rptLst).map((item) => sent.indexOf(String(item.msgKey))));
      return { sent, bodies };
    };

    // Act
    const shuffled = await run('shuffled');
    const ordered = await run('ordered');

    // Assess
    const flat = shuffled.bodies.flat();
    expect([...flat].sort((a, b) => a - b)).toEqual(shuffled.sent.map((_, i) => i));
    expect(ordered.bodies).toEqual([ordered.sent.map((_, i) => i)]);
    expect(shuffled.bodies.length).toBeGreaterThan(1);
    // The first body holds a report sent after one that leaves in a later body.
    const [first = [], ...later] = shuffled.bodies;
    expect(Math.max(...first)).toBeGreaterThan(Math.min(...later.flat()));
    expect(
      shuffled.bodies.some((body) => body.some((p, i) => i > 0 && p < (body[i - 1] ?? 0))),
    ).toBe(true);
  });
});
