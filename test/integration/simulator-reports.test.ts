import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PollReportsResponseDataSchema,
  ReportWebhookBodySchema,
} from '../../functions/commons/gateway/schemas/reports.ts';
import { formatKst, parseGatewayDateTime } from '../../protocol/kst.ts';
import type { SimulatorOptionsInput } from '../../simulator/options.ts';
import type { ReportsSnapshot } from '../../simulator/reports.ts';
import { type Simulator, startSimulator } from '../../simulator/server.ts';
import {
  asList,
  asObject,
  authenticate,
  callGateway,
  type Json,
} from '../support/simulator-http.ts';

const CREDENTIALS = { apiKey: 'reports-key', apiPassword: 'reports-secret' };
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

const running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((thing) => thing.close()));
});

const start = async (options: Partial<SimulatorOptionsInput> = {}) => {
  const sim = await startSimulator({
    ...CREDENTIALS,
    port: 0,
    clock: 'manual',
    tpsQuota: 10_000,
    failureRate: 0,
    ...options,
  });
  running.push(sim);
  const { token } = await authenticate(sim, CREDENTIALS);
  return { sim, token };
};

const reportsOf = (sim: Simulator): ReportsSnapshot => sim.snapshot().reports as ReportsSnapshot;

/** Sends SMS to `count` recipients, 10 per call; returns their msgKeys. */
const sendSms = async (
  sim: Simulator,
  token: string,
  count: number,
  prefix = 'k',
  extra: Json = {},
): Promise<string[]> => {
  const msgKeys: string[] = [];
  for (let first = 0; first < count; first += 10) {
    const recvInfoLst = Array.from({ length: Math.min(10, count - first) }, (_, i) => ({
      cliKey: `${prefix}-${first + i}`,
      phone: `010${String(10_000_000 + first + i)}`,
    }));
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      token,
      body: { callback: '0212345678', msg: 'hello', recvInfoLst, ...extra },
    });
    expect(answer.status).toBe(200);
    for (const item of asList(asObject(answer.body).data)) msgKeys.push(String(item.msgKey));
  }
  return msgKeys;
};

const poll = async (sim: Simulator, token: string) => {
  const answer = await callGateway(sim, { method: 'GET', path: '/msg/v1.2/report', token });
  return { status: answer.status, body: asObject(answer.body) };
};

const pollPage = async (sim: Simulator, token: string) => {
  const { status, body } = await poll(sim, token);
  expect(status).toBe(200);
  expect(body.code).toBe('10000');
  const data = asObject(body.data);
  expect(PollReportsResponseDataSchema.safeParse(data).success).toBe(true);
  return { rptKey: String(data.rptKey), rptCnt: data.rptCnt, items: asList(data.rptLst) };
};

const confirm = async (sim: Simulator, token: string, rptKeyLst: string[]) => {
  const answer = await callGateway(sim, {
    method: 'POST',
    path: '/msg/v1.2/report/result',
    token,
    body: { rptKeyLst },
  });
  return { status: answer.status, body: asObject(answer.body) };
};

const statusOf = async (sim: Simulator, token: string, cliKey: string) => {
  const answer = await callGateway(sim, {
    method: 'POST',
    path: '/msg/v1/sent',
    token,
    body: { cliKeyLst: [{ cliKey, reqDt: formatKst(sim.clock.now(), 'YYYY-MM-DD') }] },
  });
  const [item] = asList(asObject(asObject(answer.body).data).cliKeyLst);
  return asObject(item);
};

type Reply = { status: number; body?: string } | 'hang';

/** A local webhook receiver: records every body and answers as `script` says. */
const startReceiver = async (script: (attempt: number) => Reply) => {
  const received: Array<{ body: string; contentType: string | undefined }> = [];
  const held: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        contentType: request.headers['content-type'],
      });
      const reply = script(received.length);
      if (reply === 'hang') {
        held.push(response);
        return;
      }
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver = {
    url: `http://127.0.0.1:${port}/hooks/reports`,
    received,
    bodies: () => received.map((entry) => asObject(JSON.parse(entry.body))),
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  running.push(receiver);
  return receiver;
};

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
    const shapes = (dates: string[]) =>
      new Set(
        dates.map((date) =>
          /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(date)
            ? 'space'
            : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(date)
              ? 'T'
              : /^\d{14}$/.test(date)
                ? 'compact'
                : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/.test(date)
                  ? 'kst-zoned'
                  : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(date)
                    ? 'utc'
                    : `other: ${date}`,
        ),
      );
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
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1.2/report/result',
      token,
      body: { rptKeyLst: [] },
    });

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

describe('simulator reports: webhook', () => {
  it('posts the reports as JSON with the webhook-only fields, and is done after HTTP 200', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 200 }));
    const { sim, token } = await start({ reportWebhookUrl: receiver.url, emptyPollStyle: 'null' });
    const sent = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      token,
      body: {
        callback: '0212345678',
        msg: 'hi',
        recvInfoLst: [
          { cliKey: 'w-1', phone: '01012345678', userCustomFields: { orderId: 'A-1' } },
          { cliKey: 'w-2', phone: '01087654321' },
        ],
      },
    });
    expect(sent.status).toBe(200);

    // Act
    await sim.advance(2_000);
    await sim.advance(60_000);
    const polled = await poll(sim, token);

    // Assess
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.contentType).toBe('application/json');
    const [body] = receiver.bodies();
    expect(ReportWebhookBodySchema.safeParse(body).success).toBe(true);
    expect(body?.rptCnt).toBe(2);
    const items = asList(body?.rptLst);
    const first = items.find((item) => item.cliKey === 'w-1');
    const second = items.find((item) => item.cliKey === 'w-2');
    expect(first).toMatchObject({
      phone: '01012345678',
      isBi: false,
      userCustomFields: { orderId: 'A-1' },
      resultNetwork: expect.any(String),
    });
    expect(typeof first?.rptRegDt).toBe('string');
    expect(typeof first?.recvDt).toBe('string');
    expect(second).toBeDefined();
    expect(second && 'userCustomFields' in second).toBe(false);
    expect(polled.body.data).toBeNull();
  });

  it('posts the same body again 10 s after HTTP 400, until answered 200 or 204', async () => {
    // Prepare
    const receiver = await startReceiver((attempt) => ({ status: attempt < 3 ? 400 : 204 }));
    const { sim, token } = await start({ reportWebhookUrl: receiver.url });
    await sendSms(sim, token, 3);

    // Act
    await sim.advance(2_000);
    const afterFirst = receiver.received.length;
    await sim.advance(9_999);
    const beforeRetry = receiver.received.length;
    await sim.advance(1);
    await sim.advance(10_000);
    await sim.advance(60_000);

    // Assess
    expect(afterFirst).toBe(1);
    expect(beforeRetry).toBe(1);
    expect(receiver.received).toHaveLength(3);
    const [one, two, three] = receiver.received.map((entry) => entry.body);
    expect(two).toBe(one);
    expect(three).toBe(one);
    expect(reportsOf(sim).webhook).toMatchObject({
      bodiesDelivered: 1,
      retries: 2,
      bodiesPending: 0,
    });
  });

  it('treats a receiver that does not answer within webhookTimeoutMs as a failure and redelivers', async () => {
    // Prepare
    const receiver = await startReceiver((attempt) => (attempt === 1 ? 'hang' : { status: 200 }));
    const { sim, token } = await start({ reportWebhookUrl: receiver.url, webhookTimeoutMs: 300 });
    await sendSms(sim, token, 1);

    // Act
    await sim.advance(2_000);
    const afterTimeout = receiver.received.length;
    await sim.advance(10_000);
    await sim.advance(30_000);

    // Assess
    expect(afterTimeout).toBe(1);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    expect(reportsOf(sim).webhook).toMatchObject({ bodiesDelivered: 1, bodiesPending: 0 });
  });

  it('drops a body still refused 72 h after its first attempt', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 500 }));
    const { sim, token } = await start({ reportWebhookUrl: receiver.url });
    await sendSms(sim, token, 2);
    await sim.advance(2_000);
    await sim.advance(10_000);
    await sim.advance(10_000);
    const beforeDrop = reportsOf(sim).webhook;

    // Act
    await sim.advance(72 * 3_600_000);
    const posts = receiver.received.length;
    await sim.advance(3_600_000);

    // Assess
    expect(beforeDrop).toMatchObject({ posts: 3, bodiesPending: 1, bodiesDropped: 0 });
    expect(reportsOf(sim).webhook).toMatchObject({
      bodiesPending: 0,
      bodiesDropped: 1,
      reportsDropped: 2,
    });
    expect(receiver.received.length).toBe(posts);
  });

  it('posts each body twice at duplicateWebhookRate 1', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 200 }));
    const { sim, token } = await start({
      reportWebhookUrl: receiver.url,
      faults: { duplicateWebhookRate: 1 },
    });
    await sendSms(sim, token, 2);

    // Act
    await sim.advance(2_000);

    // Assess
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]?.body).toBe(receiver.received[1]?.body);
    expect(reportsOf(sim).webhook.duplicatePosts).toBe(1);
  });

  it('shares a body among reports ready in the same pass, at most reportBatchSize per body', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 200 }));
    const { sim, token } = await start({ reportWebhookUrl: receiver.url, reportBatchSize: 10 });
    await sendSms(sim, token, 25);

    // Act
    await sim.advance(2_000);

    // Assess
    expect(receiver.bodies().map((body) => body.rptCnt)).toEqual([10, 10, 5]);
    expect(receiver.bodies().map((body) => asList(body.rptLst).length)).toEqual([10, 10, 5]);
  });

  it('puts every report on both paths with reportDelivery both', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 200 }));
    const { sim, token } = await start({ reportWebhookUrl: receiver.url, reportDelivery: 'both' });
    const sent = await sendSms(sim, token, 2);

    // Act
    await sim.advance(2_000);
    const page = await pollPage(sim, token);

    // Assess
    expect(page.items.map((item) => item.msgKey).sort()).toEqual([...sent].sort());
    expect(
      asList(receiver.bodies()[0]?.rptLst)
        .map((item) => item.msgKey)
        .sort(),
    ).toEqual([...sent].sort());
  });
});

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
