import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanItems } from '../functions/commons/clients/dynamodb.ts';
import { maskPhonesDeep, maskPhonesInText } from '../functions/commons/helpers/mask.ts';
import { KEY_PREFIX, parsePartitionKey } from '../functions/commons/table-keys.ts';
import { storedDetail } from '../functions/event-table/stored-detail.ts';

/*
 * Quarantined items and unrecognised bodies: what a receiver or the poller stored raw because it
 * could not parse or validate it (design decision 12). They are keyed by the body's hash, so
 * listing them is a Scan of the event table.
 */

export interface QuarantinedItem {
  readonly pk: string;
  readonly sk: string;
  readonly kind: 'quarantine' | 'unrecognised';
  readonly at: string | undefined;
  readonly eventId: string | undefined;
  /** The webhook or job it came through (`report`, `mo`, `polling` …). */
  readonly source: string | undefined;
  readonly reason: string | undefined;
  /** The raw body as stored (phone numbers masked); `truncated` when the item held only a part. */
  readonly raw: string;
  readonly truncated: boolean;
  /** Where the whole body is kept when it did not fit the item (claim check). */
  readonly payloadRef: unknown;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * Why an unrecognised body was kept rather than read: it parsed, but as no body of the webhook's
 * contract (its event carries the top-level keys instead of a reason).
 */
const unrecognisedReason = (data: Record<string, unknown>): string => {
  const keys = Array.isArray(data.topLevelKeys)
    ? data.topLevelKeys.filter((key): key is string => typeof key === 'string')
    : [];
  return `a body of a shape msgbridge does not know${keys.length > 0 ? ` (top-level keys: ${keys.join(', ')})` : ''}; kept whole and answered as success`;
};

/** The quarantined items and unrecognised bodies, newest first (at most `limit`). */
export const listQuarantined = async (
  documents: DynamoDBDocumentClient,
  table: string,
  options: { readonly limit?: number } = {},
): Promise<QuarantinedItem[]> => {
  const items: QuarantinedItem[] = [];
  for await (const item of scanItems(documents, {
    TableName: table,
    FilterExpression: 'begins_with(pk, :quarantine) OR begins_with(pk, :unrecognised)',
    ExpressionAttributeValues: {
      ':quarantine': KEY_PREFIX.quarantine,
      ':unrecognised': KEY_PREFIX.unrecognised,
    },
  })) {
    let detail: { metadata?: Record<string, unknown>; data?: Record<string, unknown> } = {};
    try {
      detail = JSON.parse(storedDetail(item) ?? '{}');
    } catch {
      // The raw payload is still shown.
    }
    const data = detail.data ?? {};
    const raw = text(item.payload) ?? text(data.raw) ?? text(data.body) ?? '';
    const kind =
      parsePartitionKey(String(item.pk)).kind === 'quarantine' ? 'quarantine' : 'unrecognised';
    items.push({
      pk: String(item.pk),
      sk: String(item.sk),
      kind,
      at: text(item.receivedAt) ?? text(detail.metadata?.receivedAt),
      eventId: text(item.eventId),
      source: text(data.webhook) ?? text(data.source) ?? text(detail.metadata?.via),
      reason: text(data.reason) ?? (kind === 'unrecognised' ? unrecognisedReason(data) : undefined),
      raw: maskPhonesInText(raw),
      truncated: data.truncated === true,
      payloadRef: maskPhonesDeep(item.payloadRef ?? data.payloadRef),
    });
  }
  items.sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''));
  return options.limit === undefined ? items : items.slice(0, options.limit);
};
