import { describe, expect, it } from 'vitest';
import { pushBody, smsBody } from '../../fixtures/send-bodies.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayResponseError } from '../../gateway/errors.ts';
import { PushRequestSchema } from '../../gateway/schemas/send.ts';
import type { HttpAnswer, HttpCall } from '../../gateway/transport.ts';

/** A client whose transport records every call and answers each with the next envelope `data`. */
const clientAnswering = (...data: unknown[]) => {
  const calls: HttpCall[] = [];
  const client = new GatewayClient({
    hosts: { api: 'https://api.gw.test', send: 'https://send.gw.test', mnt: 'https://mnt.gw.test' },
    tokens: { getToken: async () => 'token', invalidate: async () => {} },
    apiKey: 'api-key-1',
    transport: async (call): Promise<HttpAnswer> => {
      calls.push(call);
      const envelope = { code: '10000', message: 'success', data: data.shift() };
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: JSON.stringify(envelope),
      };
    },
  });
  return { calls, client };
};

describe('Content-Type on every gateway call', () => {
  it('is sent on GET and DELETE-like calls without a body, as on POST', async () => {
    // Prepare
    const { calls, client } = clientAnswering([], null, { rptCnt: 0, rptLst: [] });

    // Act: a GET (MO list), a POST with its parameter in the query (tracking URL delete).
    await client.listMo().catch(() => undefined);
    await client.deleteClickUrl('url-1');

    // Assess
    expect(calls.map((call) => call.method)).toEqual(['GET', 'POST']);
    for (const call of calls) {
      expect(call.body).toBeUndefined();
      expect(call.headers['content-type']).toBe('application/json;charset=UTF-8');
    }
  });

  it('is left out of the tracking URL list, whose spec section says "no Content-Type header"', async () => {
    const { calls, client } = clientAnswering([]);

    await client.listClickUrls(1);

    expect(calls[0]?.method).toBe('GET');
    expect(calls[0]?.headers['content-type']).toBeUndefined();
    expect(calls[0]?.headers.authorization).toBe('Bearer token');
  });

  it('is left to the multipart body on an MMS with files', async () => {
    const { calls, client } = clientAnswering([]);

    await client.sendMmsWithFiles(
      { ...smsBody(1), title: '사진', msg: '첨부를 확인하세요' } as never,
      [{ name: 'a.jpg', contentType: 'image/jpeg', data: new Uint8Array([1, 2, 3]) }],
    );

    expect(calls[0]?.body?.constructor.name).toBe('FormData');
    expect(calls[0]?.headers['content-type']).toBeUndefined();
  });
});

describe('reading a send answer', () => {
  it('reads per-recipient results of an immediate send', async () => {
    const body = smsBody(1);
    const cliKey = body.recvInfoLst[0]?.cliKey;
    const { client } = clientAnswering([
      { cliKey, msgKey: 'mk-1', code: '10000', message: 'success' },
    ]);

    const outcome = await client.sendSms(body);

    expect(outcome).toMatchObject({ kind: 'immediate', results: [{ cliKey, msgKey: 'mk-1' }] });
  });

  it.each([
    ['null', null],
    ['missing', undefined],
    ['a scheduled-send object', { regDt: '2026-11-25 10:00:00', webReqId: 'w-1' }],
  ])(
    'refuses an immediate send answered with data %s as unreadable, never as scheduled',
    async (_, data) => {
      const { client } = clientAnswering(data);

      const answer = client.sendSms(smsBody(2));

      await expect(answer).rejects.toBeInstanceOf(GatewayResponseError);
      await expect(answer).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
    },
  );

  it('reads {regDt, webReqId} only for a request with resvYn=Y', async () => {
    const { client } = clientAnswering({ regDt: '2026-11-25 10:00:00', webReqId: 'w-1' });

    const outcome = await client.sendSms({
      ...smsBody(2),
      resvYn: 'Y',
      resvReqDt: '2026-11-26 15:30',
    });

    expect(outcome).toEqual({ kind: 'scheduled', regDt: '2026-11-25 10:00:00', webReqId: 'w-1' });
  });
});

describe('push resvReqDt (spec 01 §4.7 writes yyyy-MM-dd hh:mm)', () => {
  const scheduled = (resvReqDt: string) =>
    PushRequestSchema.safeParse({ ...pushBody(), resvYn: 'Y', resvReqDt }).success;

  it('is read as a 24-hour clock, like resvReqDt of every other channel', () => {
    expect(scheduled('2026-11-26 00:05')).toBe(true);
    expect(scheduled('2026-11-26 13:30')).toBe(true);
    expect(scheduled('2026-11-26 23:59')).toBe(true);
  });

  it('refuses 12-hour forms and hours past 23', () => {
    expect(scheduled('2026-11-26 01:30 PM')).toBe(false);
    expect(scheduled('2026-11-26 1:30')).toBe(false);
    expect(scheduled('2026-11-26 24:00')).toBe(false);
  });
});

describe('beforeSend (where a sender takes its TPS quota)', () => {
  it('reaches the transport as beforeWrite on every request of a send, the resend with a fresh token too', async () => {
    const hooks: Array<HttpCall['beforeWrite']> = [];
    const tokens: string[] = [];
    const answers = [
      { code: '29011', message: 'token expired' },
      { code: '10000', data: [] },
    ];
    const client = new GatewayClient({
      hosts: {
        api: 'https://api.gw.test',
        send: 'https://send.gw.test',
        mnt: 'https://mnt.gw.test',
      },
      tokens: {
        getToken: async () => `token-${tokens.length + 1}`,
        invalidate: async (token) => {
          tokens.push(token);
        },
      },
      transport: async (call): Promise<HttpAnswer> => {
        hooks.push(call.beforeWrite);
        await call.beforeWrite?.();
        return { status: 200, headers: {}, text: JSON.stringify(answers.shift()) };
      },
    });
    let taken = 0;
    const beforeSend = async () => {
      taken += 1;
    };

    await client.sendSms(smsBody(1) as never, { beforeSend });

    expect(tokens).toEqual(['token-1']);
    expect(hooks).toEqual([beforeSend, beforeSend]);
    expect(taken).toBe(2);
  });

  it('is absent from calls that did not ask for it', async () => {
    const { calls, client } = clientAnswering([]);

    await client.sendSms(smsBody(1) as never);

    expect(calls[0]?.beforeWrite).toBeUndefined();
  });
});
