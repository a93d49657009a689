import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { authenticate, callGateway } from '../support/simulator-http.ts';

const API_KEY = 'send-test-key';
const API_PASSWORD = randomUUID();
const CALLBACK = '0212345678';
const REPORT_DELAY_MS = 2_000;

let sim: Simulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({
    apiKey: API_KEY,
    apiPassword: API_PASSWORD,
    clock: 'manual',
    tpsQuota: 1_000,
    reportDelayMs: REPORT_DELAY_MS,
    // The duplicate test asserts 29024 itself; the default draws from the whole family.
    duplicateCode: '29024',
  });
});

afterAll(async () => {
  await sim.close();
});

// A fresh token per test: some tests move the shared manual clock forward.
beforeEach(async () => {
  ({ token } = await authenticate(sim, { apiKey: API_KEY, apiPassword: API_PASSWORD }));
});

let keyCounter = 0;
const newKey = (label: string): string => `${label}-${++keyCounter}`;

interface Recipient {
  readonly cliKey: string;
  readonly phone: string;
}

const recipients = (count: number, label = 'r'): Recipient[] =>
  Array.from({ length: count }, (_, index) => ({
    cliKey: newKey(label),
    phone: `010${String(10_000_000 + index)}`,
  }));

const smsBody = (recvInfoLst: readonly Recipient[], extra: Record<string, unknown> = {}) => ({
  callback: CALLBACK,
  msg: 'Your code is 1234',
  recvInfoLst,
  ...extra,
});

const send = (path: string, body: unknown, withToken = token) =>
  callGateway(sim, { method: 'POST', path, token: withToken, body });

const today = (): string => formatKst(sim.clock.now(), 'YYYY-MM-DD');

/** `data.cliKeyLst` of the status query for `cliKeys` sent today (KST). */
const statusOf = async (cliKeys: readonly string[], reqDt = today()) => {
  const answer = await send('/msg/v1/sent', {
    cliKeyLst: cliKeys.map((cliKey) => ({ cliKey, reqDt })),
  });
  expect(answer.status).toBe(200);
  const body = answer.body as { data: { cliKeyLst: Array<Record<string, unknown>> } };
  return body.data.cliKeyLst;
};

const itemsOf = (body: unknown): Array<Record<string, unknown>> => {
  expect(body).toMatchObject({ code: '10000', data: expect.any(Array) });
  return (body as { data: Array<Record<string, unknown>> }).data;
};

interface EndpointCase {
  readonly path: string;
  readonly body: (recvInfoLst: readonly Recipient[]) => Record<string, unknown>;
  readonly ch: string;
  readonly productCode: string;
}

const ENDPOINT_CASES: readonly EndpointCase[] = [
  {
    path: '/xms/sms/v1',
    body: (r) => smsBody(r, { msg: '안녕하세요' }),
    ch: 'SMS',
    productCode: 'SMS',
  },
  { path: '/msg/v1/sms', body: (r) => smsBody(r), ch: 'SMS', productCode: 'SMS' },
  {
    path: '/xms/mms/v1',
    body: (r) => smsBody(r, { title: '공지', msg: '긴 안내문', fileIdLst: ['FILE-1'] }),
    ch: 'MMS',
    productCode: 'MMS',
  },
  {
    path: '/msg/v1/mms',
    body: (r) => smsBody(r, { title: 'Notice', msg: 'A longer text without files' }),
    ch: 'LMS',
    productCode: 'LMS',
  },
  {
    path: '/msg/v1/rcs',
    body: (recvInfoLst) => ({
      messagebaseId: 'SS000000',
      callback: CALLBACK,
      header: '0',
      recvInfoLst,
    }),
    ch: 'RCS',
    productCode: 'SMS',
  },
  {
    path: '/msg/v1.1/rcs',
    body: (recvInfoLst) => ({
      messagebaseId: 'TMPL-0001',
      callback: CALLBACK,
      header: '0',
      recvInfoLst,
      fbInfoLst: [{ ch: 'SMS', msg: 'fallback text' }],
    }),
    ch: 'RCS',
    productCode: 'ITMPL',
  },
  {
    path: '/rcs/v1.1',
    body: (recvInfoLst) => ({
      messagebaseId: 'SL000000',
      callback: CALLBACK,
      header: '0',
      recvInfoLst,
    }),
    ch: 'RCS',
    productCode: 'LMS',
  },
  {
    path: '/msg/v1/push',
    body: (r) => ({
      callback: CALLBACK,
      msg: { title: 'Hello', body: 'Your parcel is on its way' },
      appId: 'app-1',
      recvInfoLst: r.map((recipient) => ({ ...recipient, cuid: `user-${recipient.cliKey}` })),
      clickUrlYn: 'N',
    }),
    ch: 'PUSH',
    productCode: 'PUSH',
  },
  {
    path: '/msgr/notice/v1.2',
    body: (recvInfoLst) => ({
      callback: CALLBACK,
      msg: 'Your order has shipped',
      msgrChId: 'channel-1',
      tmpltCode: 'ORDER_SHIPPED',
      recvInfoLst,
    }),
    ch: 'MSGR',
    productCode: 'ITMPL',
  },
  {
    path: '/msgr/brand/tmplt/v1',
    body: (recvInfoLst) => ({
      targeting: 'I',
      msgrChId: 'channel-1',
      tmpltCode: 'BRAND_1',
      chatBubbleType: 'TEXT',
      callback: CALLBACK,
      recvInfoLst,
    }),
    ch: 'BRAND',
    productCode: 'BRDF',
  },
  {
    path: '/msgr/brand/custom/v1',
    body: (recvInfoLst) => ({
      targeting: 'N',
      msgrChId: 'channel-1',
      chatBubbleType: 'TEXT',
      content: 'Spring sale starts today',
      callback: CALLBACK,
      recvInfoLst,
    }),
    ch: 'BRAND',
    productCode: 'BRDNF',
  },
];

describe('send endpoints', () => {
  it.each(ENDPOINT_CASES)('$path accepts a valid body with one item per recipient', async (c) => {
    // Prepare
    const recvInfoLst = recipients(2);

    // Act
    const answer = await send(c.path, c.body(recvInfoLst));

    // Assess
    expect(answer.status).toBe(200);
    const items = itemsOf(answer.body);
    expect(items).toEqual(
      recvInfoLst.map((recipient) => ({
        cliKey: recipient.cliKey,
        msgKey: expect.any(String),
        phone: recipient.phone,
        code: '10000',
        message: expect.any(String),
      })),
    );
    const statuses = await statusOf(recvInfoLst.map((recipient) => recipient.cliKey));
    for (const status of statuses) {
      expect(status).toMatchObject({ ch: c.ch, productCode: c.productCode });
    }
  });

  it('/rcs/bi/v1.1 answers replyId and chatbotId instead of phone', async () => {
    // Prepare
    const cliKey = newKey('bi');
    const body = {
      replyId: 'REPLY-1',
      cliKey,
      messagebaseId: 'TMPL-CHAT',
      chatbotId: '15881234',
      telco: 'SKT',
      phone: '01099998888',
      body: { description: 'Thanks for your message' },
      header: '0',
    };

    // Act
    const answer = await send('/rcs/bi/v1.1', body);

    // Assess
    expect(answer.status).toBe(200);
    expect(itemsOf(answer.body)).toEqual([
      {
        cliKey,
        msgKey: expect.any(String),
        replyId: 'REPLY-1',
        chatbotId: '15881234',
        code: '10000',
        message: expect.any(String),
      },
    ]);
    expect(await statusOf([cliKey])).toMatchObject([{ ch: 'RCS', productCode: 'CHAT' }]);
  });

  it('answers 20004 to a send without a bearer token', async () => {
    // Act
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      body: smsBody(recipients(1)),
    });

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: '20004' });
  });
});

describe('multipart MMS', () => {
  const multipart = async (reqMsg: unknown, files: number) => {
    const form = new FormData();
    form.append('reqMsg', new Blob([JSON.stringify(reqMsg)], { type: 'application/json' }));
    for (let index = 0; index < files; index++) {
      const bytes = Buffer.alloc(1_024, index);
      form.append('parts', new Blob([bytes], { type: 'image/jpeg' }), `photo-${index}.jpg`);
    }
    // Response serialises the form the way fetch would, boundary and all.
    const encoded = new Response(form);
    return callGateway(sim, {
      method: 'POST',
      path: '/xms/mms/file/v1',
      token,
      body: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
    });
  };

  it('accepts two attached files as an MMS', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'mms');

    // Act
    const answer = await multipart(smsBody(recvInfoLst, { title: 'Photos' }), 2);

    // Assess
    expect(answer.status).toBe(200);
    expect(itemsOf(answer.body)).toMatchObject([{ cliKey: recvInfoLst[0]?.cliKey, code: '10000' }]);
    expect(await statusOf([recvInfoLst[0]?.cliKey ?? ''])).toMatchObject([
      { ch: 'MMS', productCode: 'MMS' },
    ]);
  });

  it('refuses four attached files with 21031', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'mms');

    // Act
    const answer = await multipart(smsBody(recvInfoLst, { title: 'Photos' }), 4);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21031' });
    expect(await statusOf([recvInfoLst[0]?.cliKey ?? ''])).toMatchObject([
      { status: 'INVALID_KEY' },
    ]);
  });

  it('refuses a body that is not multipart with 21000', async () => {
    // Act
    const answer = await send('/xms/mms/file/v1', smsBody(recipients(1)));

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21000' });
  });
});

describe('request validation', () => {
  it('refuses 11 recipients with 21012', async () => {
    // Act
    const answer = await send('/msg/v1/sms', smsBody(recipients(11)));

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21012' });
  });

  it('accepts an SMS of exactly 90 bytes and refuses 91 bytes with 21001 naming msg', async () => {
    // Act
    const fits = await send('/msg/v1/sms', smsBody(recipients(1), { msg: 'a'.repeat(90) }));
    const tooLong = await send('/msg/v1/sms', smsBody(recipients(1), { msg: 'a'.repeat(91) }));

    // Assess
    expect(fits.status).toBe(200);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ code: '21001', message: expect.stringMatching(/^msg: /) });
  });

  it('counts Hangul as 2 bytes: 46 syllables do not fit an SMS', async () => {
    // Act
    const answer = await send('/msg/v1/sms', smsBody(recipients(1), { msg: '가'.repeat(46) }));

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21001' });
  });

  it('refuses a fallback to the main channel with 21051', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { fbInfoLst: [{ ch: 'SMS', msg: 'again' }] }),
    );

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: '21051',
      message: expect.stringContaining('fbInfoLst'),
    });
  });

  it('refuses a fallback channel listed twice with 21051', async () => {
    // Act
    const answer = await send('/msg/v1.1/rcs', {
      messagebaseId: 'TMPL-0001',
      callback: CALLBACK,
      header: '0',
      recvInfoLst: recipients(1),
      fbInfoLst: [
        { ch: 'SMS', msg: 'one' },
        { ch: 'SMS', msg: 'two' },
      ],
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21051' });
  });

  it('refuses other bad fallback info with 21014', async () => {
    // Prepare: an MMS fallback needs a title.
    const body = {
      messagebaseId: 'TMPL-0001',
      callback: CALLBACK,
      header: '0',
      recvInfoLst: recipients(1),
      fbInfoLst: [{ ch: 'MMS', msg: 'no title' }],
    };

    // Act
    const answer = await send('/msg/v1.1/rcs', body);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21014' });
  });

  it('refuses a body that is not JSON with 21000', async () => {
    // Act
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/msg/v1/sms',
      token,
      body: '{"callback":',
      headers: { 'content-type': 'application/json' },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21000' });
  });

  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    // Act
    const unknown = await callGateway(sim, { method: 'POST', path: '/msg/v9/sms', token });
    const wrongMethod = await callGateway(sim, { method: 'GET', path: '/msg/v1/sms', token });

    // Assess
    expect(unknown).toMatchObject({ status: 404, body: { code: '21404' } });
    expect(wrongMethod).toMatchObject({ status: 405, body: { code: '21405' } });
  });
});

describe('scheduled sends', () => {
  const inMinutes = (minutes: number): string =>
    formatKst(sim.clock.now() + minutes * 60_000, 'YYYY-MM-DD HH:mm');

  it('answers {regDt, webReqId} and delivers at the scheduled time', async () => {
    // Prepare
    const recvInfoLst = recipients(2, 'resv');
    const body = smsBody(recvInfoLst, { resvYn: 'Y', resvReqDt: inMinutes(10) });

    // Act
    const answer = await send('/xms/sms/v1', body);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      code: '10000',
      data: {
        regDt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        webReqId: expect.any(String),
      },
    });
    const keys = recvInfoLst.map((recipient) => recipient.cliKey);
    expect(await statusOf(keys)).toMatchObject([{ status: 'REG' }, { status: 'REG' }]);
    await sim.advance(11 * 60_000 + REPORT_DELAY_MS);
    expect(await statusOf(keys)).toMatchObject([{ status: 'DONE' }, { status: 'DONE' }]);
  });

  it('accepts a time 29 days ahead', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { resvYn: 'Y', resvReqDt: inMinutes(29 * 24 * 60) }),
    );

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { webReqId: expect.any(String) } });
  });

  it('refuses a time 31 days ahead with 21030', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { resvYn: 'Y', resvReqDt: inMinutes(31 * 24 * 60) }),
    );

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21030' });
  });

  it('refuses a time in the past with 21030', async () => {
    // Act
    const answer = await send(
      '/msg/v1/sms',
      smsBody(recipients(1), { resvYn: 'Y', resvReqDt: inMinutes(-5) }),
    );

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '21030' });
  });
});

describe('duplicate cliKey', () => {
  it('answers 29024 for the repeated recipient only', async () => {
    // Prepare
    const [first, second] = recipients(2, 'dup');
    const fresh = recipients(1, 'fresh');
    if (!first || !second) throw new Error('two recipients expected');
    await send('/msg/v1/sms', smsBody([first, second]));

    // Act
    const answer = await send('/msg/v1/sms', smsBody([first, ...fresh]));

    // Assess
    expect(answer.status).toBe(200);
    const [repeated, accepted] = itemsOf(answer.body);
    expect(repeated).toMatchObject({ cliKey: first.cliKey, code: '29024' });
    expect(repeated).not.toHaveProperty('msgKey');
    expect(accepted).toMatchObject({
      cliKey: fresh[0]?.cliKey,
      code: '10000',
      msgKey: expect.any(String),
    });
  });
});

describe('status query', () => {
  it('goes from accepted to DONE with the report result', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'st');
    const cliKey = recvInfoLst[0]?.cliKey ?? '';
    await send('/msg/v1/sms', smsBody(recvInfoLst));
    const [before] = await statusOf([cliKey]);

    // Act
    await sim.advance(REPORT_DELAY_MS);
    const [after] = await statusOf([cliKey]);

    // Assess
    expect(['REG', 'ING']).toContain(before?.status);
    expect(after).toMatchObject({
      cliKey,
      status: 'DONE',
      msgKey: expect.any(String),
      resultCode: expect.stringMatching(/^\d{5}$/),
      rptDt: expect.any(String),
    });
  });

  it('answers INVALID_KEY for an unknown key or a wrong date, OVER_DATE beyond 90 days', async () => {
    // Prepare
    const recvInfoLst = recipients(1, 'st');
    const cliKey = recvInfoLst[0]?.cliKey ?? '';
    await send('/msg/v1/sms', smsBody(recvInfoLst));
    const yesterday = formatKst(sim.clock.now() - 86_400_000, 'YYYY-MM-DD');
    const longAgo = formatKst(sim.clock.now() - 91 * 86_400_000, 'YYYY-MM-DD');

    // Act
    const unknown = await statusOf(['never-sent']);
    const wrongDate = await statusOf([cliKey], yesterday);
    const overDate = await statusOf([cliKey], longAgo);

    // Assess
    expect(unknown).toEqual([{ cliKey: 'never-sent', status: 'INVALID_KEY' }]);
    expect(wrongDate).toMatchObject([{ cliKey, status: 'INVALID_KEY' }]);
    expect(overDate).toMatchObject([{ cliKey, status: 'OVER_DATE' }]);
  });
});

describe('TPS quota', () => {
  let small: Simulator;
  let smallToken: string;

  beforeAll(async () => {
    small = await startSimulator({
      apiKey: API_KEY,
      apiPassword: API_PASSWORD,
      clock: 'manual',
      tpsQuota: 5,
    });
    ({ token: smallToken } = await authenticate(small, {
      apiKey: API_KEY,
      apiPassword: API_PASSWORD,
    }));
  });

  afterAll(async () => {
    await small.close();
  });

  const sendSmall = (count: number) =>
    callGateway(small, {
      method: 'POST',
      path: '/msg/v1/sms',
      token: smallToken,
      body: smsBody(recipients(count, 'tps')),
    });

  it('refuses a call whose recipients exceed the quota of the second, and accepts again a second later', async () => {
    // Prepare
    const first = await sendSmall(3);

    // Act
    const over = await sendSmall(3);
    await small.advance(1_000);
    const nextSecond = await sendSmall(3);

    // Assess
    expect(first.status).toBe(200);
    expect(over).toMatchObject({ status: 400, body: { code: '29002' } });
    expect(nextSecond.status).toBe(200);
  });
});

describe('faults', () => {
  it('rateLimitBurst answers 29002 to the next N send calls only', async () => {
    // Prepare
    sim.setFaults({ rateLimitBurst: 2 });

    // Act
    const answers = [];
    for (let call = 0; call < 3; call++) {
      answers.push(await send('/msg/v1/sms', smsBody(recipients(1, 'burst'))));
    }

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 200]);
    expect(answers[0]?.body).toMatchObject({ code: '29002' });
  });

  it('POST /_sim/faults changes only the faults it names', async () => {
    // Act
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/_sim/faults',
      body: { rateLimitBurst: 1 },
    });
    const limited = await send('/msg/v1/sms', smsBody(recipients(1, 'burst')));

    // Assess
    expect(answer.body).toMatchObject({
      code: '10000',
      data: { rateLimitBurst: 1, errorRate: 0, timeoutRate: 0 },
    });
    expect(limited.body).toMatchObject({ code: '29002' });
  });

  it('errorRate 1 answers HTTP 503 with a retryable 49xxx code, but never on /_sim/', async () => {
    // Prepare
    sim.setFaults({ errorRate: 1 });

    try {
      // Act
      const answer = await send('/msg/v1/sms', smsBody(recipients(1, 'err')));
      const control = await callGateway(sim, { method: 'GET', path: '/_sim/state' });

      // Assess
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ code: expect.stringMatching(/^49\d{3}$/) });
      expect(control.status).toBe(200);
    } finally {
      sim.setFaults({ errorRate: 0 });
    }
  });

  it('timeoutRate 1 never answers, so the client timeout fires', async () => {
    // Prepare
    sim.setFaults({ timeoutRate: 1 });

    try {
      // Act
      const timedOut = callGateway(sim, {
        method: 'POST',
        path: '/msg/v1/sms',
        token,
        body: smsBody(recipients(1, 'slow')),
        headersTimeout: 300,
      });

      // Assess
      await expect(timedOut).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    } finally {
      sim.setFaults({ timeoutRate: 0 });
    }
  });

  it('counts accepted sends and recipients in the snapshot', async () => {
    // Prepare
    const before = sim.snapshot();

    // Act
    await send('/msg/v1/sms', smsBody(recipients(3, 'count')));

    // Assess
    const after = sim.snapshot();
    expect(after.sends).toBe(before.sends + 1);
    expect(after.recipientsAccepted).toBe(before.recipientsAccepted + 3);
  });
});
