import { quarantinedItem, unrecognisedBody } from '../catalogue/body-events.ts';
import type { PayloadRef } from '../catalogue/catalogue.ts';
import { buildEventDetail } from '../catalogue/envelope.ts';
import { eventKeys, idempotencyKeys } from '../commons/table-keys.ts';
import { type EventRecord, toEventRecord } from '../event-table/event-record.ts';
import {
  cutToJsonBytes,
  ITEM_BUDGET_BYTES,
  itemBytes,
  utf8Bytes,
} from '../event-table/item-size.ts';
import { envelopeFields, type ItemContext, sha256 } from './item-context.ts';

/*
 * The records of what could not be read: a quarantined item or body, and a body that is neither a
 * report nor an MO list. Imported by the first such record (`item-records.ts`), so a receiver's
 * cold start reads neither this code nor the schemas of its two events.
 */

/** Quarantined text an event carries, counted as JSON in UTF-8 (escapes included). */
const MAX_EVENT_TEXT = 64 * 1024;
const MAX_REASON_TEXT = 4 * 1024;
const MAX_TOP_LEVEL_KEYS_TEXT = 8 * 1024;

/**
 * A quarantined item (`index`) or body (`null`): its text is kept whole in the item's `payload`,
 * or in the payload bucket when the item would be too large or the text could not be made
 * (`undefined`: an item nested too deeply to serialise; the body holds it at `index`).
 */
export const quarantineRecord = async (
  context: ItemContext,
  raw: string | undefined,
  index: number | null,
  reason: string,
): Promise<EventRecord> => {
  const rawSha256 = sha256(raw ?? `${context.bodySha256}#${index ?? 'body'}`);
  const idempotencyKey = idempotencyKeys.quarantine(
    context.kind,
    context.bodySha256,
    index,
    rawSha256,
  );
  const shown = cutToJsonBytes(raw ?? '', MAX_EVENT_TEXT);
  return withPayload(context, raw, index, (payloadRef) => ({
    ...toEventRecord(
      {
        ...eventKeys.quarantine(rawSha256, context.kind, context.bodySha256, index),
        kind: 'quarantine',
      },
      buildEventDetail(quarantinedItem, {
        ...envelopeFields(context, idempotencyKey),
        data: {
          webhook: context.kind,
          reason: cutToJsonBytes(reason, MAX_REASON_TEXT),
          index,
          bodySha256: context.bodySha256,
          raw: shown,
          truncated: raw === undefined || shown.length < raw.length,
          ...(payloadRef ? { payloadRef } : {}),
        },
      }),
      context.retentionDays,
    ),
  }));
};

export const unrecognisedRecord = async (
  context: ItemContext,
  text: string,
  value: unknown,
): Promise<EventRecord> => {
  const idempotencyKey = idempotencyKeys.unrecognised(context.kind, context.bodySha256);
  const keys =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  // As many top-level keys as fit 8 KiB: a body with a million keys still makes an event.
  let budget = MAX_TOP_LEVEL_KEYS_TEXT;
  const topLevelKeys = keys.filter((key) => {
    budget -= utf8Bytes(JSON.stringify(key)) + 1;
    return budget >= 0;
  });
  const body = cutToJsonBytes(text, MAX_EVENT_TEXT);
  return withPayload(context, text, null, (payloadRef) =>
    toEventRecord(
      { ...eventKeys.unrecognised(context.bodySha256, context.kind), kind: 'unrecognised' },
      buildEventDetail(unrecognisedBody, {
        ...envelopeFields(context, idempotencyKey),
        data: {
          webhook: context.kind,
          bodySha256: context.bodySha256,
          topLevelKeys,
          body,
          truncated: body.length < text.length,
          ...(payloadRef ? { payloadRef } : {}),
        },
      }),
      context.retentionDays,
    ),
  );
};

/**
 * The record with the whole text in its `payload` when the item stays within its budget;
 * otherwise (or without a text) the body goes to the payload bucket and the record and its event
 * carry `payloadRef` instead.
 */
const withPayload = async (
  context: ItemContext,
  text: string | undefined,
  index: number | null,
  build: (payloadRef: PayloadRef | undefined) => EventRecord,
): Promise<EventRecord> => {
  if (text !== undefined) {
    const inline = { ...build(undefined), payload: text };
    if (itemBytes(inline) <= ITEM_BUDGET_BYTES) return inline;
  }
  const payloadRef: PayloadRef = { ...(await context.claim()), item: index };
  return { ...build(payloadRef), payloadRef };
};
