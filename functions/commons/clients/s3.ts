import { S3Client } from '@aws-sdk/client-s3';

// One client per container, created on first use; it honours AWS_ENDPOINT_URL_S3 locally.
let shared: S3Client | undefined;

/** The S3 client every bucket adapter shares. */
export const s3Client = (): S3Client => {
  shared ??= new S3Client({});
  return shared;
};
