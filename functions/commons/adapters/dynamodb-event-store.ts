// Goes once the sending and reconcile adapters import the events slice, where these now live.

export {
  documentClient,
  isConditionalCheckFailure,
  isValidationFailure,
} from '../../events/dynamodb-document-client.ts';
export { DynamoDbEventStore } from '../../events/dynamodb-event-store.ts';
