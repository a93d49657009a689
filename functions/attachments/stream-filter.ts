import type { DynamoDBRecord } from 'aws-lambda';

/**
 * Which event-table stream records `fetch-attachments` receives: inserts of inbound messages
 * that carry attachments (`kind = 'mo'`, `attachmentCount > 0`). The deployed event source
 * mapping uses this pattern as its filter; the handler and the local stream poller use the
 * predicate below, which reads the same pattern.
 */
export const ATTACHMENT_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: {
    NewImage: {
      kind: { S: ['mo'] },
      attachmentCount: { N: [{ numeric: ['>', 0] }] },
    },
  },
} as const;

export const isAttachmentRecord = (record: DynamoDBRecord): boolean => {
  const image = record.dynamodb?.NewImage;
  return (
    ATTACHMENT_RECORD_PATTERN.eventName.includes(record.eventName as 'INSERT') &&
    ATTACHMENT_RECORD_PATTERN.dynamodb.NewImage.kind.S.includes(image?.kind?.S as 'mo') &&
    Number(image?.attachmentCount?.N) > 0
  );
};

/**
 * The handler's own guard, looser than the pattern: any inserted inbound message. Whether a
 * message has attachments the handler reads from the message itself, so an item without the
 * `attachmentCount` attribute costs one invocation, never an attachment.
 */
export const isInboundMessageInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.kind?.S === 'mo';
