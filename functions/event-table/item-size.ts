/**
 * The limits a received item must fit, and sizes measured the way the services measure them.
 *
 * DynamoDB refuses an item over 400 KB (409,600 bytes) counting the UTF-8 bytes of every
 * attribute name and value; EventBridge refuses a PutEvents entry over 256 KiB counting the UTF-8
 * bytes of source, detail-type and detail plus 14 bytes for the time. Both are permanent refusals:
 * no retry makes a too-large item fit, so the receivers measure before they write.
 */

/**
 * What a received item may use of DynamoDB's 400 KiB item limit: the rest stays free for the attributes written onto the
 * item later (the attachment markers of `fetch-attachments`, say), so an update never fails on size.
 */
export const ITEM_BUDGET_BYTES = 300 * 1024;
/**
 * What an event's detail may use of PutEvents' 256 KiB entry: 1 KiB is left for the source (at
 * most 256 bytes), the detail-type (at most 128 bytes) and the time (14 bytes).
 */
export const DETAIL_BUDGET_BYTES = 256 * 1024 - 1024;

/** UTF-8 bytes of a string (a lone surrogate counts as the 3-byte replacement it is sent as). */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The size DynamoDB counts for an attribute value: strings and binaries by their bytes, numbers at
 * their worst case (21 bytes: 38 significant digits), booleans and nulls 1 byte, lists and maps
 * 3 bytes plus 1 byte per element plus the elements (and, for maps, their names).
 */
export const attributeValueBytes = (value: unknown): number => {
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number' || typeof value === 'bigint') return 21;
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value))
    return value.reduce<number>((sum, element) => sum + 1 + attributeValueBytes(element), 3);
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, inner]) =>
        inner === undefined ? sum : sum + 1 + utf8Bytes(name) + attributeValueBytes(inner),
      3,
    );
  return 0;
};

/** The size DynamoDB counts for an item: names and values of its attributes (undefined ones are not sent). */
export const itemBytes = (item: object): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) =>
      value === undefined ? sum : sum + utf8Bytes(name) + attributeValueBytes(value),
    0,
  );

/**
 * The longest prefix of `text` whose JSON string literal (quotes excluded) takes at most
 * `maxBytes` of UTF-8, never splitting a surrogate pair. Counts what `JSON.stringify` writes: two
 * bytes for `\"`, `\\` and the short escapes, six for other control characters and lone
 * surrogates, one to four bytes for the rest.
 */
export const cutToJsonBytes = (text: string, maxBytes: number): string => {
  let used = 0;
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    let width = 1;
    let size: number;
    if (unit === 0x22 || unit === 0x5c) size = 2;
    else if (unit < 0x20) size = [0x08, 0x09, 0x0a, 0x0c, 0x0d].includes(unit) ? 2 : 6;
    else if (unit < 0x80) size = 1;
    else if (unit < 0x800) size = 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        size = 4;
        width = 2;
      } else size = 6;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) size = 6;
    else size = 3;
    if (used + size > maxBytes) break;
    used += size;
    index += width;
  }
  return text.slice(0, index);
};
