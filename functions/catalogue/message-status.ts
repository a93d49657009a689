/**
 * A message's status as its delivery reports establish it, and the order in which a report may
 * move it: "success uncertain" (`32114`, "may still arrive within 3 days") is outranked by any
 * final result, and a delivery outranks a failure reported for the same message (an earlier
 * channel's, say). A message's status is the highest of its stored reports' (the event store's
 * `messageStatus`), so a later report of a lower rank leaves it where it is; every "Delivery
 * Report Received" carries it, as `publish-events` reads it, in `messageStatus` (docs/events.md).
 */

/** The statuses, lowest rank first. */
export const MESSAGE_STATUSES = ['uncertain', 'failed', 'delivered'] as const;
export type MessageStatusName = (typeof MESSAGE_STATUSES)[number];

/** What one report says of its message, by its result code (field notes: `10000` delivered). */
export const reportedStatus = (resultCode: string): MessageStatusName =>
  resultCode === '10000' ? 'delivered' : resultCode === '32114' ? 'uncertain' : 'failed';

/** 1 for the lowest status, up to 3 for `delivered`. */
export const statusRank = (status: MessageStatusName): number =>
  MESSAGE_STATUSES.indexOf(status) + 1;

/** The higher of two statuses (`current` absent: `reported`). */
export const statusAfter = (
  current: MessageStatusName | undefined,
  reported: MessageStatusName,
): MessageStatusName =>
  current !== undefined && statusRank(current) > statusRank(reported) ? current : reported;
