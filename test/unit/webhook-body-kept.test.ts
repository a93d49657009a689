/**
 * What arrived is kept as it arrived: every part of a webhook body that does not become an event
 * is kept (quarantined, with the reason) byte for byte, and what a real HTTP client may send (a
 * byte-order mark, a gzip or deflate body) is read.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { moItem, reportItem } from '../../fixtures/gateway-bodies.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { WebhookKind } from '../../functions/received-items/receive-items.ts';
import { createWebhookHandler } from '../../functions/webhooks/handler.ts';
import { LimitedEventStore, MemoryPayloadStore } from '../support/limited-event-store.ts';
import { RECEIVE_SETTINGS } from '../support/webhook-receive-settings.ts';

const SECRET = 'current-secret-0123456789';
const sha256 = (bytes: string | Uint8Array) =>
  createHash('sha256')
    .update(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes)
    .digest('hex');

const setup = (kind: WebhookKind, maxBodyBytes?: number) => {
  const store = new LimitedEventStore();
  const payloads = new MemoryPayloadStore();
  const handler = createWebhookHandler({
    kind,
    secret: async () => ({ current: SECRET }),
    receive: { store, payloads, ...RECEIVE_SETTINGS },
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
  /** Posts `body` through a function URL: text for JSON, base64 for bytes, as Lambda passes them. */
  const post = (
    body: string | Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<APIGatewayProxyResult> =>
    handler({
      version: '2.0',
      rawPath: `/webhooks/${SECRET}/${kind}`,
      headers: { 'content-type': 'application/json', ...headers },
      requestContext: { http: { method: 'POST', sourceIp: '203.0.113.9' } },
      ...(typeof body === 'string'
        ? { body, isBase64Encoded: false }
        : { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }),
    } as unknown as APIGatewayProxyEventV2);
  /** What is kept of a quarantined record: its inline text, or the object its claim check names. */
  const kept = (record: EventRecord): Buffer => {
    if (record.payload !== undefined) return Buffer.from(record.payload, 'utf8');
    const object = record.payloadRef ? payloads.objects.get(record.payloadRef.key) : undefined;
    if (object === undefined) throw new Error(`nothing kept for ${record.pk}`);
    return object;
  };
  const quarantined = () => store.ofKind('quarantine');
  const reasons = () => store.details('quarantine').map((detail) => String(detail.data.reason));
  return { store, payloads, post, kept, quarantined, reasons };
};

const LONG_NUMBER = '987654321098765432109876543210';

describe('a quarantined part of a body', () => {
  it('is the item exactly as it was sent, a 30-digit number included', async () => {
    const { post, kept, quarantined } = setup('report');
    const item = `{"msgKey": ${LONG_NUMBER}, "resultCode":"10000"}`;
    const body = `{"rptCnt":2,"rptLst":[${JSON.stringify(reportItem(0))},${item}]}`;

    const answer = await post(body);

    expect(answer.statusCode).toBe(200);
    const [record] = quarantined();
    expect(quarantined()).toHaveLength(1);
    expect(kept(record as EventRecord).toString('utf8')).toBe(item);
    expect(sha256(kept(record as EventRecord))).toBe(sha256(item));
  });

  it.each<[string, WebhookKind, string | Uint8Array]>([
    ['a body that is not JSON', 'report', `{"rptCnt":1,"rptLst":[{"msgKey":${LONG_NUMBER}`],
    ['a body of an unknown shape', 'mo', `{"chatList":[{"id":${LONG_NUMBER}}]}`],
    ['a body that is not UTF-8', 'report', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ['a JSON body behind a byte-order mark that is still not JSON', 'mo', '\ufeff{"moLst":'],
  ])('is %s, byte for byte', async (_, kind, body) => {
    const { post, kept, store } = setup(kind);

    const answer = await post(body);

    expect(answer.statusCode).toBe(200);
    const records = [...store.ofKind('quarantine'), ...store.ofKind('unrecognised')];
    expect(records).toHaveLength(1);
    expect(sha256(kept(records[0] as EventRecord))).toBe(sha256(body));
  });
});

describe('a body with parts no event carries', () => {
  it('keeps a report list given twice, and stores the events of the last one', async () => {
    const { post, kept, quarantined, reasons, store } = setup('report');
    const first = JSON.stringify([reportItem(0)]);
    const last = JSON.stringify([reportItem(1)]);
    const body = `{"rptCnt":1,"rptLst":${first},"rptLst":${last}}`;

    const answer = await post(body);

    expect(answer.statusCode).toBe(200);
    expect(store.details('report').map((detail) => detail.data.msgKey)).toEqual(['M0000000001']);
    expect(reasons()).toEqual([expect.stringContaining('repeats "rptLst"')]);
    expect(sha256(kept(quarantined()[0] as EventRecord))).toBe(sha256(body));
  });

  it('keeps a body whose count says 3 beside an empty list, and still answers 204', async () => {
    const { post, reasons, kept, quarantined } = setup('report');
    const body = '{"rptCnt":3,"rptLst":[]}';

    const answer = await post(body);

    expect(answer.statusCode).toBe(204);
    expect(reasons()).toEqual(['rptCnt says 3 but rptLst has 0 items']);
    expect(kept(quarantined()[0] as EventRecord).toString('utf8')).toBe(body);
  });

  it('keeps an MO body whose list is null beside another list', async () => {
    const { post, reasons } = setup('mo');
    const body = JSON.stringify({ moCnt: 1, moLst: null, moList: [moItem(0)] });

    const answer = await post(body);

    expect(JSON.parse(answer.body)).toMatchObject({ code: '10000' });
    expect(reasons()).toEqual([expect.stringContaining('"moList" beside moLst')]);
  });

  it('quarantines an item that repeats a key, since which value is meant is not known', async () => {
    const { post, reasons, store, kept, quarantined } = setup('mo');
    const item = JSON.stringify(moItem(1)).replace('{', '{"moKey":"MO-first",');
    const body = `{"moCnt":2,"moLst":[${JSON.stringify(moItem(0))},${item}]}`;

    await post(body);

    expect(store.ofKind('mo')).toHaveLength(1);
    expect(reasons()).toEqual([expect.stringContaining('"/moLst/1/moKey"')]);
    expect(kept(quarantined()[0] as EventRecord).toString('utf8')).toBe(item);
  });

  it('adds nothing for a count given as a string that agrees', async () => {
    const { post, quarantined } = setup('report');

    await post(JSON.stringify({ rptCnt: '1', rptLst: [reportItem(0)] }));

    expect(quarantined()).toHaveLength(0);
  });
});

describe('what an HTTP client may send', () => {
  const report = JSON.stringify({ rptCnt: 1, rptLst: [reportItem(0)] });

  it('reads a body behind a UTF-8 byte-order mark', async () => {
    const { post, store, quarantined } = setup('report');

    const answer = await post(`\ufeff${report}`);

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(1);
    expect(quarantined()).toHaveLength(0);
  });

  it.each<[string, Uint8Array]>([
    ['gzip', gzipSync(report)],
    ['deflate', deflateSync(report)],
    ['deflate', deflateRawSync(report)],
    ['gzip, identity', gzipSync(report)],
  ])('decodes Content-Encoding %s', async (encoding, bytes) => {
    const { post, store, quarantined } = setup('report');

    const answer = await post(bytes, { 'content-encoding': encoding });

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(1);
    expect(quarantined()).toHaveLength(0);
  });

  it('answers 413 for a compressed body that expands past the size limit', async () => {
    const { post, store } = setup('report', 64 * 1024);
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));

    const answer = await post(bomb, { 'content-encoding': 'gzip' });

    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(answer.statusCode).toBe(413);
    expect(store.items.size).toBe(0);
  });

  it.each<[string, string, Uint8Array]>([
    ['an encoding it does not read', 'br', Buffer.from('not brotli at all')],
    ['a gzip body that is not gzip', 'gzip', Buffer.from(report)],
  ])(
    'keeps %s exactly, with the reason, and answers as for any unreadable body',
    async (_, encoding, bytes) => {
      const { post, kept, quarantined, reasons } = setup('mo');

      const answer = await post(bytes, { 'content-encoding': encoding });

      expect(JSON.parse(answer.body)).toMatchObject({ code: '10000' });
      expect(reasons()).toEqual([expect.stringContaining(`Content-Encoding ${encoding}`)]);
      expect(sha256(kept(quarantined()[0] as EventRecord))).toBe(sha256(bytes));
    },
  );
});
