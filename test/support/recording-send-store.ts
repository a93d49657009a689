import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { SendStore } from '../../functions/send-records/ports.ts';

/** `inner`, pushing every event item it stores to `written`. */
export const recordingSendStore = (inner: SendStore, written: EventRecord[]): SendStore => ({
  recordedOutcomes: (keys) => inner.recordedOutcomes(keys),
  claim: (record, owner, until, info) => inner.claim(record, owner, until, info),
  release: (record, owner, maybeSent) => inner.release(record, owner, maybeSent),
  recordAccepted: (record, owner, accepted, options) =>
    inner.recordAccepted(record, owner, accepted, options),
  recordUnknown: (outcome) => inner.recordUnknown(outcome),
  pointToRejection: (rejection) => inner.pointToRejection(rejection),
  putEvent: async (record) => {
    const result = await inner.putEvent(record);
    if (result === 'stored' && 'detailType' in record) written.push(record);
    return result;
  },
});
