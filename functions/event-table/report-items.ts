import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { pagesOf } from '../commons/clients/dynamodb.ts';
import { eventKeys, KEY_PREFIX } from '../commons/table-keys.ts';

/**
 * The sort keys (`RESULT#<resultCode>#<ch>`) of the delivery reports stored for `msgKey`, a page
 * at a time as the loop asks for them: the one reading of a message's reports, for the event
 * store's message status and for reconcile-status' look for a stored report. Guards that
 * reconcile-status writes beside a status-built report are left out: they carry no event. Only
 * keys are returned. `consistent` makes it a strongly consistent read, which sees every report
 * stored before it was asked.
 */
export async function* reportSortKeysOf(
  client: DynamoDBDocumentClient,
  tableName: string,
  msgKey: string,
  { consistent }: { readonly consistent: boolean },
): AsyncGenerator<readonly string[]> {
  const pages = pagesOf((start) =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :result)',
        FilterExpression: 'attribute_exists(detailType)',
        ExpressionAttributeValues: {
          ':pk': eventKeys.report(msgKey),
          ':result': KEY_PREFIX.result,
        },
        ProjectionExpression: 'pk, sk',
        ...(consistent ? { ConsistentRead: true } : {}),
        ExclusiveStartKey: start,
      }),
    ),
  );
  for await (const page of pages) yield (page.Items ?? []).map((item) => String(item.sk));
}
