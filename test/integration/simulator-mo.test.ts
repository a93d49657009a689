import { createHash } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MoListDataSchema, MoWebhookBodySchema } from '../../gateway/schemas/mo.ts';
import { parseGatewayDateTime } from '../../protocol/kst.ts';
import type { MoSnapshot } from '../../simulator/mo.ts';
import type { Simulator } from '../../simulator/server.ts';
import { listenReceiver, postsAroundTheRetry, type Reply } from '../support/sim-receiver.ts';
import { simulatorsPerTest } from '../support/sim-started.ts';
import { asList, asObject, callGateway, dateFormatOf } from '../support/simulator-http.ts';

const CREDENTIALS = { apiKey: 'mo-key', apiPassword: 'mo-secret' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const { start, running } = simulatorsPerTest(CREDENTIALS, {
  // Tests here jump days ahead; keep the token valid throughout.
  accessTokenTtlSeconds: 30 * 86_400,
});

const moOf = (sim: Simulator): MoSnapshot => sim.snapshot().mo as MoSnapshot;

const smsMo = (text = 'STOP') => ({
  moType: 'SMSMO' as const,
  moCallback: '01055551234',
  moNumber: '15881234',
  moMsg: text,
});

/** GET of an absolute URL (content URLs) without a token; the body as bytes. */
const fetchBytes = async (url: string, token?: string) => {
  const response = await request(url, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body };
};

const listMo = async (sim: Simulator, token: string) => {
  const answer = await callGateway(sim, { method: 'GET', path: '/mo/v1/msg', token });
  expect(answer.status).toBe(200);
  const data = asObject(answer.body).data;
  expect(MoListDataSchema.safeParse(data).success).toBe(true);
  return asList(data);
};

/** The bytes the simulator generates for `sizeBytes`: byte i is i % 251. */
const expectedPattern = (size: number): Buffer => {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  return bytes;
};

/** A receiver of MO webhooks (closed after the test); `received` holds the bodies. */
const startReceiver = async (script: (attempt: number) => Reply) => {
  const listening = await listenReceiver('/hooks/mo', script);
  const receiver = {
    url: listening.url,
    get received() {
      return listening.received.map((entry) => entry.body);
    },
    bodies: () => listening.received.map((entry) => asObject(JSON.parse(entry.body))),
    close: listening.close,
  };
  running.push(receiver);
  return receiver;
};

const SUCCESS = JSON.stringify({ code: '10000', message: 'success' });

describe('simulator MO: webhook', () => {
  it('redelivers an MO until the receiver answers JSON code 10000', async () => {
    // Prepare
    const replies: Reply[] = [
      { status: 500 },
      { status: 200, body: 'OK' },
      { status: 200, body: JSON.stringify({ code: '20001', message: 'not stored' }) },
      { status: 200, body: SUCCESS },
    ];
    const receiver = await startReceiver(
      (attempt) => replies[attempt - 1] ?? { status: 200, body: SUCCESS },
    );
    const { sim, token } = await start({ moWebhookUrl: receiver.url });

    // Act
    const [made] = sim.injectMo([smsMo()]);
    await sim.settle();
    const { first, beforeRetry } = await postsAroundTheRetry(
      sim,
      receiver,
      [10_000, 10_000, 60_000],
    );
    const polled = await listMo(sim, token);

    // Assess
    expect(first).toBe(1);
    expect(beforeRetry).toBe(1);
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received).size).toBe(1);
    const [body] = receiver.bodies();
    expect(MoWebhookBodySchema.safeParse(body).success).toBe(true);
    expect(body?.moCnt).toBe(1);
    expect(asList(body?.moLst)[0]).toMatchObject({
      moKey: made?.moKey,
      moType: 'SMSMO',
      moCallback: '01055551234',
      moNumber: '15881234',
      moMsg: 'STOP',
      moTitle: null,
      contentInfoLst: null,
      productCode: 'SMS',
    });
    expect(polled).toEqual([]);
    expect(moOf(sim)).toMatchObject({ deliveredByWebhook: 1, webhookRetries: 3, undelivered: 0 });
  });

  it('drops an MO the receiver never accepts after 7 days', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 503 }));
    const { sim, token } = await start({ moWebhookUrl: receiver.url });
    sim.injectMo([smsMo()]);
    await sim.settle();

    // Act
    await sim.advance(7 * DAY);
    const posts = receiver.received.length;
    await sim.advance(HOUR);
    const polled = await listMo(sim, token);

    // Assess
    expect(posts).toBeGreaterThanOrEqual(2);
    expect(receiver.received.length).toBe(posts);
    expect(polled).toEqual([]);
    expect(moOf(sim)).toMatchObject({ droppedUndelivered: 1, undelivered: 0 });
  });

  it('delivers RCSMO in moLst and posts an unrecognised body as it was injected, with the same retry rule', async () => {
    // Prepare
    const receiver = await startReceiver(() => ({ status: 200, body: SUCCESS }));
    const raw = { biCnt: 1, biLst: [{ chatbotId: '15881234', replyId: 'R-1', text: 'hello' }] };
    const { sim } = await start({ moWebhookUrl: receiver.url });

    // Act
    sim.injectMo([
      { moType: 'RCSMO', moCallback: '01022223333', moNumber: '15881234', moMsg: 'Yes please' },
      { rawBody: raw },
    ]);
    await sim.settle();

    // Assess
    const bodies = receiver.bodies();
    expect(bodies).toHaveLength(2);
    const list = bodies.find((body) => 'moLst' in body);
    expect(asList(list?.moLst)[0]).toMatchObject({ moType: 'RCSMO', productCode: 'RCS' });
    expect(bodies.find((body) => !('moLst' in body))).toEqual(raw);
    expect(MoWebhookBodySchema.safeParse(raw).success).toBe(false);
  });

  it('redelivers an unrecognised body that was not acknowledged with code 10000', async () => {
    // Prepare
    const receiver = await startReceiver((attempt) =>
      attempt === 1 ? { status: 400, body: '{}' } : { status: 200, body: SUCCESS },
    );
    const { sim } = await start({ moWebhookUrl: receiver.url });

    // Act
    sim.injectMo([{ rawBody: { unknownList: [1, 2, 3] } }]);
    await sim.settle();
    await sim.advance(10_000);
    await sim.advance(10_000);

    // Assess
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]).toBe(receiver.received[0]);
  });

  it('refuses an injection that breaks the schema', async () => {
    // Prepare
    const { sim } = await start();

    // Act
    const badType = () => sim.injectMo([{ ...smsMo(), moType: 'FAXMO' as 'SMSMO' }]);
    const both = () =>
      sim.injectMo([
        {
          ...smsMo(),
          moType: 'MMSMO',
          attachments: [{ name: 'a.jpg', contentType: 'image/jpeg', data: 'AAAA', sizeBytes: 3 }],
        },
      ]);
    const answer = await callGateway(sim, {
      method: 'POST',
      path: '/_sim/mo',
      body: { items: [{ moType: 'SMSMO' }] },
    });

    // Assess
    expect(badType).toThrow();
    expect(both).toThrow(/exactly one of data/);
    expect(answer.status).toBe(400);
  });
});

describe('simulator MO: query and attachments', () => {
  it('returns each undelivered MO once from GET /mo/v1/msg, with production quirks', async () => {
    // Prepare
    const { sim, token } = await start();
    sim.injectMo([
      smsMo('one'),
      { ...smsMo('two'), moType: 'LMSMO', moTitle: 'Long' },
      {
        ...smsMo('three'),
        moType: 'MMSMO',
        attachments: [{ name: 'photo.jpg', contentType: 'image/jpeg', sizeBytes: 2048 }],
      },
      smsMo('four'),
    ]);

    // Act
    const first = await listMo(sim, token);
    const second = await listMo(sim, token);
    const unauthenticated = await callGateway(sim, { method: 'GET', path: '/mo/v1/msg' });

    // Assess
    expect(first.map((item) => item.moMsg)).toEqual(['one', 'two', 'three', 'four']);
    expect(second).toEqual([]);
    expect(unauthenticated.status).toBe(401);
    expect(first[1]).toMatchObject({ moType: 'LMSMO', moTitle: 'Long' });
    expect(new Set(first.map((item) => typeof item.contentCnt))).toEqual(
      new Set(['number', 'string']),
    );
    const [content] = asList(first[2]?.contentInfoLst);
    expect(content).toMatchObject({ contentName: 'photo.jpg', contentExt: 'jpg' });
    expect(Number(content?.contentSize)).toBe(2048);
    expect(first[0]?.contentInfoLst).toBeNull();
  });

  it('writes moRecvDt in every production format with dateStyle mixed, zoned ones too, each the instant received', async () => {
    // Prepare
    const mixed = await start({ dateStyle: 'mixed' });
    const standard = await start({ dateStyle: 'standard' });
    const texts = ['1', '2', '3', '4', '5', '6'];
    mixed.sim.injectMo(texts.map((text) => smsMo(text)));
    standard.sim.injectMo(texts.map((text) => smsMo(text)));

    // Act
    const mixedDates = (await listMo(mixed.sim, mixed.token)).map((item) => String(item.moRecvDt));
    const standardDates = (await listMo(standard.sim, standard.token)).map((item) =>
      String(item.moRecvDt),
    );

    // Assess
    expect(new Set(mixedDates.map(dateFormatOf))).toEqual(
      new Set(['space', 'T', 'compact', 'kst-zoned', 'utc']),
    );
    expect(new Set(standardDates.map(dateFormatOf))).toEqual(new Set(['space']));
    const second = (sim: Simulator) =>
      new Date(Math.floor(sim.clock.now() / 1_000) * 1_000).toISOString();
    expect(new Set(mixedDates.map(parseGatewayDateTime))).toEqual(new Set([second(mixed.sim)]));
    expect(new Set(standardDates.map(parseGatewayDateTime))).toEqual(
      new Set([second(standard.sim)]),
    );
  });

  it('serves a content URL once, refuses it after 24 h, and serves the file endpoint for 7 days', async () => {
    // Prepare
    const { sim, token } = await start();
    const [made] = sim.injectMo([
      {
        ...smsMo('photos'),
        moType: 'MMSMO',
        moTitle: 'Pics',
        attachments: [
          {
            name: 'note.txt',
            contentType: 'text/plain',
            data: Buffer.from('hello').toString('base64'),
          },
          { name: 'image.png', contentType: 'image/png', sizeBytes: 1000 },
        ],
      },
    ]);
    const moKey = String(made?.moKey);
    const [note, image] = asList(made?.contentInfoLst);
    const noteUrl = String(note?.contentUrl);
    const imageUrl = String(image?.contentUrl);

    // Act
    const firstUse = await fetchBytes(noteUrl);
    const secondUse = await fetchBytes(noteUrl);
    await sim.advance(DAY);
    const expiredUrl = await fetchBytes(imageUrl);
    const fileFirst = await fetchBytes(`${sim.url}/mo/v1/file/${moKey}`, token);
    // The spec's file endpoint names only the moKey: a query parameter picks nothing.
    const withIndex = await fetchBytes(`${sim.url}/mo/v1/file/${moKey}?index=1`, token);
    const [plain] = sim.injectMo([smsMo('no attachment')]);
    const noAttachment = await fetchBytes(`${sim.url}/mo/v1/file/${String(plain?.moKey)}`, token);
    await sim.advance(6 * DAY - 1);
    const lastMoment = await fetchBytes(`${sim.url}/mo/v1/file/${moKey}`, token);
    await sim.advance(1);
    const afterRetention = await callGateway(sim, {
      method: 'GET',
      path: `/mo/v1/file/${moKey}`,
      token,
    });

    // Assess
    expect(noteUrl.startsWith(`${sim.url}/_sim/content/`)).toBe(true);
    expect(firstUse.status).toBe(200);
    expect(firstUse.body.toString()).toBe('hello');
    expect(firstUse.headers['content-type']).toBe('text/plain');
    expect(secondUse.status).toBe(410);
    expect(expiredUrl.status).toBe(410);
    expect(fileFirst.status).toBe(200);
    expect(fileFirst.body.toString()).toBe('hello');
    expect(withIndex.status).toBe(200);
    expect(withIndex.headers['content-type']).toBe('text/plain');
    expect(withIndex.body.toString()).toBe('hello');
    expect(noAttachment.status).toBe(404);
    expect(lastMoment.status).toBe(200);
    expect(afterRetention.status).toBe(404);
    expect(asObject(afterRetention.body).code).toBe('21601');
  });

  it('streams a large attachment with the right length and bytes', async () => {
    // Prepare
    const size = 8 * 1024 * 1024;
    const { sim, token } = await start();
    const [made] = sim.injectMo([
      {
        ...smsMo('video'),
        moType: 'MMSMO',
        attachments: [{ name: 'clip.mp4', contentType: 'video/mp4', sizeBytes: size }],
      },
    ]);
    const expected = createHash('sha256').update(expectedPattern(size)).digest('hex');

    // Act
    const response = await request(`${sim.url}/mo/v1/file/${String(made?.moKey)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const hash = createHash('sha256');
    let received = 0;
    let chunks = 0;
    for await (const chunk of response.body) {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      received += bytes.length;
      chunks += 1;
    }

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('video/mp4');
    expect(response.headers['content-length']).toBe(String(size));
    expect(received).toBe(size);
    expect(chunks).toBeGreaterThan(1);
    expect(hash.digest('hex')).toBe(expected);
  });

  it('answers the development sample with an MMS MO whose content URL works', async () => {
    // Prepare
    const { sim, token } = await start();

    // Act
    const answer = await callGateway(sim, {
      method: 'GET',
      path: '/mo/direct/v1/mmsMoSample',
      token,
    });
    const [sample] = asList(asObject(answer.body).data);
    const [content] = asList(sample?.contentInfoLst);
    const bytes = await fetchBytes(String(content?.contentUrl));

    // Assess
    expect(answer.status).toBe(200);
    expect(sample).toMatchObject({ moType: 'MMSMO', contentCnt: 1 });
    expect(bytes.status).toBe(200);
    expect(bytes.headers['content-type']).toBe('image/png');
    expect(bytes.body.length).toBe(Number(content?.contentSize));
  });
});
