import type { EventRecord } from '../../functions/events/event-record.ts';
import type { SendStore } from '../../functions/sending/ports.ts';

/** `inner`, pushing every event item it stores to `written`. */
export const recordingSendStore = (inner: SendStore, written: EventRecord[]): SendStore => ({
  recordedOutcomes: (keys) => inner.recordedOutcomes(keys),
  claim: (cliKey, owner, until) => inner.claim(cliKey, owner, until),
  release: (cliKey, owner) => inner.release(cliKey, owner),
  recordUnknown: (outcome) => inner.recordUnknown(outcome),
  putEvent: async (record) => {
    const result = await inner.putEvent(record);
    if (result === 'stored' && 'detailType' in record) written.push(record);
    return result;
  },
});
