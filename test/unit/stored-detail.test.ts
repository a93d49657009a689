import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import { itemBytes } from '../../functions/event-table/item-size.ts';
import {
  DETAIL_ZIP_ATTRIBUTE,
  storedDetail,
  storedItem,
  withStoredDetail,
} from '../../functions/event-table/stored-detail.ts';

const record = (dataBytes: number): EventRecord => ({
  pk: 'REPORT#M-1',
  sk: 'RESULT#10000#SMS',
  kind: 'report',
  detailType: 'Delivery Report Received',
  detail: JSON.stringify({
    metadata: { id: 'id-1', type: 'Delivery Report Received' },
    data: { msgKey: 'M-1', note: '전송 성공 '.repeat(Math.ceil(dataBytes / 14)) },
  }),
  eventId: 'id-1',
  receivedAt: '2026-11-27T00:00:00.000Z',
  expiresAt: 1_800_000_000,
});

describe('the stored form of an event detail', () => {
  it('leaves an item of one write unit as it is', () => {
    const small = record(200);
    expect(itemBytes(small)).toBeLessThanOrEqual(1_024);
    expect(storedItem(small)).toBe(small);
  });

  it('deflates the detail of a larger item into detailZ, and reads it back exactly', () => {
    const large = record(2_000);
    const stored = storedItem(large);

    expect(stored.detail).toBeUndefined();
    expect(stored[DETAIL_ZIP_ATTRIBUTE]).toBeInstanceOf(Uint8Array);
    expect(itemBytes(stored)).toBeLessThan(itemBytes(large));
    expect(storedDetail(stored)).toBe(large.detail);
    expect(withStoredDetail(stored)).toEqual(large);
  });

  it('reads the base64 text a Lambda stream image carries for a binary attribute', () => {
    const stored = storedItem(record(2_000));
    const zipped = stored[DETAIL_ZIP_ATTRIBUTE] as Uint8Array;
    const image = { ...stored, [DETAIL_ZIP_ATTRIBUTE]: Buffer.from(zipped).toString('base64') };

    expect(storedDetail(image)).toBe(record(2_000).detail);
  });

  it('answers no detail for an item without one, or with bytes that do not inflate', () => {
    expect(storedDetail({ pk: 'SEND#k', sk: 'MESSAGE' })).toBeUndefined();
    expect(
      storedDetail({ [DETAIL_ZIP_ATTRIBUTE]: new Uint8Array([0xff, 0xff, 0xff]) }),
    ).toBeUndefined();
  });
});
