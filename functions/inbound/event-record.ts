import type { EventTypeName, PayloadRef } from '../events/catalogue.ts';
import type { EventDetail } from '../events/envelope.ts';

/**
 * One item of the event table that becomes one event. The publisher reads `detailType` and
 * `detail` from the stream's new image; items without `detailType` (send records, leases) are
 * filtered out before it runs.
 */
export interface EventRecord {
  readonly pk: string;
  readonly sk: string;
  readonly kind:
    | 'report'
    | 'mo'
    | 'unrecognised'
    | 'quarantine'
    | 'send'
    | 'attachment'
    | 'status'
    | 'statistics';
  readonly detailType: string;
  /** JSON of `{ metadata, data }`. */
  readonly detail: string;
  readonly eventId: string;
  readonly receivedAt: string;
  /** Epoch seconds; DynamoDB's TTL deletes the item after it. */
  readonly expiresAt: number;
  /** The whole raw text of a quarantined item or unrecognised body (the event carries at most 64 KiB). */
  readonly payload?: string;
  /**
   * Where the body is kept when this item or its event could not hold it (claim check); the
   * event's `data.payloadRef` says the same.
   */
  readonly payloadRef?: PayloadRef;
  /** Inbound messages with attachments: how many, so `fetch-attachments` can filter the stream on it. */
  readonly attachmentCount?: number;
  /** Accepted sends: the `awaiting-report` index keys (see `AWAITING_REPORT_INDEX`). */
  readonly awaitingReportBucket?: string;
  readonly acceptedAt?: string;
  readonly msgKey?: string;
  readonly cliKey?: string;
}

export const toEventRecord = <T extends EventTypeName>(
  keys: { readonly pk: string; readonly sk: string; readonly kind: EventRecord['kind'] },
  detail: EventDetail<T>,
  retentionDays: number,
): EventRecord => ({
  ...keys,
  detailType: detail.metadata.type,
  detail: JSON.stringify(detail),
  eventId: detail.metadata.id,
  receivedAt: detail.metadata.receivedAt,
  expiresAt: Math.floor(Date.parse(detail.metadata.receivedAt) / 1000) + retentionDays * 86_400,
});
