import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { maskPhone, maskPhonesDeep, PHONE_FIELDS } from '../functions/commons/helpers/mask.ts';
import { KEY_PREFIX, parsePartitionKey } from '../functions/commons/table-keys.ts';
import { storedDetail } from '../functions/event-table/stored-detail.ts';
import { scanKeyPrefixes } from './event-scan.ts';

/*
 * Finding messages by a phone number. The event table is keyed by cliKey, msgKey and moKey, and a
 * stored event keeps the number inside its detail (deflated when large), so the only way from a
 * number to its messages is a Scan that reads each item's detail: slow and billed per item read,
 * which is why it stops after `maxItems`.
 */

/** Masks the phone numbers in a value (a trace masks every one by default). */
export type PhoneMask = (value: unknown) => unknown;

/** The digits of a phone number as entered (`010-1234-5678`, `+82 10 …`, `01012345678`). */
export const phoneDigits = (entered: string): string | undefined => {
  const trimmed = entered.trim();
  if (!/^\+?[\d\s-]{8,20}$/.test(trimmed)) return undefined;
  const digits = trimmed.replace(/\D/g, '');
  // +82 10 … is 010 …
  const national =
    digits.startsWith('82') && trimmed.startsWith('+') ? `0${digits.slice(2)}` : digits;
  return national.length >= 8 && national.length <= 12 ? national : undefined;
};

const looksLikePhone = (value: string): boolean => /^\+?[\d\s-]{8,20}$/.test(value.trim());

const sameNumber = (value: string, digits: string): boolean =>
  looksLikePhone(value) && phoneDigits(value) === digits;

/** Whether any string in `value` is the number `digits`. */
const mentions = (value: unknown, digits: string): boolean => {
  if (typeof value === 'string') return sameNumber(value, digits);
  if (Array.isArray(value)) return value.some((inner) => mentions(inner, digits));
  if (value !== null && typeof value === 'object')
    return Object.values(value).some((inner) => mentions(inner, digits));
  return false;
};

/**
 * A mask that shows the number `digits` in full wherever it stands alone and masks every other
 * phone number: for the operator who searched for that number.
 */
export const revealingMask =
  (digits: string): PhoneMask =>
  (value) => {
    const walk = (inner: unknown, field?: string): unknown => {
      if (typeof inner === 'string') {
        if (sameNumber(inner, digits)) return inner;
        return field !== undefined && PHONE_FIELDS.has(field) && inner !== '*'
          ? maskPhone(inner)
          : maskPhonesDeep(inner);
      }
      if (Array.isArray(inner)) return inner.map((item) => walk(item));
      if (inner !== null && typeof inner === 'object') {
        return Object.fromEntries(
          Object.entries(inner).map(([key, item]) => [key, walk(item, key)]),
        );
      }
      return inner;
    };
    return walk(value);
  };

/** A message that names the number, by the key its trace starts from. */
export interface PhoneMatch {
  readonly kind: 'cliKey' | 'msgKey' | 'moKey';
  readonly key: string;
  readonly at: string | undefined;
  readonly type: string | undefined;
}

export interface PhoneSearchResult {
  readonly matches: readonly PhoneMatch[];
  /** Items read; the scan stopped early when it reached `maxItems`. */
  readonly scanned: number;
  readonly complete: boolean;
}

/** The key a match is found by, and its value: a report is found by its cliKey when it has one. */
const keyOf = (
  pk: string,
  data: Record<string, unknown>,
): { readonly kind: PhoneMatch['kind']; readonly key: string } | undefined => {
  const parsed = parsePartitionKey(pk);
  if (parsed.kind === 'send') return { kind: 'cliKey', key: parsed.cliKey };
  if (parsed.kind === 'report')
    return typeof data.cliKey === 'string'
      ? { kind: 'cliKey', key: data.cliKey }
      : { kind: 'msgKey', key: parsed.msgKey };
  if (parsed.kind === 'mo') return { kind: 'moKey', key: parsed.moKey };
  return undefined;
};

/**
 * The messages whose stored events name the number `digits` (sends, reports, inbound messages),
 * one per key, newest first; reads at most `maxItems` items.
 */
export const findByPhone = async (
  documents: DynamoDBDocumentClient,
  table: string,
  digits: string,
  options: { readonly maxItems?: number } = {},
): Promise<PhoneSearchResult> => {
  const maxItems = options.maxItems ?? 100_000;
  const found = new Map<string, PhoneMatch>();
  const prefixes = { send: KEY_PREFIX.send, report: KEY_PREFIX.report, mo: KEY_PREFIX.mo };
  const extent = await scanKeyPrefixes(documents, table, prefixes, maxItems, (item) => {
    const text = storedDetail(item);
    if (text === undefined) return;
    let detail: { data?: Record<string, unknown>; metadata?: { receivedAt?: string } };
    try {
      detail = JSON.parse(text);
    } catch {
      return;
    }
    const data = detail.data ?? {};
    if (!mentions(data, digits)) return;
    const pk = String(item.pk);
    const match = keyOf(pk, data);
    if (match === undefined) return;
    const { kind, key } = match;
    const entry: PhoneMatch = {
      kind,
      key,
      at: detail.metadata?.receivedAt,
      type: typeof item.detailType === 'string' ? item.detailType : undefined,
    };
    const seen = found.get(`${kind}:${key}`);
    if (seen === undefined || (entry.at ?? '') < (seen.at ?? ''))
      found.set(`${kind}:${key}`, entry);
  });
  const matches = [...found.values()].sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''));
  return { matches, ...extent };
};
