import { CP949_ENCODABLE_BASE64 } from './cp949-table.ts';

const ENCODABLE = Buffer.from(CP949_ENCODABLE_BASE64, 'base64');

/** Whether CP949 encodes this one character (a code point; nothing beyond the BMP is). */
const encodable = (codePoint: number): boolean =>
  codePoint <= 0xffff && ((ENCODABLE[codePoint >> 3] ?? 0) & (1 << (codePoint & 7))) !== 0;

/**
 * Byte length the Korean carriers count: CP949 (EUC-KR superset), one byte for ASCII and two
 * for Hangul and other double-byte characters. A character CP949 cannot encode counts two bytes,
 * the way production clients count "any non-ASCII character"; use {@link isCp949Encodable} to
 * refuse such text where the channel cannot carry it (SMS, MMS).
 */
export const cp949ByteLength = (text: string): number => {
  let bytes = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    // An encodable non-ASCII character is two bytes, and so is one CP949 cannot encode.
    bytes += codePoint < 0x80 ? 1 : 2;
  }
  return bytes;
};

/** Characters of `text` that CP949 cannot encode, in order of appearance, without repeats. */
export const cp949UnencodableCharacters = (text: string): string[] => {
  const found = new Set<string>();
  for (const char of text) {
    if (!encodable(char.codePointAt(0) ?? 0)) found.add(char);
  }
  return [...found];
};

/** True when every character of `text` survives a CP949 round trip. */
export const isCp949Encodable = (text: string): boolean => {
  for (const char of text) if (!encodable(char.codePointAt(0) ?? 0)) return false;
  return true;
};
