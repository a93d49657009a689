/**
 * The event table's key layout and the idempotency keys (functions/commons/table-keys.ts): every
 * key is an injective encoding of its parts, also as DynamoDB stores it (UTF-8), and the keys the
 * gateway and producers use in practice are spelled plainly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moItem, reportItem } from '../../fixtures/gateway-bodies.ts';
import {
  decodeKeyPart,
  decodeOptionalKeyPart,
  encodeKeyPart,
  encodeOptionalKeyPart,
  eventKeys,
  idempotencyKeys,
  parseAttachmentKey,
  parsePartitionKey,
  parsePendingAttachmentKey,
  parseRateKey,
  parseResultKey,
  stateKeys,
} from '../../functions/commons/table-keys.ts';
import { receiveInbound, receiveReports } from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';

/** A string as DynamoDB keeps it: UTF-8, in which an unpaired surrogate becomes U+FFFD. */
const stored = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

/** Strings that favour what breaks keys: separators, escapes, the absent marker, lone surrogates. */
const part = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc
    .array(
      fc.constantFrom(
        '#',
        ':',
        '%',
        '-',
        '%25',
        '%2D',
        '%u',
        'u',
        'D800',
        '\ud800',
        '\udbff',
        '\udc00',
        '\udfff',
        '\ud83d\ude00',
        'a',
        '1',
        '#LOST',
      ),
      { maxLength: 8 },
    )
    .map((pieces) => pieces.join('')),
);
const optionalPart = fc.option(part, { nil: null });

/** Splits a key on its separator and decodes each part: a left inverse, hence injectivity. */
const partsOfKey = (key: string, separator: string) => key.split(separator);

describe('key parts', () => {
  it('decode to what was encoded, and never contain a separator or a lone surrogate', () => {
    fc.assert(
      fc.property(part, (value) => {
        const encoded = encodeKeyPart(value);
        expect(decodeKeyPart(stored(encoded))).toBe(value);
        expect(encoded).not.toMatch(/[#:]/);
        expect(stored(encoded)).toBe(encoded);
      }),
      { numRuns: 2_000 },
    );
  });

  it('tell an absent part from every string, the string "-" included', () => {
    fc.assert(
      fc.property(optionalPart, (value) => {
        expect(decodeOptionalKeyPart(stored(encodeOptionalKeyPart(value)))).toBe(value);
      }),
      { numRuns: 2_000 },
    );
    expect(encodeOptionalKeyPart(null)).not.toBe(encodeOptionalKeyPart('-'));
  });

  it('keep letters, digits and the punctuation keys use in practice as they are', () => {
    for (const value of ['M0000000001', 'c-0', 'order_1.a@b', '10000', 'SMS', '2026-11-28'])
      expect(encodeKeyPart(value)).toBe(value);
  });
});

describe('the event table keys', () => {
  it('are injective over their parts as DynamoDB stores them', () => {
    fc.assert(
      fc.property(part, part, optionalPart, (msgKey, resultCode, ch) => {
        const pk = stored(eventKeys.report(msgKey));
        const sk = stored(eventKeys.result(resultCode, ch));
        expect(parsePartitionKey(pk)).toEqual({ kind: 'report', msgKey });
        expect(parseResultKey(sk)).toEqual({ resultCode, ch });
        expect(parsePartitionKey(stored(eventKeys.mo(msgKey)))).toEqual({
          kind: 'mo',
          moKey: msgKey,
        });
        expect(parsePartitionKey(stored(eventKeys.send(msgKey)))).toEqual({
          kind: 'send',
          cliKey: msgKey,
        });
        expect(parsePendingAttachmentKey(stored(stateKeys.pendingAttachment(msgKey, 3)))).toEqual({
          moKey: msgKey,
          index: 3,
        });
      }),
      { numRuns: 2_000 },
    );
  });

  it('read the other kinds of item back', () => {
    expect(parseAttachmentKey(eventKeys.attachment(2))).toEqual({ index: 2, lost: false });
    expect(parseAttachmentKey(eventKeys.attachment(2, true))).toEqual({ index: 2, lost: true });
    expect(parseAttachmentKey('ATTACHMENT#x')).toBeUndefined();
    expect(parseRateKey(stateKeys.rate(1_790_000_000))).toEqual({
      window: 1_790_000_000,
      shard: undefined,
    });
    expect(parseRateKey(stateKeys.rate(1_790_000_000, 3))).toEqual({
      window: 1_790_000_000,
      shard: 3,
    });
    expect(parsePartitionKey('LEASE#poller')).toEqual({ kind: 'other', pk: 'LEASE#poller' });
    expect(parseResultKey('GUARD')).toBeUndefined();
  });

  it('read a key this layout did not build as no key of theirs', () => {
    expect(parsePartitionKey('REPORT#50%')).toEqual({ kind: 'other', pk: 'REPORT#50%' });
    expect(parseResultKey('RESULT#10000#SMS%')).toBeUndefined();
    expect(parseResultKey('RESULT#%2#SMS')).toBeUndefined();
    expect(parsePendingAttachmentKey('ATTACHMENT#M%#1')).toBeUndefined();
  });

  it('spell the keys the gateway and producers use plainly', () => {
    expect(eventKeys.report('M0000000001')).toBe('REPORT#M0000000001');
    expect(eventKeys.result('10000', 'SMS')).toBe('RESULT#10000#SMS');
    expect(eventKeys.result('10000', null)).toBe('RESULT#10000#-');
    expect(eventKeys.mo('MO-1')).toBe('MO#MO-1');
    expect(eventKeys.send('c-0')).toBe('SEND#c-0');
    expect(eventKeys.attachment(1, true)).toBe('ATTACHMENT#1#LOST');
    expect(stateKeys.rate(5, 0)).toBe('RATE#5#0');
    expect(idempotencyKeys.report('M1', '10000', 'SMS')).toBe('report:M1:10000:SMS');
    expect(idempotencyKeys.report('M1', '10000', null)).toBe('report:M1:10000:-');
    expect(idempotencyKeys.mo('MO-1')).toBe('mo:MO-1');
    expect(idempotencyKeys.send('c-0')).toBe('send:c-0');
  });
});

describe('the idempotency keys', () => {
  it('are injective over their parts, so metadata.id never names two events', () => {
    fc.assert(
      fc.property(part, part, optionalPart, (msgKey, resultCode, ch) => {
        const [kind, ...parts] = partsOfKey(
          stored(idempotencyKeys.report(msgKey, resultCode, ch)),
          ':',
        );
        expect(kind).toBe('report');
        expect(parts).toHaveLength(3);
        expect([
          decodeKeyPart(parts[0] ?? ''),
          decodeKeyPart(parts[1] ?? ''),
          decodeOptionalKeyPart(parts[2] ?? ''),
        ]).toEqual([msgKey, resultCode, ch]);
        const [moKind, moKey, ...rest] = partsOfKey(stored(idempotencyKeys.mo(msgKey)), ':');
        expect([moKind, decodeKeyPart(moKey ?? ''), rest]).toEqual(['mo', msgKey, []]);
      }),
      { numRuns: 2_000 },
    );
  });
});

const NOW = new Date('2026-11-28T00:00:00.000Z');
const deps = (store: FakeEventStore) => ({
  store,
  now: () => NOW,
  retentionDays: 35,
  concurrency: 4,
});

/** One webhook body of two reports, received into a new store. */
const receiveTwo = async (first: object, second: object) => {
  const store = new FakeEventStore();
  const body = { rptCnt: 2, rptLst: [first, second] };
  const outcome = await receiveReports(JSON.stringify(body), deps(store));
  return { store, outcome };
};

describe('distinct reports', () => {
  it('are two events when their result code and channel share a "#"', async () => {
    const { store, outcome } = await receiveTwo(
      { ...reportItem(0), msgKey: 'K', resultCode: '10000#SMS', ch: 'X' },
      { ...reportItem(0), msgKey: 'K', resultCode: '10000', ch: 'SMS#X' },
    );

    expect(outcome).toMatchObject({ stored: 2, duplicates: 0 });
    expect(store.details('report').map((detail) => detail.data.resultCode)).toEqual([
      '10000#SMS',
      '10000',
    ]);
  });

  it('are two events when their msgKeys differ only in an unpaired surrogate', async () => {
    const store = new FakeEventStore();
    // JSON escapes: the body is plain ASCII, the parsed msgKeys end in lone surrogates.
    const body = `{"rptCnt":2,"rptLst":[${JSON.stringify({ ...reportItem(0), msgKey: 'K' }).replace('"msgKey":"K"', '"msgKey":"K\\ud800"')},${JSON.stringify({ ...reportItem(0), msgKey: 'K' }).replace('"msgKey":"K"', '"msgKey":"K\\udbff"')}]}`;

    const outcome = await receiveReports(body, deps(store));

    expect(outcome).toMatchObject({ stored: 2, duplicates: 0 });
    const ids = store.details('report').map((detail) => detail.metadata.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('have different metadata.id when a msgKey and a result code share a ":"', async () => {
    const { store } = await receiveTwo(
      { ...reportItem(0), msgKey: 'K:b', resultCode: 'c', ch: 'SMS' },
      { ...reportItem(0), msgKey: 'K', resultCode: 'b:c', ch: 'SMS' },
    );

    const ids = store.details('report').map((detail) => detail.metadata.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('are two inbound messages when their moKeys differ only in an unpaired surrogate', async () => {
    const store = new FakeEventStore();
    const item = JSON.stringify({ ...moItem(0), moKey: 'M' });
    const body = `{"moCnt":2,"moLst":[${item.replace('"moKey":"M"', '"moKey":"M\\udc00"')},${item.replace('"moKey":"M"', '"moKey":"M\\udfff"')}]}`;

    const outcome = await receiveInbound(body, deps(store));

    expect(outcome).toMatchObject({ stored: 2, duplicates: 0 });
  });
});
