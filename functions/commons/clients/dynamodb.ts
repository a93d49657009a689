import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';

/** The DynamoDB client every table adapter shares, and how they read its refusals. */

// One client per container; it honours AWS_ENDPOINT_URL_DYNAMODB for the local run. In Lambda its
// calls carry the invocation's trace header (the SDK's own), which links nothing: DynamoDB Streams
// do not pass it on (docs/operations.md, "Tracing").
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

/**
 * Runs a conditional write and answers `refused` instead when DynamoDB turns it down because its
 * condition did not hold (someone else's write stands); any other failure is thrown.
 */
export const whenConditionFails = async <T, F>(
  write: () => Promise<T>,
  refused: F,
): Promise<T | F> => {
  try {
    return await write();
  } catch (error) {
    if (isConditionalCheckFailure(error)) return refused;
    throw error;
  }
};

/** True when the conditional write was applied, false when its condition did not hold. */
export const conditionalWrite = (write: () => Promise<unknown>): Promise<boolean> =>
  whenConditionFails(async () => {
    await write();
    return true;
  }, false);

/** Where a Scan or Query goes on from: the `LastEvaluatedKey` of the page before (none at first). */
export type StartKey = Record<string, unknown> | undefined;

/**
 * The pages of a Scan or Query, each read only when the loop asks for it, so a caller that has
 * its answer leaves the loop without reading the rest. `read` builds the call from the start key.
 */
export async function* pagesOf<P extends { readonly LastEvaluatedKey?: Record<string, unknown> }>(
  read: (start: StartKey) => Promise<P>,
): AsyncGenerator<P> {
  let start: StartKey;
  do {
    const page = await read(start);
    yield page;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
}

/** The items of a Scan, read a page at a time as the loop asks for them (see {@link pagesOf}). */
export async function* scanItems(
  client: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, unknown>> {
  const pages = pagesOf((start) =>
    client.send(new ScanCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) })),
  );
  for await (const page of pages) yield* page.Items ?? [];
}
