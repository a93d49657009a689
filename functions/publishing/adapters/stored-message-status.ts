import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbEventStore } from '../../event-table/dynamodb-event-store.ts';
import type { ReadMessageStatus } from '../message-status-at-publication.ts';

/**
 * A message's status from its reports in the event table (`DynamoDbEventStore.messageStatus`, one
 * strongly consistent Query): what `publish-events` and `msgbridge events republish` put in each
 * report's `data.messageStatus`.
 */
export const storedMessageStatus = (
  tableName: string,
  documents?: DynamoDBDocumentClient,
): ReadMessageStatus => {
  const store = new DynamoDbEventStore(tableName, documents);
  return async (msgKey) => (await store.messageStatus(msgKey))?.state;
};
