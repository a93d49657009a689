/**
 * The gateway's webhook contract, behind either front the stack deploys (the REST API's proxy
 * event or a function URL's): reports answered 200/204/400, MO answered with code 10000 or a code
 * of 20000 and above, and every body kept before it is answered.
 */
import { describe, expect, it } from 'vitest';
import { moBody, reportBody } from '../../fixtures/gateway-bodies.ts';
import { FRONTS, SECRET, webhookReceiver } from '../support/webhook-fronts.ts';

describe.each(FRONTS)('the report webhook contract behind %s', (_, post) => {
  it('answers 200 once every report is stored', async () => {
    const { handler, store } = webhookReceiver('report');

    const answer = await handler(post('report', SECRET.current, JSON.stringify(reportBody(3))));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(3);
  });

  it('answers 200 for a redelivered body (all duplicates)', async () => {
    const { handler } = webhookReceiver('report');
    const body = JSON.stringify(reportBody(3));
    await handler(post('report', SECRET.current, body));

    const answer = await handler(post('report', SECRET.current, body));

    expect(answer.statusCode).toBe(200);
  });

  it('answers 204 for an empty list', async () => {
    const { handler } = webhookReceiver('report');

    const answer = await handler(
      post('report', SECRET.current, JSON.stringify({ rptCnt: 0, rptLst: [] })),
    );

    expect(answer).toMatchObject({ statusCode: 204, body: '' });
  });

  it('answers 400 when a write failed, so the gateway delivers again', async () => {
    const { handler, store } = webhookReceiver('report');
    store.failNext(1);

    const answer = await handler(post('report', SECRET.current, JSON.stringify(reportBody(2))));

    expect(answer.statusCode).toBe(400);
  });

  it('answers 200 for a body that is not JSON, after quarantining it', async () => {
    const { handler, store } = webhookReceiver('report');

    const answer = await handler(post('report', SECRET.current, '<xml/>'));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('quarantine')).toHaveLength(1);
  });

  it('reads a base64-encoded body (function URLs encode non-text content types)', async () => {
    const { handler, store } = webhookReceiver('report');
    const body = Buffer.from(JSON.stringify(reportBody(2))).toString('base64');

    const answer = await handler(post('report', SECRET.current, body, true));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(2);
  });

  it('keeps a body larger than 256 KiB (in the payload bucket) instead of refusing it', async () => {
    const { handler, store, payloads } = webhookReceiver('report');
    const body = 'x'.repeat(256 * 1024 + 1);

    const answer = await handler(post('report', SECRET.current, body));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('quarantine')).toHaveLength(1);
    expect([...payloads.objects.values()].map((bytes) => bytes.toString('utf8'))).toEqual([body]);
  });

  it('accepts the previous secret during a rotation', async () => {
    const { handler, store } = webhookReceiver('report');

    const answer = await handler(post('report', SECRET.previous, JSON.stringify(reportBody(1))));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(1);
  });
});

describe.each(FRONTS)('the MO webhook contract behind %s', (_, post) => {
  it('answers code 10000 after storage', async () => {
    const { handler, store } = webhookReceiver('mo');

    const answer = await handler(post('mo', SECRET.current, JSON.stringify(moBody(2))));

    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ code: '10000', message: 'success' });
    expect(store.ofKind('mo')).toHaveLength(2);
  });

  it('answers a code of 20000 or above on a transient failure', async () => {
    const { handler, store } = webhookReceiver('mo');
    store.failNext(1);

    const answer = await handler(post('mo', SECRET.current, JSON.stringify(moBody(1))));

    expect(Number(JSON.parse(answer.body).code)).toBeGreaterThanOrEqual(20000);
  });

  it('answers code 10000 for an unrecognised body after keeping it', async () => {
    const { handler, store } = webhookReceiver('mo');

    const answer = await handler(post('mo', SECRET.current, JSON.stringify({ biLst: [{ a: 1 }] })));

    expect(JSON.parse(answer.body).code).toBe('10000');
    expect(store.ofKind('unrecognised')).toHaveLength(1);
  });

  it('accepts the previous secret during a rotation', async () => {
    const { handler } = webhookReceiver('mo');

    const answer = await handler(post('mo', SECRET.previous, JSON.stringify(moBody(1))));

    expect(JSON.parse(answer.body).code).toBe('10000');
  });
});
