// Goes once the sending slice imports the events slice, where the event-table item now lives.
export { type EventRecord, toEventRecord } from '../events/event-record.ts';
