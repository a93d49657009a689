import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The DynamoDB client every table adapter shares, and how they read its refusals. */

// One client per container; it honours AWS_ENDPOINT_URL_DYNAMODB for the local run.
let sharedDocumentClient: DynamoDBDocumentClient | undefined;
export const documentClient = (): DynamoDBDocumentClient => {
  sharedDocumentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return sharedDocumentClient;
};

/**
 * True when a conditional write was refused because its condition did not hold. Checked by name
 * too, because a second copy of the SDK (a bundled dependency) throws its own class.
 */
export const isConditionalCheckFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof Error && error.name === 'ConditionalCheckFailedException');

/** True for DynamoDB's `ValidationException`: the request itself is refused, not the moment. */
export const isValidationFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ValidationException';
