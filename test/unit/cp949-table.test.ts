import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import {
  cp949ByteLength,
  cp949UnencodableCharacters,
  isCp949Encodable,
} from '../../protocol/cp949.ts';
import { renderCp949Table } from '../../scripts/cp949-table.ts';

/** The reference the table replaces: iconv-lite's CP949 codec. */
const survivesRoundTrip = (text: string): boolean =>
  iconv.decode(iconv.encode(text, 'cp949'), 'cp949') === text;
const referenceBytes = (text: string): number => {
  let bytes = 0;
  for (const char of text) {
    if ((char.codePointAt(0) ?? 0) < 0x80) bytes += 1;
    else bytes += survivesRoundTrip(char) ? iconv.encode(char, 'cp949').length : 2;
  }
  return bytes;
};

describe('the CP949 table', () => {
  it('is the table iconv-lite renders today (npm run cp949:table writes it)', () => {
    const committed = readFileSync(
      join(import.meta.dirname, '..', '..', 'protocol', 'cp949-table.ts'),
      'utf8',
    );
    expect(committed).toBe(renderCp949Table());
  });

  it('agrees with iconv-lite on every BMP character, and on characters beyond it', () => {
    const disagreements: string[] = [];
    const codePoints = [
      ...Array.from({ length: 0x10000 }, (_, codePoint) => codePoint),
      0x10000,
      0x1f600,
      0x20000,
      0x10ffff,
    ];
    for (const codePoint of codePoints) {
      const char = String.fromCodePoint(codePoint);
      const encodable = survivesRoundTrip(char);
      if (
        isCp949Encodable(char) !== encodable ||
        cp949ByteLength(char) !== referenceBytes(char) ||
        cp949UnencodableCharacters(char).length !== (encodable ? 0 : 1)
      )
        disagreements.push(`U+${codePoint.toString(16).padStart(4, '0')}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('agrees with iconv-lite on mixed texts, lone surrogates included', () => {
    let seed = 949;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const pools = [
      [0x20, 0x7e],
      [0xac00, 0xd7a3],
      [0x4e00, 0x9fff],
      [0x80, 0x2fff],
      [0xd800, 0xdfff],
      [0xe000, 0xffff],
    ] as const;
    for (let sample = 0; sample < 2_000; sample++) {
      let text = '';
      for (let i = next() % 12; i >= 0; i--) {
        const [from, to] = pools[next() % pools.length] ?? [0x20, 0x7e];
        text += String.fromCharCode(from + (next() % (to - from + 1)));
      }
      if (next() % 10 === 0) text += '😀';
      expect({ text, encodable: isCp949Encodable(text), bytes: cp949ByteLength(text) }).toEqual({
        text,
        encodable: survivesRoundTrip(text),
        bytes: referenceBytes(text),
      });
    }
  });
});
