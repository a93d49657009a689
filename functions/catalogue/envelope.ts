import { createHash } from 'node:crypto';
import type * as z from '../../gateway/schemas/zod.ts';
import type { EVENT_TYPES, EventMetadata, EventTypeName, Via } from './index.ts';

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

/** The type of the catalogue named `T`. */
type EventTypeOf<T extends EventTypeName> = (typeof EVENT_TYPES)[T];

/** Any type of the catalogue. */
export type AnyEventType = EventTypeOf<EventTypeName>;

/** What {@link buildEventDetail} needs to build an event of type `T`. */
export interface EventInput<T extends EventTypeName> {
  readonly idempotencyKey: string;
  readonly occurredAt: string;
  readonly receivedAt: string;
  readonly via: Via;
  readonly data: z.input<EventTypeOf<T>['data']>;
}

/**
 * Builds a validated event detail of the type `event` (a constant of the catalogue, named so that
 * a bundle carries only the schemas of the events its function emits); throws when `data` breaks
 * the published contract.
 */
export const buildEventDetail = <E extends AnyEventType>(
  event: E,
  input: EventInput<E['name']>,
): EventDetail<E['name']> => ({
  metadata: {
    id: eventIdFor(input.idempotencyKey),
    type: event.detailType,
    version: '1',
    occurredAt: input.occurredAt,
    receivedAt: input.receivedAt,
    via: input.via,
    idempotencyKey: input.idempotencyKey,
  },
  data: event.data.parse(input.data) as EventDetail<E['name']>['data'],
});
