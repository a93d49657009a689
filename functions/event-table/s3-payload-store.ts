import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3OnFirstUse } from '../commons/clients/s3-on-first-use.ts';
import type { PayloadStore, StoredPayload } from './ports.ts';

/**
 * The receivers' claim check in S3: one `PutObject` of the whole body (a webhook body is at most
 * what API Gateway and Lambda pass, a few MB, so no multipart upload). Its SHA-256 travels as the
 * object's checksum, so S3 refuses a corrupted upload, and as metadata. Encryption is the bucket's
 * default (the stack's key).
 *
 * Without a `client`, the container's shared one (`s3Client()`), created by the first put, not
 * when the receiver starts. The S3 SDK itself is imported by that first put too (`s3-part.mjs`,
 * bundled apart): bodies that need the bucket are rare, and the S3 client's modules are about
 * 135 KiB of a receiver, which a cold start does not read (docs/performance.md, `cold-start`).
 */
export class S3PayloadStore implements PayloadStore {
  constructor(
    readonly bucket: string,
    private readonly client?: S3Client,
  ) {}

  async put(key: string, body: string | Uint8Array, contentType: string): Promise<StoredPayload> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
    const digest = createHash('sha256').update(bytes).digest();
    const { PutObjectCommand, s3Client } = await s3OnFirstUse();
    const client = this.client ?? s3Client();
    await client.send(
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
