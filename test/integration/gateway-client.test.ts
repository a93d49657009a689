import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  brandFreeBody,
  brandTemplateBody,
  messengerNoticeBody,
  mmsBody,
  pushBody,
  rcsBody,
  rcsReplyBody,
  smsBody,
} from '../../fixtures/send-bodies.ts';
import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import type { TokenProvider } from '../../gateway/bearer/token-provider.ts';
import {
  GatewayClient,
  GatewayRequestInvalidError,
  recipientResultFamily,
  type SendOutcome,
} from '../../gateway/client.ts';
import {
  GatewayAuthenticationError,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayRetryableError,
  GatewayTransportError,
} from '../../gateway/errors.ts';
import { GatewayMoFileClient } from '../../gateway/mo-files.ts';
import { MoItemSchema } from '../../gateway/schemas/mo.ts';
import { ReportItemSchema } from '../../gateway/schemas/report-items.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';

const credentials = { apiKey: 'test-key', apiPassword: '비밀-password-1' };

let sim: Simulator;
let auth: GatewayAuthApi;
let tokens: SessionTokenProvider;
let client: GatewayClient;

const accepted = (outcome: SendOutcome<{ code: string; msgKey?: string | null }>) => {
  if (outcome.kind !== 'immediate')
    throw new Error(`expected an immediate send, got ${outcome.kind}`);
  return outcome.results;
};

beforeAll(async () => {
  sim = await startSimulator({
    ...credentials,
    clock: 'manual',
    reportDelayMs: 1_000,
    failureRate: 0,
  });
  auth = new GatewayAuthApi({ hosts: sim.hosts });
  tokens = new SessionTokenProvider({
    auth,
    credentials: () => credentials,
    now: () => sim.clock.now(),
  });
  client = new GatewayClient({
    hosts: sim.hosts,
    tokens,
    apiKey: credentials.apiKey,
    timeoutMs: 2_000,
  });
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.setFaults({ errorRate: 0, timeoutRate: 0, latencyMs: 0, rateLimitBurst: 0 });
});

describe('authentication', () => {
  it('issues an access and a refresh token with a fresh randomStr, and refreshes', async () => {
    // Act
    const issued = await auth.issueToken(credentials);
    const refreshed = await auth.refreshAccessToken(issued.refreshToken);

    // Assess
    expect(issued.token.split('.')).toHaveLength(3);
    expect(issued.refreshToken).not.toBe(issued.token);
    expect(refreshed.token).not.toBe(issued.token);
  });

  it('answers a wrong password with the authentication family (20002)', async () => {
    const error = await auth
      .issueToken({ ...credentials, apiPassword: 'wrong' })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayAuthenticationError);
    expect(error).toMatchObject({ code: '20002', endpoint: 'POST /auth/v1/{randomStr}' });
  });

  it('answers an unknown API key with 20000', async () => {
    await expect(auth.issueToken({ ...credentials, apiKey: 'nobody' })).rejects.toMatchObject({
      name: 'GatewayAuthenticationError',
      code: '20000',
    });
  });
});

describe('sending, every endpoint family', () => {
  it.each([
    ['SMS on the send host', () => client.sendSms(smsBody(3)), 3],
    ['SMS on the legacy /msg path', () => client.sendSms(smsBody(1), { legacyPath: true }), 1],
    ['MMS as JSON', () => client.sendMms(mmsBody()), 2],
    ['MMS as JSON on the legacy path', () => client.sendMms(mmsBody(), { legacyPath: true }), 2],
    ['RCS on /msg/v1/rcs', () => client.sendRcs('rcsV1', rcsBody()), 2],
    ['RCS on /msg/v1.1/rcs', () => client.sendRcs('rcsV11', rcsBody()), 2],
    ['integrated RCS on the send host', () => client.sendRcs('rcsIntegrated', rcsBody()), 2],
    ['push', () => client.sendPush(pushBody()), 1],
    ['a messenger notification', () => client.sendMessengerNotice(messengerNoticeBody()), 1],
    ['a brand message, template type', () => client.sendBrandTemplate(brandTemplateBody()), 1],
    ['a brand message, free type', () => client.sendBrandFree(brandFreeBody()), 1],
  ])('sends %s and reads one accepted result per recipient', async (_, send, count) => {
    // Act
    const results = accepted(await send());

    // Assess
    expect(results).toHaveLength(count);
    for (const result of results) {
      expect(result.code).toBe('10000');
      expect(result.msgKey).toEqual(expect.any(String));
      expect(recipientResultFamily(result)).toBe('success');
    }
  });

  it('sends MMS with files as multipart/form-data', async () => {
    const files = [
      { name: 'a.jpg', contentType: 'image/jpeg', data: new Uint8Array(2048).fill(1) },
      { name: 'b.png', contentType: 'image/png', data: new Uint8Array(1024).fill(2) },
    ];
    const { fileIdLst: _unused, ...body } = { ...mmsBody(), fileIdLst: undefined };

    const results = accepted(await client.sendMmsWithFiles(body, files));

    expect(results.map((r) => r.code)).toEqual(['10000', '10000']);
  });

  it('sends a two-way RCS reply and reads replyId and chatbotId', async () => {
    const body = rcsReplyBody();

    const outcome = await client.sendRcsReply(body);

    if (outcome.kind !== 'immediate') throw new Error('expected an immediate answer');
    expect(outcome.results[0]).toMatchObject({
      cliKey: body.cliKey,
      replyId: 'reply-1',
      chatbotId: '0212345678',
      code: '10000',
    });
  });

  it('answers a scheduled send with {regDt, webReqId} and no per-recipient list', async () => {
    const resvReqDt = formatKst(sim.clock.now() + 2 * 86_400_000, 'YYYY-MM-DD HH:mm');

    const outcome = await client.sendSms({ ...smsBody(2), resvYn: 'Y', resvReqDt });

    expect(outcome).toMatchObject({
      kind: 'scheduled',
      webReqId: expect.any(String),
      regDt: expect.any(String),
    });
  });

  it('reports a repeated cliKey as a duplicate for that recipient only', async () => {
    const first = smsBody(1);
    await client.sendSms(first);
    const again = { ...smsBody(1), recvInfoLst: [...first.recvInfoLst, ...smsBody(1).recvInfoLst] };

    const results = accepted(await client.sendSms(again));

    expect(results.map((r) => recipientResultFamily(r))).toEqual(['duplicate', 'success']);
  });

  it('refuses an invalid request before any call', async () => {
    const before = sim.snapshot().tokensIssued;
    const body = { ...smsBody(1), msg: '가'.repeat(46) };

    const error = await client.sendSms(body).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRequestInvalidError);
    expect((error as GatewayRequestInvalidError).issues[0]?.path).toEqual(['msg']);
    expect(sim.snapshot().tokensIssued).toBe(before);
  });
});

describe('token handling', () => {
  it('re-authenticates once when the token is revoked, and the call succeeds', async () => {
    await client.sendSms(smsBody(1));
    const before = sim.snapshot().authentications;
    sim.revokeTokens();

    const results = accepted(await client.sendSms(smsBody(1)));

    expect(results[0]?.code).toBe('10000');
    expect(sim.snapshot().authentications).toBe(before + 1);
  });

  it('renews the access token with the refresh token before it expires', async () => {
    await client.sendSms(smsBody(1));
    const before = sim.snapshot();
    await sim.advance(55 * 60_000); // 5 minutes before the 1-hour expiry

    await client.sendSms(smsBody(1));

    const after = sim.snapshot();
    expect(after.refreshes).toBe(before.refreshes + 1);
    expect(after.authentications).toBe(before.authentications);
  });

  it('fails loudly after one retry when the fresh token is refused too', async () => {
    let handedOut = 0;
    const invalidated: string[] = [];
    const broken: TokenProvider = {
      getToken: async () => `not-a-token-${++handedOut}`,
      invalidate: async (token) => {
        invalidated.push(token);
      },
    };
    const brokenClient = new GatewayClient({ hosts: sim.hosts, tokens: broken });

    const error = await brokenClient.sendSms(smsBody(1)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayAuthenticationError);
    expect(handedOut).toBe(2);
    expect(invalidated).toEqual(['not-a-token-1', 'not-a-token-2']);
  });
});

describe('error classes', () => {
  it('maps 29002 to GatewayRateLimitedError', async () => {
    sim.setFaults({ rateLimitBurst: 1 });

    const error = await client.sendSms(smsBody(1)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRateLimitedError);
    expect(error).toMatchObject({ code: '29002', retryable: true, endpoint: 'POST /xms/sms/v1' });
  });

  it('maps HTTP 5xx to GatewayRetryableError', async () => {
    sim.setFaults({ errorRate: 1 });

    const error = await client.pollReports().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRetryableError);
    expect(error).toMatchObject({ httpStatus: 503, retryable: true });
  });

  it('maps a call that never answers to a timeout', async () => {
    sim.setFaults({ timeoutRate: 1 });
    const impatient = new GatewayClient({ hosts: sim.hosts, tokens, timeoutMs: 300 });

    const error = await impatient.listMo().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ kind: 'timeout', code: 'TIMEOUT' });
  });

  it('maps a refused connection to a connection failure', async () => {
    const nowhere = {
      api: 'http://127.0.0.1:9',
      send: 'http://127.0.0.1:9',
      mnt: 'http://127.0.0.1:9',
    };
    const offline = new GatewayClient({
      hosts: nowhere,
      tokens: { getToken: async () => 't', invalidate: async () => {} },
    });

    const error = await offline.listMo().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ kind: 'connection', retryable: true });
  });

  it('maps a request the gateway rejects (11 recipients sent raw) to GatewayRejectedError', async () => {
    // The client refuses 11 recipients itself; this proves the gateway's 21012 maps correctly too.
    const raw = new GatewayClient({ hosts: sim.hosts, tokens });
    const body = smsBody(11);
    const error = await raw.sendSms(body).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRequestInvalidError);
    await expect(
      fetch(`${sim.hosts.send}/xms/sms/v1`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await tokens.getToken()}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      }).then((r) => r.json()),
    ).resolves.toMatchObject({ code: '21012' });
    expect(new GatewayRejectedError({ code: '21012', message: 'm', endpoint: 'e' }).retryable).toBe(
      false,
    );
  });
});

describe('reports and status', () => {
  it('polls the reports of a send, confirms them, and sees the status DONE', async () => {
    // Prepare: drain anything earlier tests left, then send.
    await sim.advance(60_000);
    for (
      let page = await client.pollReports();
      page !== null && page.rptCnt > 0;
      page = await client.pollReports()
    ) {
      await client.confirmReports([page.rptKey]);
    }
    const body = smsBody(2);
    const results = accepted(await client.sendSms(body));
    const today = formatKst(sim.clock.now(), 'YYYY-MM-DD');
    const beforeReport = await client.queryStatus(
      body.recvInfoLst.map((r) => ({ cliKey: r.cliKey, reqDt: today })),
    );
    await sim.advance(11_000);

    // Act
    const page = await client.pollReports();
    if (page === null) throw new Error('expected a report page');
    await client.confirmReports([page.rptKey]);
    const status = await client.queryStatus(
      body.recvInfoLst.map((r) => ({ cliKey: r.cliKey, reqDt: today })),
    );

    // Assess
    expect(beforeReport.cliKeyLst.map((item) => item.status)).not.toContain('DONE');
    // The client hands polled items over raw; the receivers read them one by one.
    const reports = page.rptLst.map((r) => ReportItemSchema.parse(r));
    expect(reports.map((r) => r.msgKey).sort()).toEqual(results.map((r) => r.msgKey).sort());
    expect(reports.every((r) => r.resultCode === '10000')).toBe(true);
    expect(status.cliKeyLst.map((item) => item.status)).toEqual(['DONE', 'DONE']);
  });

  it('answers an unknown cliKey with INVALID_KEY', async () => {
    const status = await client.queryStatus([
      { cliKey: 'never-sent', reqDt: formatKst(sim.clock.now(), 'YYYY-MM-DD') },
    ]);

    expect(status.cliKeyLst[0]?.status).toBe('INVALID_KEY');
  });
});

describe('inbound messages', () => {
  /** Injects one MMS MO with `attachment` from `moCallback`, and answers it as `listMo` lists it. */
  const injectMms = async (
    moCallback: string,
    moMsg: string,
    attachment: { name: string; contentType: string; data: Buffer },
  ) => {
    sim.injectMo([
      {
        moType: 'MMSMO',
        moCallback,
        moNumber: '0212345678',
        moMsg,
        attachments: [{ ...attachment, data: attachment.data.toString('base64') }],
      },
    ]);
    const mms = (await client.listMo())
      .map((item) => MoItemSchema.parse(item))
      .find((item) => item.moType === 'MMSMO' && item.moCallback === moCallback);
    if (!mms) throw new Error('expected the injected MMS');
    return mms;
  };

  it('lists injected MO messages and streams an attachment from the file endpoint', async () => {
    const data = Buffer.from('attachment-bytes-'.repeat(100));
    const mms = await injectMms('01055556666', '사진 보냅니다', {
      name: 'photo.jpg',
      contentType: 'image/jpeg',
      data,
    });
    const file = await client.downloadMoFile(mms.moKey);

    expect(mms.moCallback).toBe('01055556666');
    expect(file.contentType).toMatch(/^image\/jpeg/);
    expect((await buffer(file.body)).equals(data)).toBe(true);
  });

  it('answers an unknown moKey with a gateway error', async () => {
    await expect(client.downloadMoFile('no-such-key')).rejects.toBeInstanceOf(GatewayRejectedError);
  });

  it('streams the same file through the MO-file client the attachment functions use, re-authenticating once after a revoked token', async () => {
    // Prepare
    const data = Buffer.from('mo-file-client-'.repeat(50));
    const mms = await injectMms('01055557777', '파일', {
      name: 'a.png',
      contentType: 'image/png',
      data,
    });
    const files = new GatewayMoFileClient({ hosts: sim.hosts, tokens, timeoutMs: 2_000 });
    const before = sim.snapshot().authentications;
    sim.revokeTokens();

    // Act
    const file = await files.downloadMoFile(mms.moKey);
    const received = await buffer(file.body);

    // Assess
    expect(file.contentType).toMatch(/^image\/png/);
    expect(received.equals(data)).toBe(true);
    expect(sim.snapshot().authentications).toBe(before + 1);
    await expect(files.downloadMoFile('no-such-key')).rejects.toBeInstanceOf(GatewayRejectedError);
  });

  it('reads the MO sample', async () => {
    await expect(client.moSample()).resolves.toBeDefined();
  });
});

describe('opt-out list', () => {
  it('registers, lists, deletes and reports a number by period', async () => {
    const from = formatKst(sim.clock.now() - 60_000, 'YYYYMMDDHHmmss');
    await client.registerOptOut([{ phone: '01077778888', callback: '0801234567' }]);

    const listed = await client.listOptOut({ phone: '01077778888', listCnt: 10, pageIdx: 1 });
    await client.deleteOptOut({ phone: '01077778888', callback: '0801234567' });
    const afterDelete = await client.listOptOut({ phone: '01077778888', listCnt: 10, pageIdx: 1 });
    const period = await client.listOptOutPeriod({
      '080ArsNumber': '0801234567',
      fromTime: from,
      toTime: formatKst(sim.clock.now() + 60_000, 'YYYYMMDDHHmmss'),
    });

    expect(listed.rejectList.map((entry) => entry.delYn)).toEqual(['N']);
    expect(afterDelete.rejectList.map((entry) => entry.delYn)).toEqual(['Y']);
    expect(period.data?.length).toBeGreaterThan(0);
  });

  it('refuses registering the same pair twice', async () => {
    await client.registerOptOut([{ phone: '01011112222', callback: '*' }]);

    await expect(
      client.registerOptOut([{ phone: '01011112222', callback: '*' }]),
    ).rejects.toBeInstanceOf(GatewayRejectedError);
  });
});

describe('tracking URLs', () => {
  it('creates, lists, reads statistics of, and deletes a tracking URL', async () => {
    const expDt = formatKst(sim.clock.now() + 7 * 86_400_000, 'YYYY-MM-DD HH:mm:ss');
    const today = formatKst(sim.clock.now(), 'YYYY-MM-DD');

    const urlId = await client.createClickUrl({
      urlTitle: 'spring sale',
      orgUrl: 'https://example.com/sale',
      expDt,
    });
    const listed = await client.listClickUrls(1);
    const range = { from: today, to: today, urlId: String(urlId) };
    const byUrl = await client.urlStatsByUrl(range);
    const byChannel = await client.urlStatsByChannel(range);
    const byReceiver = await client.urlStatsByReceiver({ ...range, page: 1 });
    const sendDay = await client.urlStatsSendDay(range);
    const sendHour = await client.urlStatsSendHour(range);
    const clickDay = await client.urlStatsClickDay(range);
    const clickHour = await client.urlStatsClickHour(range);
    await client.deleteClickUrl(String(urlId));
    const afterDelete = await client.listClickUrls(1);

    expect(listed.map((url) => String(url.urlId))).toContain(String(urlId));
    for (const stats of [byUrl, byChannel, byReceiver, sendDay, sendHour, clickDay, clickHour])
      expect(stats).toBeDefined();
    expect(afterDelete.map((url) => String(url.urlId))).not.toContain(String(urlId));
  });
});
