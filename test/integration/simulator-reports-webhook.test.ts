import { describe, expect, it } from 'vitest';
import { ReportWebhookBodySchema } from '../../gateway/schemas/reports.ts';
import {
  poll,
  pollPage,
  reportsOf,
  sendSms,
  start,
  startReceiver,
} from '../support/report-simulator.ts';
import { postsAroundTheRetry } from '../support/sim-receiver.ts';
import { asList, callGateway } from '../support/simulator-http.ts';

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
    const { first: afterFirst, beforeRetry } = await postsAroundTheRetry(
      sim,
      receiver,
      [10_000, 60_000],
    );

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
