import { createHash } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { PayloadStore, StoredPayload } from './store-ports.ts';

// One client per container; it honours AWS_ENDPOINT_URL_S3 for the local run. Not the one of
// `commons/adapters/s3-object-storage.ts`: that module brings the multipart upload (`@aws-sdk/lib-storage`) and the
// attachment streams into the receivers' bundles, which need neither.
let sharedClient: S3Client | undefined;
const payloadClient = (): S3Client => {
  sharedClient ??= new S3Client({});
  return sharedClient;
};

/**
 * The receivers' claim check in S3: one `PutObject` of the whole body (a webhook body is at most
 * what API Gateway and Lambda pass, a few MB, so no multipart upload). Its SHA-256 travels as the
 * object's checksum, so S3 refuses a corrupted upload, and as metadata. Encryption is the bucket's
 * default (the stack's key).
 */
export class S3PayloadStore implements PayloadStore {
  constructor(
    readonly bucket: string,
    private readonly client: S3Client = payloadClient(),
  ) {}

  async put(key: string, text: string, contentType: string): Promise<StoredPayload> {
    const bytes = Buffer.from(text, 'utf8');
    const digest = createHash('sha256').update(bytes).digest();
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        ChecksumSHA256: digest.toString('base64'),
        Metadata: { sha256: digest.toString('hex'), 'size-bytes': String(bytes.length) },
      }),
    );
    return { bucket: this.bucket, key, bytes: bytes.length, sha256: digest.toString('hex') };
  }
}
