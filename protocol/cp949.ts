import iconv from 'iconv-lite';

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
    if (codePoint < 0x80) bytes += 1;
    else bytes += isCp949Encodable(char) ? iconv.encode(char, 'cp949').length : 2;
  }
  return bytes;
};

/** Characters of `text` that CP949 cannot encode, in order of appearance, without repeats. */
export const cp949UnencodableCharacters = (text: string): string[] => {
  const found = new Set<string>();
  for (const char of text) {
    if ((char.codePointAt(0) ?? 0) >= 0x80 && !isCp949Encodable(char)) found.add(char);
  }
  return [...found];
};

/** True when every character of `text` survives a CP949 round trip. */
export const isCp949Encodable = (text: string): boolean =>
  iconv.decode(iconv.encode(text, 'cp949'), 'cp949') === text;
