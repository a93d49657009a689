import { describe, expect, it } from 'vitest';
import { moBody, moItem, reportBody, reportItem } from '../../fixtures/gateway-bodies.ts';
import { mapWithConcurrency } from '../../functions/commons/helpers/map-with-concurrency.ts';
import { failureCategory } from '../../functions/received-items/item-records.ts';
import {
  type ReceiveDeps,
  receiveInbound,
  receiveReports,
} from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';

const NOW = new Date('2026-11-21T00:31:00.000Z');
const deps = (store: FakeEventStore, overrides: Partial<ReceiveDeps> = {}): ReceiveDeps => ({
  store,
  now: () => NOW,
  retentionDays: 35,
  concurrency: 8,
  ...overrides,
});

describe('receiveReports', () => {
  it('stores each report once and builds a delivery event from it', async () => {
    // Prepare
    const store = new FakeEventStore();

    // Act
    const outcome = await receiveReports(JSON.stringify(reportBody(3)), deps(store));

    // Assess
    expect(outcome).toMatchObject({
      result: 'stored',
      stored: 3,
      duplicates: 0,
      quarantined: 0,
      failed: 0,
    });
    expect(outcome.keys).toEqual(['M0000000000', 'M0000000001', 'M0000000002']);
    const [detail] = store.details('report');
    expect(detail?.metadata).toMatchObject({
      type: 'Delivery Report Received',
      version: '1',
      via: 'webhook',
      occurredAt: '2026-11-21T00:30:15.000Z',
      receivedAt: NOW.toISOString(),
      idempotencyKey: 'report:M0000000000:10000:SMS',
    });
    expect(detail?.data).toMatchObject({
      msgKey: 'M0000000000',
      cliKey: 'c-0',
      delivered: true,
      failureCategory: null,
      channel: 'SMS',
      fallbackReasons: [],
      reportedAt: '2026-11-21T00:30:15.000Z',
      reportedAtKst: '2026-11-21 09:30:15',
      telco: 'SKT',
      productCode: 'SMS',
    });
  });

  it('sets the TTL from the retention days', async () => {
    const store = new FakeEventStore();
    await receiveReports(JSON.stringify(reportBody(1)), deps(store, { retentionDays: 10 }));

    expect(store.ofKind('report')[0]?.expiresAt).toBe(NOW.getTime() / 1000 + 10 * 86_400);
  });

  it('recognises the same body delivered again: no new item, counted as duplicates', async () => {
    const store = new FakeEventStore();
    const body = JSON.stringify(reportBody(5));
    await receiveReports(body, deps(store));

    const again = await receiveReports(body, deps(store));

    expect(again).toMatchObject({ result: 'stored', stored: 0, duplicates: 5 });
    expect(store.ofKind('report')).toHaveLength(5);
  });

  it('keeps the same event id for the same report, whatever path or time it arrives by', async () => {
    const viaWebhook = new FakeEventStore();
    const viaPolling = new FakeEventStore();
    const polled = { rptLst: [{ ...reportItem(7), phone: undefined, rptDt: '20261121093015' }] };

    await receiveReports(JSON.stringify(reportBody(1, 7)), deps(viaWebhook));
    await receiveReports(
      JSON.stringify(polled),
      deps(viaPolling, { now: () => new Date() }),
      'polling',
    );

    expect(viaPolling.ofKind('report')[0]?.eventId).toBe(viaWebhook.ofKind('report')[0]?.eventId);
    expect(viaPolling.ofKind('report')[0]?.pk).toBe(viaWebhook.ofKind('report')[0]?.pk);
  });

  it('reads fallbacks, failure categories and every date format', async () => {
    const store = new FakeEventStore();
    const body = {
      rptLst: [
        reportItem(1, {
          ch: 'SMS',
          resultCode: '10000',
          rptDt: '2026-11-21T09:30:15',
          fbReasonLst: [
            { ch: 'RCS', fbResultCode: '54002', fbResultDesc: 'not RCS capable', telco: 'KT' },
          ],
        }),
        reportItem(2, { ch: 'MSGR', resultCode: '32114', rptDt: '20261121093015' }),
        reportItem(3, { ch: 'SMS', resultCode: '30007', rptDt: '2026-11-21 09:30:15+09:00' }),
        reportItem(4, { ch: 'RCS', resultCode: '49001', rptDt: 'not a date' }),
      ],
    };

    await receiveReports(JSON.stringify(body), deps(store));

    const byKey = new Map(store.details('report').map((d) => [d.data.msgKey, d.data]));
    expect(byKey.get('M0000000001')).toMatchObject({
      delivered: true,
      channel: 'SMS',
      fallbackReasons: [
        { channel: 'RCS', resultCode: '54002', resultDesc: 'not RCS capable', telco: 'KT' },
      ],
    });
    expect(byKey.get('M0000000002')).toMatchObject({
      delivered: false,
      failureCategory: 'uncertain',
    });
    expect(byKey.get('M0000000003')).toMatchObject({
      failureCategory: 'permanent',
      reportedAt: '2026-11-21T00:30:15.000Z',
    });
    expect(byKey.get('M0000000004')).toMatchObject({
      failureCategory: 'retryable',
      reportedAt: null,
      reportedAtKst: 'not a date',
    });
  });

  it('keeps unknown fields in raw and reads numbers given as strings', async () => {
    const store = new FakeEventStore();
    const body = {
      rptCnt: '1',
      rptLst: [reportItem(1, { resultNetwork: 'LTE', resultCode: 10000 })],
    };

    await receiveReports(JSON.stringify(body), deps(store));

    const [detail] = store.details('report');
    expect(detail?.data.resultCode).toBe('10000');
    expect(detail?.data.raw).toMatchObject({ resultNetwork: 'LTE' });
  });

  it('answers empty for an empty or null list and stores nothing', async () => {
    const store = new FakeEventStore();

    const empty = await receiveReports(JSON.stringify({ rptCnt: 0, rptLst: [] }), deps(store));
    const nullList = await receiveReports(JSON.stringify({ rptCnt: 0, rptLst: null }), deps(store));

    expect(empty.result).toBe('empty');
    expect(nullList.result).toBe('empty');
    expect(store.puts).toBe(0);
  });

  it('quarantines an invalid item and stores the valid items of the same body', async () => {
    const store = new FakeEventStore();
    const body = {
      rptLst: [reportItem(1), { cliKey: 'no-msg-key', resultCode: '10000' }, reportItem(2)],
    };

    const outcome = await receiveReports(JSON.stringify(body), deps(store));

    expect(outcome).toMatchObject({ result: 'stored', stored: 2, quarantined: 1 });
    const [quarantined] = store.details('quarantine');
    expect(quarantined?.data).toMatchObject({ webhook: 'report', index: 1, truncated: false });
    expect(String(quarantined?.data.reason)).toContain('msgKey');
    expect(JSON.parse(String(quarantined?.data.raw))).toEqual({
      cliKey: 'no-msg-key',
      resultCode: '10000',
    });
  });

  it('quarantines a body that is not JSON and still answers success', async () => {
    const store = new FakeEventStore();

    const outcome = await receiveReports('rptCnt=1&rptLst=oops', deps(store));

    expect(outcome).toMatchObject({ result: 'stored', quarantined: 1 });
    const [record] = store.ofKind('quarantine');
    expect(record?.payload).toBe('rptCnt=1&rptLst=oops');
    expect(JSON.parse(String(record?.detail)).data).toMatchObject({
      index: null,
      reason: expect.stringContaining('not JSON'),
    });
  });

  it('keeps a body of an unknown shape as an unrecognised body', async () => {
    const store = new FakeEventStore();
    const body = JSON.stringify({ biCnt: 1, biLst: [{ replyId: 'r1' }] });

    const outcome = await receiveInbound(body, deps(store));

    expect(outcome).toMatchObject({ result: 'stored', unrecognised: 1 });
    const [detail] = store.details('unrecognised');
    expect(detail?.metadata.type).toBe('Unrecognised Inbound Body Received');
    expect(detail?.data).toMatchObject({
      webhook: 'mo',
      topLevelKeys: ['biCnt', 'biLst'],
      body,
      truncated: false,
    });
  });

  it('asks for redelivery when a write fails, and a clean redelivery completes without duplicates', async () => {
    const store = new FakeEventStore();
    const body = JSON.stringify(reportBody(10));
    store.failKey('REPORT#M0000000004');

    const first = await receiveReports(body, deps(store));
    store.heal();
    const second = await receiveReports(body, deps(store));

    expect(first).toMatchObject({ result: 'retry', stored: 9, failed: 1 });
    expect(second).toMatchObject({ result: 'stored', stored: 1, duplicates: 9, failed: 0 });
    expect(store.ofKind('report')).toHaveLength(10);
  });
});

describe('receiveInbound', () => {
  it('stores each MO message once, with sender and receiving number the right way round', async () => {
    const store = new FakeEventStore();

    const outcome = await receiveInbound(JSON.stringify(moBody(2)), deps(store));

    expect(outcome).toMatchObject({ result: 'stored', stored: 2 });
    const [detail] = store.details('mo');
    expect(detail?.metadata).toMatchObject({
      type: 'Inbound Message Received',
      idempotencyKey: 'mo:MO00000000',
    });
    expect(detail?.data).toMatchObject({
      moKey: 'MO00000000',
      sender: '01098765432',
      receivingNumber: '0212345678',
      type: 'SMSMO',
      title: null,
      attachmentCount: 0,
      attachments: [],
      receivedAtGateway: '2026-11-21T00:30:15.000Z',
    });
  });

  it('reads LMSMO, string counts and attachments', async () => {
    const store = new FakeEventStore();
    const body = {
      moCnt: 2,
      moLst: [
        moItem(1, { moType: 'LMSMO', moTitle: '제목' }),
        moItem(2, {
          moType: 'MMSMO',
          contentCnt: '2',
          contentInfoLst: [
            {
              contentName: 'a.jpg',
              contentSize: '2048',
              contentExt: 'jpg',
              contentUrl: 'https://x/1',
            },
            { contentName: 'b.png', contentSize: 10, contentExt: 'png', contentUrl: 'https://x/2' },
          ],
        }),
      ],
    };

    await receiveInbound(JSON.stringify(body), deps(store));

    const byKey = new Map(store.details('mo').map((d) => [d.data.moKey, d.data]));
    const records = new Map(store.ofKind('mo').map((record) => [record.pk, record]));
    expect(records.get('MO#MO00000002')?.attachmentCount).toBe(2);
    expect(records.get('MO#MO00000001')?.attachmentCount).toBeUndefined();
    expect(byKey.get('MO00000001')).toMatchObject({ type: 'LMSMO', title: '제목' });
    expect(byKey.get('MO00000002')).toMatchObject({
      attachmentCount: 2,
      attachments: [
        { name: 'a.jpg', sizeBytes: 2048, extension: 'jpg' },
        { name: 'b.png', sizeBytes: 10, extension: 'png' },
      ],
    });
  });

  it('quarantines an item the gateway schema reads but the event contract refuses', async () => {
    const store = new FakeEventStore();

    const outcome = await receiveInbound(
      JSON.stringify({ moLst: [moItem(1, { contentCnt: -1 }), moItem(2)] }),
      deps(store),
    );

    expect(outcome).toMatchObject({ result: 'stored', stored: 1, quarantined: 1 });
    expect(String(store.details('quarantine')[0]?.data.reason)).toMatch(
      /^event contract: .*attachmentCount/s,
    );
  });

  it('treats the same moKey delivered twice as one message', async () => {
    const store = new FakeEventStore();
    await receiveInbound(JSON.stringify(moBody(1)), deps(store));

    const again = await receiveInbound(
      JSON.stringify({ moCnt: 1, moLst: [moItem(0, { moMsg: 'changed' })] }),
      deps(store),
    );

    expect(again).toMatchObject({ stored: 0, duplicates: 1 });
    expect(store.ofKind('mo')).toHaveLength(1);
  });
});

describe('failureCategory', () => {
  const categoryOfCode = {
    '32114': 'uncertain',
    '49001': 'retryable',
    '29019': 'retryable',
    '30007': 'permanent',
    '54002': 'permanent',
  };

  it.each(Object.entries(categoryOfCode))('reads %s as %s', (code, category) => {
    expect(failureCategory(code)).toBe(category);
  });
});

describe('mapWithConcurrency', () => {
  it('never has more than the limit in flight and keeps the order of results', async () => {
    let inFlight = 0;
    let peak = 0;

    const results = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight -= 1;
      return n * 10;
    });

    expect(results).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(peak).toBe(3);
  });
});
