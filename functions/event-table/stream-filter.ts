/**
 * Which event-table stream records become events: inserts of items that carry an event
 * (`detailType`). Send records, leases and other items of the table never reach the publisher.
 * The deployed event source mapping's filter; the local run evaluates it with Lambda's filtering
 * rules (`aws-semantics/lambda-event-filter.ts`).
 */
export const PUBLISHABLE_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { detailType: { S: [{ exists: true }] } } },
} as const;
