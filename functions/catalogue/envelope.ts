import { createHash } from 'node:crypto';
import type * as z from '../../gateway/schemas/zod.ts';
import { EVENT_TYPES, type EventMetadata, type EventTypeName, type Via } from './catalogue.ts';

/**
 * A name-based UUID (RFC 9562 version 8) from the idempotency key, so the same fact always gets
 * the same `metadata.id` — across webhook retries, polling redeliveries and archive replays.
 */
export const eventIdFor = (idempotencyKey: string): string => {
  const bytes = createHash('sha256').update(idempotencyKey, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export interface EventDetail<T extends EventTypeName> {
  readonly metadata: EventMetadata;
  readonly data: z.output<(typeof EVENT_TYPES)[T]['data']>;
}

/** Builds a validated event detail; throws when `data` breaks the published contract. */
export const buildEventDetail = <T extends EventTypeName>(
  type: T,
  input: {
    readonly idempotencyKey: string;
    readonly occurredAt: string;
    readonly receivedAt: string;
    readonly via: Via;
    readonly data: z.input<(typeof EVENT_TYPES)[T]['data']>;
  },
): EventDetail<T> => {
  const { detailType, data } = EVENT_TYPES[type];
  return {
    metadata: {
      id: eventIdFor(input.idempotencyKey),
      type: detailType,
      version: '1',
      occurredAt: input.occurredAt,
      receivedAt: input.receivedAt,
      via: input.via,
      idempotencyKey: input.idempotencyKey,
    },
    data: data.parse(input.data) as EventDetail<T>['data'],
  };
};
