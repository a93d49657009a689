import * as z from 'zod/mini';
import { payloadRefSchema } from '../catalogue/catalogue.ts';
import type { EventDetail } from '../catalogue/envelope.ts';
import type { EventTypeName } from '../catalogue/index.ts';
import { lazily } from '../commons/helpers/lazily.ts';

/**
 * One item of the event table that becomes one event: the one definition of its shape. The
 * publisher reads `detailType`, `detail` and `eventId` from the stream's new image (it parses
 * them with {@link publishedFieldsSchema}); items without `detailType` (send records, leases) are
 * filtered out before it runs.
 */
export const eventRecordSchema = lazily(() =>
  z.object({
    pk: z.string(),
    sk: z.string(),
    kind: z.enum([
      'report',
      'mo',
      'unrecognised',
      'quarantine',
      'send',
      'attachment',
      'status',
      'statistics',
    ]),
    detailType: z.string().check(z.minLength(1)),
    /** JSON of `{ metadata, data }`. */
    detail: z.string().check(z.minLength(2)),
    eventId: z.string(),
    receivedAt: z.string(),
    /** Epoch seconds; DynamoDB's TTL deletes the item after it. */
    expiresAt: z.number(),
    /** The whole raw text of a quarantined item or unrecognised body (the event carries at most 64 KiB). */
    payload: z.optional(z.string()),
    /**
     * Where the body is kept when this item or its event could not hold it (claim check); the
     * event's `data.payloadRef` says the same.
     */
    payloadRef: z.optional(payloadRefSchema()),
    /** Inbound messages with attachments: how many, so `fetch-attachments` can filter the stream on it. */
    attachmentCount: z.optional(z.number()),
    /** A "Message Accepted" item's keys, for `msgbridge trace` and `status`. */
    acceptedAt: z.optional(z.string()),
    msgKey: z.optional(z.string()),
    cliKey: z.optional(z.string()),
  }),
);

export type EventRecord = Readonly<z.output<ReturnType<typeof eventRecordSchema>>>;

/**
 * The fields that make a stored item's bus entry. Any other attribute (or its absence) does not
 * matter to the publisher and `msgbridge events republish`, which read items written by every
 * version of the bridge.
 */
export const publishedFieldsSchema = lazily(() =>
  z.pick(eventRecordSchema(), { detailType: true, detail: true, eventId: true }),
);

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
