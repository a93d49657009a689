import { buildEventDetail, type EventInput } from '../../functions/catalogue/envelope.ts';
import { EVENT_TYPES, type EventTypeName, type Via } from '../../functions/catalogue/index.ts';

/** An event as EventBridge delivers it, around a detail built by the publisher's own code. */
export const busEvent = <T extends EventTypeName>(
  type: T,
  data: EventInput<T>['data'],
  options: { readonly source?: string; readonly via?: Via } = {},
) => ({
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': EVENT_TYPES[type].detailType,
  source: options.source ?? 'msgbridge',
  account: '111122223333',
  time: '2026-11-27T00:00:00Z',
  region: 'ap-northeast-2',
  resources: [],
  detail: buildEventDetail(EVENT_TYPES[type], {
    idempotencyKey: `${type}:1`,
    occurredAt: '2026-11-27T00:00:00.000Z',
    receivedAt: '2026-11-27T00:00:01.000Z',
    via: options.via ?? 'webhook',
    data,
  }),
});
