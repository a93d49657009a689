import { createHash } from 'node:crypto';
import type * as z from '../../gateway/schemas/zod.ts';
import type { Via, WebhookKindSchema } from '../catalogue/catalogue.ts';
import type { StoredPayload } from '../event-table/ports.ts';

/*
 * What the records of one body share: its context, the envelope of its events, the hash that keys
 * a body and a quarantined item. Apart from the records themselves so that the records of what
 * could not be read (`body-records.ts`, imported on first use) and the others (`item-records.ts`)
 * both use it.
 */

/** What every record of one body shares. */
export interface ItemContext {
  /** Which webhook the body came to (or stands for, when polled). */
  readonly kind: z.infer<typeof WebhookKindSchema>;
  readonly receivedAt: string;
  readonly via: Via;
  readonly bodySha256: string;
  readonly retentionDays: number;
  /** Writes the body to the payload bucket (once per body, however many items need it). */
  readonly claim: () => Promise<StoredPayload>;
}

/** The envelope fields every event of this body shares; `occurredAt` defaults to the receipt. */
export const envelopeFields = (
  context: ItemContext,
  idempotencyKey: string,
  occurredAt: string | null = null,
) => ({
  idempotencyKey,
  occurredAt: occurredAt ?? context.receivedAt,
  receivedAt: context.receivedAt,
  via: context.via,
});

/** Hex SHA-256 of a text's UTF-8 bytes (or of bytes): the key of a body and of a quarantined item. */
export const sha256 = (text: string | Uint8Array): string =>
  createHash('sha256')
    .update(typeof text === 'string' ? Buffer.from(text, 'utf8') : text)
    .digest('hex');

/** The JSON of an item, or `undefined` when it is nested too deeply to serialise. */
export const stringify = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
};
