import { describe, expect, it } from 'vitest';
import {
  maskPhone,
  maskPhonesDeep,
  maskPhonesInText,
} from '../../functions/commons/helpers/mask.ts';
import {
  cp949ByteLength,
  cp949UnencodableCharacters,
  isCp949Encodable,
} from '../../protocol/cp949.ts';
import { formatKst, parseGatewayDateTime } from '../../protocol/kst.ts';

describe('cp949ByteLength', () => {
  it.each([
    ['ASCII counts one byte a character', 'Hello, 123!', 11],
    ['Hangul syllables count two bytes', '안녕하세요', 10],
    ['mixed text adds both', '[광고] sale 50%', 15],
    ['syllables outside KS X 1001 are still two bytes in CP949', '똠뷁', 4],
    ['an emoji CP949 cannot encode counts two bytes', '😀', 2],
    ['the empty string is zero', '', 0],
  ])('%s', (_, text, expected) => {
    expect(cp949ByteLength(text)).toBe(expected);
  });

  it('puts a 45-syllable text exactly at the 90-byte SMS limit', () => {
    expect(cp949ByteLength('가'.repeat(45))).toBe(90);
    expect(cp949ByteLength(`${'가'.repeat(45)}a`)).toBe(91);
  });
});

describe('isCp949Encodable', () => {
  it('accepts Hangul, ASCII and Hanja', () => {
    expect(isCp949Encodable('한글 ABC 漢字')).toBe(true);
  });

  it('refuses emoji and scripts CP949 lacks', () => {
    expect(isCp949Encodable('hi 😀')).toBe(false);
    expect(isCp949Encodable('ภาษาไทย')).toBe(false);
  });

  it('names each unencodable character once, in order', () => {
    expect(cp949UnencodableCharacters('a😀b🎉c😀')).toEqual(['😀', '🎉']);
    expect(cp949UnencodableCharacters('안녕')).toEqual([]);
  });
});

describe('parseGatewayDateTime', () => {
  // 2026-11-21 09:30:15 KST is 00:30:15 UTC.
  const expected = '2026-11-21T00:30:15.000Z';

  it.each([
    ['YYYY-MM-DD HH:mm:ss as KST', '2026-11-21 09:30:15', expected],
    ['YYYY-MM-DDTHH:mm:ss as KST', '2026-11-21T09:30:15', expected],
    ['YYYYMMDDHHmmss as KST', '20261121093015', expected],
    ['an explicit +09:00 zone', '2026-11-21T09:30:15+09:00', expected],
    ['a compact +0900 zone', '2026-11-21 09:30:15+0900', expected],
    ['UTC with Z', '2026-11-21T00:30:15Z', expected],
    ['surrounding whitespace', ' 2026-11-21 09:30:15 ', expected],
    ['a minutes-only value', '2026-11-21 09:30', '2026-11-21T00:30:00.000Z'],
    ['a compact minutes-only value', '202611210930', '2026-11-21T00:30:00.000Z'],
    ['a date-only value as its midnight KST', '2026-11-21', '2026-11-20T15:00:00.000Z'],
    ['fractions of a second, kept', '2026-11-21 09:30:15.25', '2026-11-21T00:30:15.250Z'],
    ['a KST time across the date line', '2027-01-01 05:00:00', '2026-12-31T20:00:00.000Z'],
  ])('reads %s', (_, input, instant) => {
    expect(parseGatewayDateTime(input)).toBe(instant);
  });

  it.each([
    '',
    'yesterday',
    '2026-02-30 10:00:00',
    '2026-13-01 00:00:00',
    '2026-11-21 24:00:00',
    '2026/11/21 09:30:15',
    '1732150215',
  ])('refuses %j', (input) => {
    expect(parseGatewayDateTime(input)).toBeUndefined();
  });
});

describe('formatKst', () => {
  const instant = new Date('2026-11-20T15:05:09Z'); // 2026-11-21 00:05:09 KST

  it('writes every pattern the gateway uses', () => {
    expect(formatKst(instant, 'YYYY-MM-DD HH:mm:ss')).toBe('2026-11-21 00:05:09');
    expect(formatKst(instant, 'YYYY-MM-DD HH:mm')).toBe('2026-11-21 00:05');
    expect(formatKst(instant, 'YYYY-MM-DD')).toBe('2026-11-21');
    expect(formatKst(instant.getTime(), 'YYYYMMDDHHmmss')).toBe('20261121000509');
  });

  it('round-trips through parseGatewayDateTime', () => {
    expect(parseGatewayDateTime(formatKst(instant, 'YYYYMMDDHHmmss'))).toBe(instant.toISOString());
  });
});

describe('masking phone numbers', () => {
  it.each([
    ['01012345678', '010****5678'],
    ['010-1234-5678', '010****5678'],
    ['0212345678', '021***5678'],
  ])('keeps the prefix and the last four digits of %j', (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
  });

  it('masks short values whole', () => {
    expect(maskPhone('1234')).toBe('****');
  });

  it('masks numbers inside free text', () => {
    expect(maskPhonesInText('call 010-1234-5678 now, order 12345')).toBe(
      'call 010****5678 now, order 12345',
    );
  });

  it('masks phone fields at any depth and leaves other fields alone', () => {
    const masked = maskPhonesDeep({
      cliKey: 'k1',
      recvInfoLst: [{ phone: '01012345678', mergeData: { name: '홍길동' } }],
      moCallback: '01099998888',
      callback: '*',
    });

    expect(masked).toEqual({
      cliKey: 'k1',
      recvInfoLst: [{ phone: '010****5678', mergeData: { name: '홍길동' } }],
      moCallback: '010****8888',
      callback: '*',
    });
  });
});
