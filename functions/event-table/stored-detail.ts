import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { EventRecord } from './event-record.ts';
import { itemBytes } from './item-size.ts';

/*
 * How an event item keeps its event detail in the table. DynamoDB bills a write per started KB of
 * the item, and a delivery report's detail (the normalised fields beside the gateway's raw item)
 * takes an item just past 1 KB. An item that would be larger than 1 KB keeps its detail deflated
 * (raw DEFLATE, RFC 1951) in the binary attribute `detailZ` instead of `detail`: a report item of
 * about 1.2 KB becomes about 0.6 KB, one write unit instead of two. The event itself is unchanged;
 * whoever reads a stored item (the publisher from the stream, `fetch-attachments`, the CLI) reads
 * its detail through `storedDetail`, which takes either form, so items written before are read
 * alike.
 */

/** The binary attribute holding a deflated detail. */
export const DETAIL_ZIP_ATTRIBUTE = 'detailZ';

/** DynamoDB's write unit: 1 KB of item. */
const WRITE_UNIT_BYTES = 1024;

/**
 * The item to write for `record`: as it is when it fits one write unit, else with its detail
 * deflated into `detailZ` (when that makes it smaller).
 */
export const storedItem = (record: EventRecord): Record<string, unknown> => {
  if (itemBytes(record) <= WRITE_UNIT_BYTES) return record;
  const { detail, ...rest } = record;
  const zipped = deflateRawSync(Buffer.from(detail, 'utf8'), { level: 9 });
  if (zipped.byteLength >= Buffer.byteLength(detail, 'utf8')) return record;
  return { ...rest, [DETAIL_ZIP_ATTRIBUTE]: new Uint8Array(zipped) };
};

/**
 * The event detail (JSON text) of a stored item, whichever form it was written in; `undefined`
 * when it has none. A deflated detail arrives as bytes from the SDK and as base64 text in a
 * Lambda stream event's image.
 */
export const storedDetail = (item: Readonly<Record<string, unknown>>): string | undefined => {
  if (typeof item.detail === 'string') return item.detail;
  const zipped = item[DETAIL_ZIP_ATTRIBUTE];
  const bytes =
    typeof zipped === 'string'
      ? Buffer.from(zipped, 'base64')
      : zipped instanceof Uint8Array
        ? zipped
        : undefined;
  if (bytes === undefined) return undefined;
  try {
    return inflateRawSync(bytes).toString('utf8');
  } catch {
    return undefined;
  }
};

/** The item with its detail as text (`detail`), whichever form it was stored in. */
export const withStoredDetail = <T extends Readonly<Record<string, unknown>>>(
  item: T,
): T & { detail?: string } => {
  if (typeof item.detail === 'string' || !(DETAIL_ZIP_ATTRIBUTE in item)) return item;
  const { [DETAIL_ZIP_ATTRIBUTE]: _zipped, ...rest } = item;
  const detail = storedDetail(item);
  return (detail === undefined ? item : { ...rest, detail }) as T & { detail?: string };
};
