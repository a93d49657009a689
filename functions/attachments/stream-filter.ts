import type { DynamoDBRecord } from 'aws-lambda';

/**
 * Which event-table stream records `fetch-attachments` receives: inserts of inbound messages
 * that carry attachments (`kind = 'mo'` with an `attachmentCount`, which is written only when the
 * message lists attachments). The deployed event source mapping's filter; the local run evaluates
 * it with Lambda's filtering rules (`aws-semantics/lambda-event-filter.ts`).
 *
 * A stream delivers the count as DynamoDB JSON, `{"N": "2"}`: a string, to which Lambda's
 * `numeric` operator never applies. So the rule is "present and not the string 0".
 */
export const ATTACHMENT_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: {
    NewImage: {
      kind: { S: ['mo'] },
      attachmentCount: { N: [{ 'anything-but': ['0'] }] },
    },
  },
} as const;

/**
 * The handler's own guard, looser than the pattern: any inserted inbound message. Whether a
 * message has attachments the handler reads from the message itself, so an item without the
 * `attachmentCount` attribute costs one invocation, never an attachment.
 */
export const isInboundMessageInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.kind?.S === 'mo';
