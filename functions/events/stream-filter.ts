import type { DynamoDBRecord } from 'aws-lambda';

/**
 * Which event-table stream records become events: inserts of items that carry an event
 * (`detailType`). Send records, leases and other items of the table never reach the publisher.
 * The deployed event source mapping uses this pattern as its filter; the local stream poller uses
 * the predicate below, which reads the same pattern.
 */
export const PUBLISHABLE_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { detailType: { S: [{ exists: true }] } } },
} as const;

export const isPublishableRecord = (record: DynamoDBRecord): boolean =>
  PUBLISHABLE_RECORD_PATTERN.eventName.includes(record.eventName as 'INSERT') &&
  typeof record.dynamodb?.NewImage?.detailType?.S === 'string';
