import { describe, expect, it } from 'vitest';
import { OptOutListDataSchema, OptOutPeriodResponseSchema } from '../../gateway/schemas/opt-out.ts';
import {
  ClickUrlListDataSchema,
  UrlStatsByChannelDataSchema,
  UrlStatsByReceiverDataSchema,
  UrlStatsByUrlDataSchema,
  UrlStatsDayDataSchema,
  UrlStatsHourDataSchema,
} from '../../gateway/schemas/tracking-urls.ts';
import { formatKst } from '../../protocol/kst.ts';
import type { Simulator } from '../../simulator/server.ts';
import { simulatorsPerTest } from '../support/sim-started.ts';
import { asList, asObject, callGateway, type Json } from '../support/simulator-http.ts';

const CREDENTIALS = { apiKey: 'optout-key', apiPassword: 'optout-secret' };
const API_KEY_HEADER = { apiKey: CREDENTIALS.apiKey };
const DAY = 86_400_000;
const ARS = '0801234567';

const { start } = simulatorsPerTest(CREDENTIALS, { accessTokenTtlSeconds: 60 * 86_400 });

// ---- opt-out helpers ----

const registerOptOut = async (
  sim: Simulator,
  pairs: Array<{ phone: string; callback: string }>,
) => {
  const answer = await callGateway(sim, {
    method: 'POST',
    path: '/client/v1/080/ars080Reject',
    headers: API_KEY_HEADER,
    body: pairs,
  });
  return { status: answer.status, body: asObject(answer.body) };
};

/** Any opt-out call with a raw body, answer unchecked. */
const optOutCall = async (
  sim: Simulator,
  method: 'POST' | 'DELETE',
  path: string,
  body?: unknown,
) => {
  const answer = await callGateway(sim, { method, path, headers: API_KEY_HEADER, body });
  return { status: answer.status, body: asObject(answer.body) };
};

const deleteOptOut = async (sim: Simulator, phone: string, callback: string) => {
  const answer = await callGateway(sim, {
    method: 'DELETE',
    path: '/client/v1/080/ars080RejectDelete',
    headers: API_KEY_HEADER,
    body: { phone, callback },
  });
  return { status: answer.status, body: asObject(answer.body) };
};

const listOptOut = async (sim: Simulator, query: string) => {
  const answer = await callGateway(sim, {
    method: 'POST',
    path: `/client/v1.2/080/ars080RejectList?${query}`,
    headers: API_KEY_HEADER,
  });
  expect(answer.status).toBe(200);
  const data = asObject(asObject(answer.body).data);
  expect(OptOutListDataSchema.safeParse(data).success).toBe(true);
  return { data, rejectList: asList(data.rejectList) };
};

const periodList = async (sim: Simulator, params: Record<string, string>) => {
  const answer = await callGateway(sim, {
    method: 'GET',
    path: `/client/v1.1/080/ars080BlockNumberList?${new URLSearchParams(params)}`,
    headers: API_KEY_HEADER,
  });
  return { status: answer.status, body: asObject(answer.body) };
};

// ---- tracking URL helpers ----

const kstDateTime = (instant: number) => formatKst(instant, 'YYYY-MM-DD HH:mm:ss');
const kstDate = (instant: number) => formatKst(instant, 'YYYY-MM-DD');

const gateway = async (
  sim: Simulator,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: Json,
) => {
  const answer = await callGateway(sim, { method, path, token, ...(body ? { body } : {}) });
  return { status: answer.status, body: asObject(answer.body) };
};

const createUrl = async (sim: Simulator, token: string, overrides: Json = {}) =>
  gateway(sim, token, 'POST', '/msg/v1/createClickUrl', {
    urlTitle: 'Spring sale',
    orgUrl: 'https://shop.example.com/sale',
    expDt: kstDateTime(sim.clock.now() + 30 * DAY),
    ...overrides,
  });

const listUrls = async (sim: Simulator, token: string, page: number) => {
  const answer = await gateway(sim, token, 'GET', `/msg/v1/getClickUrl?page=${page}`);
  expect(answer.status).toBe(200);
  expect(ClickUrlListDataSchema.safeParse(answer.body.data).success).toBe(true);
  return asList(answer.body.data);
};

describe('simulator opt-out list', () => {
  it('registers, refuses a repeat, deletes into delYn Y and keeps deleted entries listed', async () => {
    // Prepare
    const { sim } = await start();
    const registered = await registerOptOut(sim, [
      { phone: '01011110000', callback: ARS },
      { phone: '01022220000', callback: ARS },
    ]);

    // Act
    const repeat = await registerOptOut(sim, [
      { phone: '01033330000', callback: ARS },
      { phone: '01011110000', callback: ARS },
    ]);
    const otherSender = await registerOptOut(sim, [
      { phone: '01011110000', callback: '0215880000' },
    ]);
    await sim.advance(60_000);
    const deleted = await deleteOptOut(sim, '01011110000', ARS);
    const deletedAgain = await deleteOptOut(sim, '01011110000', ARS);
    const neverRegistered = await deleteOptOut(sim, '01099990000', ARS);
    const all = await listOptOut(sim, 'listCnt=10&pageIdx=1');
    const onePhone = await listOptOut(sim, 'phone=01011110000&listCnt=10&pageIdx=1');

    // Assess
    expect(registered.body).toEqual({ code: '10000', message: 'success' });
    expect(repeat).toMatchObject({ status: 400, body: { code: '21701' } });
    expect(all.rejectList.some((entry) => entry.phone === '01033330000')).toBe(false);
    expect(otherSender.body.code).toBe('10000');
    expect(deleted.body.code).toBe('10000');
    expect(deletedAgain.body.code).toBe('10000');
    expect(neverRegistered).toMatchObject({ status: 400, body: { code: '21702' } });
    expect(all.data).toMatchObject({ listCnt: 10, pageIdx: 1, totalCnt: 3 });
    expect(onePhone.data.totalCnt).toBe(2);
    const gone = onePhone.rejectList.find((entry) => entry.callback === ARS);
    const kept = onePhone.rejectList.find((entry) => entry.callback === '0215880000');
    expect(gone).toMatchObject({ delYn: 'Y', delDt: kstDateTime(sim.clock.now()) });
    expect(kept).toMatchObject({ delYn: 'N', delDt: null });
  });

  it('deletes every sender of a number with callback *, and allows registering a deleted pair again', async () => {
    // Prepare
    const { sim } = await start();
    await registerOptOut(sim, [
      { phone: '01011110000', callback: ARS },
      { phone: '01011110000', callback: '0215880000' },
      { phone: '01022220000', callback: ARS },
    ]);

    // Act
    const wildcard = await deleteOptOut(sim, '01011110000', '*');
    const again = await registerOptOut(sim, [{ phone: '01011110000', callback: ARS }]);
    const list = await listOptOut(sim, 'phone=01011110000&listCnt=10&pageIdx=1');

    // Assess
    expect(wildcard.body.code).toBe('10000');
    expect(again.body.code).toBe('10000');
    expect(list.rejectList.map((entry) => [entry.callback, entry.delYn])).toEqual([
      [ARS, 'Y'],
      ['0215880000', 'Y'],
      [ARS, 'N'],
    ]);
  });

  it('pages the list with listCnt and pageIdx', async () => {
    // Prepare
    const { sim } = await start();
    await registerOptOut(
      sim,
      Array.from({ length: 7 }, (_, i) => ({ phone: `0101000000${i}`, callback: ARS })),
    );

    // Act
    const first = await listOptOut(sim, 'listCnt=3&pageIdx=1');
    const third = await listOptOut(sim, 'listCnt=3&pageIdx=3');
    const missing = await callGateway(sim, {
      method: 'POST',
      path: '/client/v1.2/080/ars080RejectList?listCnt=3',
      headers: API_KEY_HEADER,
    });

    // Assess
    expect(first.rejectList.map((entry) => entry.phone)).toEqual([
      '01010000000',
      '01010000001',
      '01010000002',
    ]);
    expect(third.rejectList.map((entry) => entry.phone)).toEqual(['01010000006']);
    expect(third.data.totalCnt).toBe(7);
    expect(missing.status).toBe(400);
    expect(asObject(missing.body).code).toBe('21001');
  });

  it('lists blocked (inactive) and removed (active) numbers of an 080 number by period', async () => {
    // Prepare
    const { sim } = await start();
    const before = formatKst(sim.clock.now() - 1_000, 'YYYYMMDDHHmmss');
    await registerOptOut(sim, [
      { phone: '01011110000', callback: ARS },
      { phone: '01022220000', callback: ARS },
      { phone: '01033330000', callback: '0809999999' },
    ]);
    await sim.advance(3_600_000);
    await deleteOptOut(sim, '01022220000', ARS);
    const now = formatKst(sim.clock.now(), 'YYYYMMDDHHmmss');

    // Act
    const whole = await periodList(sim, { '080ArsNumber': ARS, fromTime: before, toTime: now });
    const paged = await periodList(sim, {
      '080ArsNumber': ARS,
      fromTime: before,
      toTime: now,
      page: '2',
      pageSize: '1',
    });
    const tooEarly = await periodList(sim, {
      '080ArsNumber': ARS,
      fromTime: '20000101000000',
      toTime: before,
    });
    const tooBig = await periodList(sim, {
      '080ArsNumber': ARS,
      fromTime: before,
      toTime: now,
      pageSize: '301',
    });
    const noKey = await callGateway(sim, {
      method: 'GET',
      path: `/client/v1.1/080/ars080BlockNumberList?080ArsNumber=${ARS}&fromTime=${before}&toTime=${now}`,
    });

    // Assess
    expect(OptOutPeriodResponseSchema.safeParse(whole.body).success).toBe(true);
    expect(asList(whole.body.data).map((item) => [item.blockNumber, item.status])).toEqual([
      ['01011110000', 'inactive'],
      ['01022220000', 'active'],
    ]);
    expect(whole.body.meta).toEqual({
      totalItems: 2,
      totalPages: 1,
      '080ArsNumber': ARS,
      fromTime: before,
      toTime: now,
      pageSize: 10,
      page: 1,
    });
    expect(asList(paged.body.data).map((item) => item.blockNumber)).toEqual(['01022220000']);
    expect(asObject(paged.body.meta)).toMatchObject({ totalPages: 2, page: 2, pageSize: 1 });
    expect(tooEarly.body.data).toEqual([]);
    expect(tooBig).toMatchObject({ status: 400, body: { code: '21001' } });
    expect(noKey.status).toBe(401);
  });

  it('refuses opt-out requests that break spec 01 §4.15 with 21001, on its own rules', async () => {
    // Prepare
    const { sim } = await start();
    const long = '0'.repeat(21);
    const pair = { phone: '01011110000', callback: ARS };
    const registers: Array<[string, unknown]> = [
      ['empty list', []],
      ['an object, not a list', pair],
      ['phone over 20', [{ phone: long, callback: ARS }]],
      ['phone with +', [{ phone: '+821011110000', callback: ARS }]],
      ['callback not a number', [{ phone: '01011110000', callback: 'abc' }]],
      ['callback over 20', [{ phone: '01011110000', callback: long }]],
      ['callback missing', [{ phone: '01011110000' }]],
      ['pair repeated in one call', [pair, pair]],
    ];
    const period = { '080ArsNumber': ARS, fromTime: '20250101000000', toTime: '20250102000000' };
    const periods: Array<[string, Record<string, string>]> = [
      ['080ArsNumber missing', { fromTime: period.fromTime, toTime: period.toTime }],
      ['080ArsNumber over 20', { ...period, '080ArsNumber': long }],
      ['fromTime with dashes', { ...period, fromTime: '2025-01-01 00:00:00' }],
      ['toTime not a real date', { ...period, toTime: '20250230000000' }],
      ['fromTime after toTime', { ...period, fromTime: '20250103000000' }],
      ['pageSize 0', { ...period, pageSize: '0' }],
      ['page 0', { ...period, page: '0' }],
    ];

    // Act
    const registerAnswers = await Promise.all(
      registers.map(async ([label, body]) => ({
        label,
        ...(await optOutCall(sim, 'POST', '/client/v1/080/ars080Reject', body)),
      })),
    );
    const periodAnswers = await Promise.all(
      periods.map(async ([label, params]) => ({ label, ...(await periodList(sim, params)) })),
    );
    const listAnswers = await Promise.all(
      [
        'listCnt=0&pageIdx=1',
        'listCnt=10&pageIdx=abc',
        'listCnt=10',
        'phone=%2B8210&listCnt=1&pageIdx=1',
      ].map(async (query) => ({
        label: query,
        ...(await optOutCall(sim, 'POST', `/client/v1.2/080/ars080RejectList?${query}`)),
      })),
    );
    const deleteNoPhone = await optOutCall(sim, 'DELETE', '/client/v1/080/ars080RejectDelete', {
      callback: ARS,
    });
    const allSenders = await registerOptOut(sim, [{ phone: '01011110000', callback: '*' }]);
    const widest = await periodList(sim, { ...period, pageSize: '300' });

    // Assess
    for (const answer of [...registerAnswers, ...periodAnswers, ...listAnswers]) {
      expect(answer, answer.label).toMatchObject({ status: 400, body: { code: '21001' } });
    }
    expect(deleteNoPhone.body.code).toBe('21001');
    expect(allSenders.body.code).toBe('10000');
    expect(widest.body.code).toBe('10000');
  });
});

describe('simulator tracking URLs', () => {
  it('creates URLs, lists 100 per page newest first, and refuses a non-http(s) orgUrl or a past expDt', async () => {
    // Prepare
    const { sim, token } = await start();
    const created: string[] = [];
    for (let i = 0; i < 150; i++) {
      const answer = await createUrl(sim, token, { urlTitle: `u${i}` });
      expect(typeof answer.body.data).toBe('number');
      created.push(String(answer.body.data));
    }

    // Act
    const page1 = await listUrls(sim, token, 1);
    const page2 = await listUrls(sim, token, 2);
    const ftp = await createUrl(sim, token, { orgUrl: 'ftp://files.example.com' });
    const past = await createUrl(sim, token, { expDt: kstDateTime(sim.clock.now() - 1_000) });

    // Assess
    expect(page1).toHaveLength(100);
    expect(page2).toHaveLength(50);
    expect(page1[0]).toMatchObject({ no: 1, title: 'u149', urlId: created[149] });
    expect(page2[49]).toMatchObject({ no: 150, title: 'u0', urlId: created[0] });
    expect(Object.keys(page1[0] ?? {}).sort()).toEqual([
      'expDt',
      'no',
      'orgUrl',
      'regDt',
      'title',
      'urlId',
    ]);
    expect(ftp).toMatchObject({ status: 400, body: { code: '21801' } });
    expect(past).toMatchObject({ status: 400, body: { code: '21804' } });
  });

  it('turns a URL inactive after expDt but keeps listing it', async () => {
    // Prepare
    const { sim, token } = await start();
    const created = await createUrl(sim, token, { expDt: kstDateTime(sim.clock.now() + DAY) });
    const urlId = String(created.body.data);

    // Act
    const active = await callGateway(sim, { method: 'GET', path: `/_sim/click/${urlId}` });
    await sim.advance(DAY);
    const inactive = await callGateway(sim, { method: 'GET', path: `/_sim/click/${urlId}` });
    const listed = await listUrls(sim, token, 1);

    // Assess
    expect(active.status).toBe(302);
    expect(active.headers.location).toBe('https://shop.example.com/sale');
    expect(inactive.status).toBe(410);
    expect(listed.map((url) => url.urlId)).toEqual([urlId]);
  });

  it('excludes a deleted URL from the list, refuses deleting it again, and still answers its stats', async () => {
    // Prepare
    const { sim, token } = await start();
    const kept = String((await createUrl(sim, token, { urlTitle: 'kept' })).body.data);
    const gone = String((await createUrl(sim, token, { urlTitle: 'gone' })).body.data);
    const today = kstDate(sim.clock.now());

    // Act
    const deleted = await gateway(sim, token, 'POST', `/msg/v1/deleteClickUrl?urlId=${gone}`);
    const again = await gateway(sim, token, 'POST', `/msg/v1/deleteClickUrl?urlId=${gone}`);
    const listed = await listUrls(sim, token, 1);
    const stats = await gateway(sim, token, 'POST', '/msg/v1/stat/url/channel', {
      from: today,
      to: today,
      urlId: gone,
    });
    const redirect = await callGateway(sim, { method: 'GET', path: `/_sim/click/${gone}` });

    // Assess
    expect(deleted.body.code).toBe('10000');
    expect(again).toMatchObject({ status: 400, body: { code: '21803' } });
    expect(listed.map((url) => url.urlId)).toEqual([kept]);
    expect(stats.body.code).toBe('10000');
    expect(redirect.status).toBe(302);
  });

  it('enforces the 31-day and 15-day statistics ranges with 21802', async () => {
    // Prepare
    const { sim, token } = await start();
    const urlId = String((await createUrl(sim, token)).body.data);
    const ask = (path: string, from: string, to: string) =>
      gateway(sim, token, 'POST', path, { from, to, urlId });

    // Act
    const channel31 = await ask('/msg/v1/stat/url/channel', '2025-01-01', '2025-01-31');
    const channel32 = await ask('/msg/v1/stat/url/channel', '2025-01-01', '2025-02-01');
    const sendDay15 = await ask('/msg/v1/stat/url/sendDay', '2025-01-01', '2025-01-15');
    const sendDay16 = await ask('/msg/v1/stat/url/sendDay', '2025-01-01', '2025-01-16');
    const clickHour16 = await ask('/msg/v1/stat/url/clickHour', '2025-01-01', '2025-01-16');
    const reversed = await ask('/msg/v1/stat/url/channel', '2025-01-02', '2025-01-01');
    const unknownUrl = await gateway(sim, token, 'POST', '/msg/v1/stat/url/channel', {
      from: '2025-01-01',
      to: '2025-01-02',
      urlId: '999999',
    });

    // Assess
    expect(channel31.body.code).toBe('10000');
    expect(channel32).toMatchObject({ status: 400, body: { code: '21802' } });
    expect(sendDay15.body.code).toBe('10000');
    expect(sendDay16.body.code).toBe('21802');
    expect(clickHour16.body.code).toBe('21802');
    expect(reversed.body.code).toBe('21802');
    expect(unknownUrl.body.code).toBe('21803');
  });

  it('refuses tracking-URL requests that break spec 01 §4.16 and §8, on its own rules', async () => {
    // Prepare
    const { sim, token } = await start();
    const urlId = String((await createUrl(sim, token)).body.data);
    const stats = (path: string, body: Json) =>
      gateway(sim, token, 'POST', `/msg/v1/stat/url/${path}`, body);
    const span = (to: string) => ({ from: '2025-01-01', to, urlId });
    const createCases: Array<[string, Json, string]> = [
      ['no title', { urlTitle: undefined }, '21001'],
      ['empty title', { urlTitle: '' }, '21001'],
      ['no orgUrl', { orgUrl: undefined }, '21801'],
      ['bare host', { orgUrl: 'www.example.com' }, '21801'],
      ['ISO expDt', { expDt: '2030-01-01T00:00:00' }, '21001'],
      ['date-only expDt', { expDt: '2030-01-01' }, '21001'],
      ['February 30', { expDt: '2030-02-30 00:00:00' }, '21001'],
    ];

    // Act
    const creates = await Promise.all(
      createCases.map(([, override]) => createUrl(sim, token, override)),
    );
    const spaceInUrl = await createUrl(sim, token, { orgUrl: 'https://shop.example.com/a b' });
    const lists = await Promise.all(
      ['', '?page=0', '?page=abc', '?page=1.5'].map((query) =>
        gateway(sim, token, 'GET', `/msg/v1/getClickUrl${query}`),
      ),
    );
    const deleteNoId = await gateway(sim, token, 'POST', '/msg/v1/deleteClickUrl');
    const ranges = {
      msg32: await stats('msg', span('2025-02-01')),
      receiver32: await stats('receiver', { ...span('2025-02-01'), page: 1 }),
      sendHour16: await stats('sendHour', span('2025-01-16')),
      clickDay16: await stats('clickDay', span('2025-01-16')),
    };
    const fifteen = await Promise.all(
      ['sendDay', 'sendHour', 'clickDay', 'clickHour'].map((path) =>
        stats(path, span('2025-01-15')),
      ),
    );
    const bodies = {
      slashDate: await stats('channel', { ...span('2025-01-02'), from: '2025/01/01' }),
      noUrlId: await stats('channel', { from: '2025-01-01', to: '2025-01-02' }),
      pageAsText: await stats('receiver', { ...span('2025-01-02'), page: '1' }),
      pageZero: await stats('receiver', { ...span('2025-01-02'), page: 0 }),
      plusPhone: await stats('receiver', { ...span('2025-01-02'), page: 1, phone: '+8210' }),
      unknownField: await stats('sendDay', { ...span('2025-01-02'), ch: 'SMS' }),
    };

    // Assess
    creates.forEach((answer, i) => {
      expect(answer, createCases[i]?.[0]).toMatchObject({ body: { code: createCases[i]?.[2] } });
    });
    // The spec asks only that orgUrl start with http:// or https://.
    expect(spaceInUrl.body.code).toBe('10000');
    for (const answer of lists) expect(answer.body.code).toBe('21001');
    expect(deleteNoId.body.code).toBe('21001');
    for (const [label, answer] of Object.entries(ranges)) {
      expect(answer, label).toMatchObject({ status: 400, body: { code: '21802' } });
    }
    for (const answer of fifteen) expect(answer.body.code).toBe('10000');
    for (const [label, answer] of Object.entries(bodies)) {
      expect(answer, label).toMatchObject({ status: 400, body: { code: '21001' } });
    }
  });

  it('answers every statistic with deterministic numbers in the spec field types', async () => {
    // Prepare
    const { sim, token } = await start();
    const registeredOn = kstDate(sim.clock.now());
    const urlId = String((await createUrl(sim, token)).body.data);
    await sim.advance(10 * DAY);
    const range = { from: registeredOn, to: kstDate(sim.clock.now()) };
    const ask = (path: string, extra: Json = {}) =>
      gateway(sim, token, 'POST', `/msg/v1/stat/url/${path}`, { ...range, urlId, ...extra });

    // Act
    const byUrl = await gateway(sim, token, 'POST', '/msg/v1/stat/url/msg', { ...range, urlId });
    const byUrlAgain = await gateway(sim, token, 'POST', '/msg/v1/stat/url/msg', {
      ...range,
      urlId,
    });
    const byTitle = await gateway(sim, token, 'POST', '/msg/v1/stat/url/msg', {
      ...range,
      title: 'Spring',
    });
    const noFilter = await gateway(sim, token, 'POST', '/msg/v1/stat/url/msg', range);
    const channel = await ask('channel');
    const receiver = await ask('receiver', { page: 1 });
    const sendDay = await ask('sendDay');
    const sendHour = await ask('sendHour');
    const clickDay = await ask('clickDay');
    const clickHour = await ask('clickHour');

    // Assess
    expect(UrlStatsByUrlDataSchema.safeParse(byUrl.body.data).success).toBe(true);
    const [row] = asList(byUrl.body.data);
    for (const field of [
      'urlId',
      'title',
      'orgUrl',
      'regDt',
      'totCnt',
      'conCnt',
      'clickThroughRate',
    ]) {
      expect(typeof row?.[field]).toBe('string');
    }
    expect(Number(row?.totCnt)).toBeGreaterThan(0);
    expect(byUrlAgain.body).toEqual(byUrl.body);
    expect(asList(byTitle.body.data).map((item) => item.urlId)).toEqual([urlId]);
    expect(noFilter).toMatchObject({ status: 400, body: { code: '21001' } });

    expect(UrlStatsByChannelDataSchema.safeParse(channel.body.data).success).toBe(true);
    const channels = asList(channel.body.data);
    expect(channels.length).toBeGreaterThan(0);
    expect(channels.reduce((sum, item) => sum + Number(item.totCnt), 0)).toBe(Number(row?.totCnt));

    expect(UrlStatsByReceiverDataSchema.safeParse(receiver.body.data).success).toBe(true);
    const receivers = asObject(receiver.body.data);
    expect(Number.isInteger(receivers.totCnt)).toBe(true);
    expect(receivers.totCnt).toBe(Number(row?.conCnt));
    const recvlst = asList(receivers.recvlst);
    expect(recvlst.length).toBe(Math.min(100, Number(receivers.totCnt)));
    expect(recvlst[0]).toMatchObject({ urlId, isMobile: expect.stringMatching(/^[YN]$/) });
    const phone = String(recvlst[0]?.phone);
    const onePhone = asObject((await ask('receiver', { page: 1, phone })).body.data);
    expect(asList(onePhone.recvlst).every((item) => item.phone === phone)).toBe(true);

    expect(UrlStatsDayDataSchema.safeParse(sendDay.body.data).success).toBe(true);
    expect(UrlStatsHourDataSchema.safeParse(sendHour.body.data).success).toBe(true);
    const sum = (rows: Json[]) => rows.reduce((total, item) => total + Number(item.sumCnt), 0);
    expect(sum(asList(sendDay.body.data))).toBe(Number(row?.totCnt));
    expect(sum(asList(sendHour.body.data))).toBe(Number(row?.totCnt));
    expect(sum(asList(clickDay.body.data))).toBe(Number(row?.conCnt));
    expect(sum(asList(clickHour.body.data))).toBe(Number(row?.conCnt));
    expect(asList(clickHour.body.data)[0]?.hour).toMatch(/^\d{2}$/);
  });
});
