import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { moItem, reportItem } from '../../fixtures/gateway-bodies.ts';
import { attachmentsOf } from '../../functions/attachments/fetch-use-case.ts';
import { entrySize, PUT_EVENTS_MAX_BYTES } from '../../functions/publishing/publish.ts';
import {
  type ReceiveDeps,
  receiveInbound,
  receiveReports,
  type WebhookKind,
} from '../../functions/received-items/receive-items.ts';
import { LimitedEventStore, MemoryPayloadStore } from '../support/limited-event-store.ts';

const NOW = new Date('2026-11-21T00:31:00.000Z');
// The longest source EventBridge accepts: the detail must leave room for it.
const LONGEST_SOURCE = 's'.repeat(256);

const setup = () => {
  const store = new LimitedEventStore();
  const payloads = new MemoryPayloadStore();
  const deps: ReceiveDeps = {
    store,
    payloads,
    now: () => NOW,
    retentionDays: 35,
    concurrency: 4,
  };
  return { store, payloads, deps };
};

const receive = (kind: WebhookKind, body: string, deps: ReceiveDeps) =>
  kind === 'report' ? receiveReports(body, deps) : receiveInbound(body, deps);

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every stored item becomes an entry PutEvents accepts. */
const expectPublishable = (store: LimitedEventStore) => {
  for (const record of store.items.values()) {
    const size = entrySize({
      Source: LONGEST_SOURCE,
      DetailType: record.detailType,
      Detail: record.detail,
      Time: NOW,
    });
    expect(size).toBeLessThanOrEqual(PUT_EVENTS_MAX_BYTES);
  }
};

/** The payload reference of the one stored event, and the object it points at, as UTF-8 text. */
const claimed = (store: LimitedEventStore, payloads: MemoryPayloadStore) => {
  const [record] = [...store.items.values()];
  const data = JSON.parse(record?.detail ?? '{}').data as {
    payloadRef?: {
      bucket: string;
      key: string;
      bytes: number;
      sha256: string;
      item: number | null;
    };
    omitted?: string[];
  };
  const ref = data.payloadRef;
  const object = ref ? payloads.objects.get(ref.key) : undefined;
  return { record, data, ref, text: object?.toString('utf8') };
};

describe('bodies near the limit (claim check)', () => {
  it('stores a 240 KB report body and publishes its event with the body in S3', async () => {
    // Prepare: one report whose description alone is most of the body; the event carries it
    // twice (typed and raw), more than one DynamoDB item holds.
    const { store, payloads, deps } = setup();
    const body = JSON.stringify({
      rptCnt: 1,
      rptLst: [reportItem(1, { resultCodeDesc: 'd'.repeat(240_000) })],
    });
    expect(bytes(body)).toBeGreaterThan(240_000);

    // Act
    const outcome = await receiveReports(body, deps);

    // Assess
    expect(outcome).toMatchObject({ result: 'stored', stored: 1, failed: 0, quarantined: 0 });
    expect(store.ofKind('report')).toHaveLength(1);
    expectPublishable(store);
    const { data, ref, text } = claimed(store, payloads);
    expect(ref).toMatchObject({
      bucket: 'payload-bucket',
      bytes: bytes(body),
      sha256: sha256(body),
      item: 0,
    });
    expect(text).toBe(body);
    expect(data.omitted).toContain('raw');
    expect(data).toMatchObject({ msgKey: 'M0000000001', resultCode: '10000' });
  });

  it('stores a 250 KB Hangul MO body and publishes its event', async () => {
    // Prepare: 83,000 syllables are 249,000 bytes of UTF-8 (three each).
    const { store, payloads, deps } = setup();
    const text = '가'.repeat(83_000);
    const body = JSON.stringify({
      moCnt: '1',
      moLst: [moItem(1, { moMsg: text, moType: 'LMSMO' })],
    });
    expect(bytes(body)).toBeGreaterThan(249_000);

    const outcome = await receiveInbound(body, deps);

    expect(outcome).toMatchObject({ result: 'stored', stored: 1, failed: 0 });
    expect(store.ofKind('mo')).toHaveLength(1);
    expectPublishable(store);
    const claim = claimed(store, payloads);
    expect(claim.text).toBe(body);
    expect(claim.ref?.item).toBe(0);
    // The text itself fits an event once the raw copy is out.
    expect(claim.data).toMatchObject({ moKey: 'MO00000001', text });
  });

  it('publishes the event of a report with a 200 KB field (stored, but over 256 KB as an event)', async () => {
    const { store, payloads, deps } = setup();
    const body = JSON.stringify({
      rptCnt: 1,
      rptLst: [reportItem(2, { userCustomFields: { memo: 'm'.repeat(200_000) } })],
    });

    const outcome = await receiveReports(body, deps);

    expect(outcome).toMatchObject({ result: 'stored', stored: 1 });
    expectPublishable(store);
    const claim = claimed(store, payloads);
    expect(claim.text).toBe(body);
    expect(JSON.parse(claim.text ?? '{}').rptLst[0].userCustomFields.memo).toHaveLength(200_000);
  });

  it('leaves out the largest fields when even the typed fields exceed the bus limit', async () => {
    const { store, payloads, deps } = setup();
    const body = JSON.stringify({
      moCnt: '1',
      moLst: [moItem(3, { moMsg: '😀'.repeat(100_000), moTitle: 't'.repeat(10) })],
    });

    const outcome = await receiveInbound(body, deps);

    expect(outcome).toMatchObject({ result: 'stored', stored: 1 });
    expectPublishable(store);
    const claim = claimed(store, payloads);
    expect(claim.data.omitted).toEqual(['raw', 'text']);
    expect(claim.data).toMatchObject({ text: null, title: 'tttttttttt', moKey: 'MO00000003' });
    expect(claim.text).toBe(body);
  });

  it('keeps the attachment list of a large MO in the event, for fetch-attachments', async () => {
    const { store, deps } = setup();
    const contentInfoLst = [
      {
        contentName: 'a.jpg',
        contentSize: '100',
        contentExt: 'jpg',
        contentUrl: 'https://files/a',
      },
    ];
    const body = JSON.stringify({
      moCnt: '1',
      moLst: [moItem(4, { moMsg: '나'.repeat(90_000), contentCnt: '1', contentInfoLst })],
    });

    await receiveInbound(body, deps);

    const [detail] = store.details('mo');
    const raw = detail?.data.raw as { contentInfoLst?: unknown } | undefined;
    expect(raw?.contentInfoLst).toEqual(contentInfoLst);
    expect(store.ofKind('mo')[0]?.attachmentCount).toBe(1);
    const [record] = store.ofKind('mo');
    expect(attachmentsOf(record as unknown as Record<string, unknown>)).toEqual([
      expect.objectContaining({ moKey: 'MO00000004', index: 0, contentUrl: 'https://files/a' }),
    ]);
  });

  it('stores nothing new and writes no second object when a large body is redelivered', async () => {
    const { store, payloads, deps } = setup();
    const body = JSON.stringify({ moCnt: '1', moLst: [moItem(5, { moMsg: '다'.repeat(83_000) })] });
    await receiveInbound(body, deps);

    const again = await receiveInbound(body, deps);

    expect(again).toMatchObject({ result: 'stored', stored: 0, duplicates: 1 });
    expect(store.items.size).toBe(1);
    expect(payloads.objects.size).toBe(1);
  });

  it.each<[WebhookKind, string]>([
    ['report', 'x'.repeat(600_000)],
    ['mo', '\u0001'.repeat(300_000)],
    ['report', `{"rptLst":${JSON.stringify([{ bad: '라'.repeat(150_000) }])}}`],
    ['mo', JSON.stringify({ twoWay: '😀'.repeat(120_000) })],
  ])(
    'keeps a large %s body that does not parse whole: quarantined with the body in S3',
    async (kind, body) => {
      const { store, payloads, deps } = setup();

      const outcome = await receive(kind, body, deps);

      expect(outcome.result).toBe('stored');
      expect(outcome.quarantined + outcome.unrecognised).toBe(1);
      expect(store.items.size).toBe(1);
      expectPublishable(store);
      const [record] = [...store.items.values()];
      const ref = record?.payloadRef;
      expect(ref).toBeDefined();
      expect(payloads.objects.get(ref?.key ?? '')?.toString('utf8')).toBe(body);
      expect(JSON.parse(record?.detail ?? '{}').data.payloadRef).toEqual(ref);
    },
  );

  it('quarantines an item DynamoDB refuses for good instead of asking for it again forever', async () => {
    // Prepare: a msgKey longer than a partition key may be (2048 bytes).
    const { store, deps } = setup();
    const body = JSON.stringify({
      rptCnt: 2,
      rptLst: [reportItem(6, { msgKey: 'K'.repeat(3_000) }), reportItem(7)],
    });

    const outcome = await receiveReports(body, deps);

    expect(outcome).toMatchObject({ result: 'stored', stored: 1, quarantined: 1, failed: 0 });
    const [quarantined] = store.details('quarantine');
    expect(quarantined?.data.reason).toMatch(/refused/);
    expectPublishable(store);
  });

  it('asks for the body again when S3 fails, and stores it once the write works', async () => {
    const { store, payloads, deps } = setup();
    const body = JSON.stringify({ moCnt: '1', moLst: [moItem(8, { moMsg: '마'.repeat(83_000) })] });
    payloads.failNext(1);

    const first = await receiveInbound(body, deps);
    const second = await receiveInbound(body, deps);

    expect(first.result).toBe('retry');
    expect(store.items.size).toBe(1);
    expect(second).toMatchObject({ result: 'stored', stored: 1 });
  });

  it('survives an item nested too deeply to serialise: quarantined exactly as it was sent', async () => {
    const { store, payloads, deps } = setup();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const item = `{"msgKey":"M1","cliKey":"c","resultCode":"10000","userCustomFields":{"x":${deep}}}`;
    const body = `{"rptLst":[${item}]}`;

    const outcome = await receiveReports(body, deps);

    expect(outcome.result).toBe('stored');
    expect(store.items.size).toBe(1);
    const [record] = [...store.items.values()];
    expect(record?.kind).toBe('quarantine');
    const kept =
      record?.payload ?? payloads.objects.get(record?.payloadRef?.key ?? '')?.toString('utf8');
    expect(kept).toBe(item);
    expectPublishable(store);
  });
});
