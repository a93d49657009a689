import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PollReportsResponseDataSchema,
  ReportWebhookBodySchema,
} from '../../functions/commons/gateway/schemas/reports.ts';
import { formatKst } from '../../protocol/kst.ts';
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
    const { sim, token } = await start({ reportDelayMs: 30_000 });
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

  it('writes date-times in all three production formats with dateStyle mixed, and one with standard', async () => {
    // Prepare
    const mixed = await start({ dateStyle: 'mixed' });
    const standard = await start({ dateStyle: 'standard' });
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
                : `other: ${date}`,
        ),
      );
    expect(shapes(mixedDates)).toEqual(new Set(['space', 'T', 'compact']));
    expect(shapes(standardDates)).toEqual(new Set(['space']));
  });
});

describe('simulator reports: polling', () => {
  it('serves 100 reports per page and answers a poll right after a non-empty page', async () => {
    // Prepare
    const { sim, token } = await start();
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
    const { sim, token } = await start({ reportDelayMs: 5_000 });
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
    const { sim, token } = await start();
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
    const { sim, token } = await start();
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

  it('removes reports nobody polled for 81 hours', async () => {
    // Prepare
    const { sim, token } = await start({ accessTokenTtlSeconds: 100 * 3_600 });
    const [old] = await sendSms(sim, token, 1, 'old');
    await sim.advance(40 * 3_600_000);
    const [recent] = await sendSms(sim, token, 1, 'recent');

    // Act: the old report has been available for exactly 81 h.
    await sim.advance(41 * 3_600_000 + 2_000);
    const page = await pollPage(sim, token);

    // Assess
    expect(old).toBeDefined();
    expect(page.items.map((item) => item.msgKey)).toEqual([recent]);
    expect(reportsOf(sim).polling.expired).toBe(1);
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
    const { sim, token } = await start({ reportWebhookUrl: receiver.url });
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
