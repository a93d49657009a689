/** A whole DynamoDB table read back, for tests that check what landed in it. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanItems as itemsOf } from '../../functions/commons/clients/dynamodb.ts';

/** Every item of `table`, every page of the scan (the bridge's own paged scan). */
export const scanItems = async (
  documents: DynamoDBDocumentClient,
  table: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for await (const item of itemsOf(documents, { TableName: table })) items.push(item);
  return items;
};
