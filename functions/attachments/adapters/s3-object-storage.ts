import type { Readable } from 'node:stream';
import { CopyObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { deleteObject, getText, listKeys, s3Client } from '../../commons/clients/s3.ts';
import { type ObjectStorage, type PutOptions, SourceStreamError } from '../fetch-attachments.ts';
import { type Measurement, measureStream } from '../measured-stream.ts';

export interface S3ObjectStorageOptions {
  readonly client?: S3Client;
  /** Bytes per multipart part. @default 5 MiB (S3's minimum) */
  readonly partSizeBytes?: number;
  /** Parts uploaded at once. Memory is about (queueSize + 2) × partSize. @default 1 */
  readonly queueSize?: number;
}

const MiB = 1024 * 1024;
// CopyObject copies at most 5 GiB in one call; larger objects keep size and hash in the event only.
const COPY_OBJECT_MAX_BYTES = 5 * 1024 * MiB;

/**
 * Attachments in S3, streamed: the body goes through a hashing counter into a multipart upload
 * (`@aws-sdk/lib-storage`), so memory holds a few parts, never the file. The size and SHA-256
 * are known only at the end, so they reach the object's metadata (`sha256`, `size-bytes`) by one
 * copy of the object onto itself afterwards. Encryption is the bucket's default.
 */
export class S3ObjectStorage implements ObjectStorage {
  private readonly client: S3Client;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(
    readonly bucket: string,
    options: S3ObjectStorageOptions = {},
  ) {
    this.client = options.client ?? s3Client();
    this.partSize = options.partSizeBytes ?? 5 * MiB;
    this.queueSize = options.queueSize ?? 1;
  }

  async put(
    key: string,
    body: Readable,
    contentType: string,
    options: PutOptions = {},
  ): Promise<Measurement> {
    const measured = measureStream(body, options.expectedBytes);
    const metadata = { ...options.metadata };
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: measured.stream,
        ContentType: contentType,
        Metadata: metadata,
      },
      partSize: this.partSize,
      queueSize: this.queueSize,
      // A failed multipart upload is aborted, so no invisible parts are billed.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      const failure = measured.sourceFailure();
      if (failure) throw new SourceStreamError(failure.message, { cause: failure });
      throw error;
    }
    const measurement = measured.stream.measurement();
    if (measurement.sizeBytes <= COPY_OBJECT_MAX_BYTES) {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
          MetadataDirective: 'REPLACE',
          ContentType: contentType,
          Metadata: {
            ...metadata,
            sha256: measurement.sha256,
            'size-bytes': String(measurement.sizeBytes),
          },
        }),
      );
    }
    return measurement;
  }

  /** Keys below `prefix` in S3's order (ascending UTF-8), at most `limit`. */
  list(prefix: string, limit: number): Promise<string[]> {
    return listKeys(this.client, this.bucket, prefix, limit);
  }

  /** A small object's whole body as UTF-8 text (it is held in memory). */
  getText(key: string): Promise<string> {
    return getText(this.client, this.bucket, key);
  }

  /** Deletes one object; deleting a missing key succeeds, as S3 answers it. */
  delete(key: string): Promise<void> {
    return deleteObject(this.client, this.bucket, key);
  }
}
