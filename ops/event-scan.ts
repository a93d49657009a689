import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanItems } from '../functions/commons/clients/dynamodb.ts';

/** How far a Scan bounded by a number of items got. */
export interface ScanExtent {
  /** Items read (at most the bound). */
  readonly scanned: number;
  /** False when the Scan stopped at the bound: what was found is of the items read only. */
  readonly complete: boolean;
}

/**
 * One Scan of `table` for the items whose `pk` begins with one of `prefixes` (keyed by the name of
 * the filter's placeholder), handing each to `visit`; stops after `maxItems`. Slow and billed per
 * item read: for operators' searches, never for a request path.
 */
export const scanKeyPrefixes = async (
  documents: DynamoDBDocumentClient,
  table: string,
  prefixes: Readonly<Record<string, string>>,
  maxItems: number,
  visit: (item: Record<string, unknown>) => void,
): Promise<ScanExtent> => {
  const names = Object.keys(prefixes);
  let scanned = 0;
  for await (const item of scanItems(documents, {
    TableName: table,
    FilterExpression: names.map((name) => `begins_with(pk, :${name})`).join(' OR '),
    ExpressionAttributeValues: Object.fromEntries(
      names.map((name) => [`:${name}`, prefixes[name]]),
    ),
  })) {
    scanned += 1;
    if (scanned > maxItems) return { scanned: maxItems, complete: false };
    visit(item);
  }
  return { scanned, complete: true };
};
