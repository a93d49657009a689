/**
 * What a phase leaves stored, measured as the services bill it: the event table's items (attribute
 * names and values in UTF-8, plus DynamoDB's 100 bytes per item) by the kind of message they
 * belong to, and a bucket's object bytes. Read between phases, with the bench's own scans.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_PREFIX } from '../functions/commons/table-keys.ts';
import { itemBytes } from '../functions/event-table/item-size.ts';

/** DynamoDB's per-item storage overhead (its pricing page: 100 bytes per item). */
export const DYNAMODB_ITEM_OVERHEAD_BYTES = 100;

/** Partition-key prefixes of what outbound messages leave: send records and outcomes, reports, statuses. */
const OUTBOUND = [KEY_PREFIX.send, KEY_PREFIX.sendRejected, KEY_PREFIX.report, KEY_PREFIX.status];
/** Of what inbound messages leave: the message and its attachment markers. */
const INBOUND = [KEY_PREFIX.mo];

export interface TableBytes {
  readonly outbound: number;
  readonly inbound: number;
}

/** Bytes the event table stores for outbound and for inbound messages now. */
export const tableBytes = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
): Promise<TableBytes> => {
  let outbound = 0;
  let inbound = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      const pk = String(item.pk ?? '');
      const bytes = itemBytes(item) + DYNAMODB_ITEM_OVERHEAD_BYTES;
      if (OUTBOUND.some((prefix) => pk.startsWith(prefix))) outbound += bytes;
      else if (INBOUND.some((prefix) => pk.startsWith(prefix))) inbound += bytes;
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return { outbound, inbound };
};

/** Bytes of every object in `bucket`. */
export const bucketBytes = async (s3: S3Client, bucket: string): Promise<number> => {
  let bytes = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) bytes += object.Size ?? 0;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return bytes;
};
