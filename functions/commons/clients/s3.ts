import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';

// One client per container, created on first use; it honours AWS_ENDPOINT_URL_S3 locally.
let shared: S3Client | undefined;

/** The S3 client every bucket adapter shares. */
export const s3Client = (): S3Client => {
  shared ??= new S3Client({});
  return shared;
};

/** Keys below `prefix` in S3's order (ascending UTF-8), at most `limit`. */
export const listKeys = async (
  client: S3Client,
  bucket: string,
  prefix: string,
  limit: number,
): Promise<string[]> => {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        MaxKeys: Math.min(1_000, limit - keys.length),
        ContinuationToken: token,
      }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined && keys.length < limit);
  return keys.slice(0, limit);
};

/** A small object's whole body as UTF-8 text (it is held in memory). */
export const getText = async (client: S3Client, bucket: string, key: string): Promise<string> => {
  const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (answer.Body === undefined) throw new Error(`s3://${bucket}/${key} has no body`);
  return answer.Body.transformToString('utf-8');
};

/** Deletes one object; deleting a missing key succeeds, as S3 answers it. */
export const deleteObject = async (
  client: S3Client,
  bucket: string,
  key: string,
): Promise<void> => {
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
};
