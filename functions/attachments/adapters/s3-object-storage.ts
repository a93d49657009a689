import { Readable } from 'node:stream';
import { CopyObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { deleteObject, getText, listKeys, s3Client } from '../../commons/clients/s3.ts';
import { type ObjectStorage, type PutOptions, SourceStreamError } from '../fetch-use-case.ts';
import { type MeasuredStream, type Measurement, measureStream } from '../measured-stream.ts';

export interface S3ObjectStorageOptions {
  readonly client?: S3Client;
  /**
   * Bytes per multipart part, and the largest attachment stored with one `PutObject`.
   * @default 5 MiB (S3's minimum part size)
   */
  readonly partSizeBytes?: number;
  /** Parts uploaded at once. Memory is about (queueSize + 2) × partSize. @default 1 */
  readonly queueSize?: number;
}

const MiB = 1024 * 1024;
// CopyObject copies at most 5 GiB in one call; larger objects keep size and hash in the event only.
const COPY_OBJECT_MAX_BYTES = 5 * 1024 * MiB;

/**
 * Attachments in S3, measured on the way in (size and SHA-256, `measured-stream.ts`), each object
 * carrying both in its metadata (`sha256`, `size-bytes`). Encryption is the bucket's default.
 *
 * An attachment that ends within one part (5 MiB; an MMS attachment is a few hundred KB) is held
 * in memory — as much as the multipart upload would buffer for its first part anyway — and stored
 * with ONE `PutObject` that carries its metadata and its SHA-256 as the checksum, so S3 refuses
 * the upload unless it received exactly the bytes that were measured. A larger one streams into a
 * multipart upload (`@aws-sdk/lib-storage`), so memory holds a few parts, never the file; its size
 * and SHA-256 are known only at the end, so they reach its metadata by one copy of the object onto
 * itself afterwards, as every attachment's did before. The multipart upload is the rare path: its
 * module is imported by the first attachment that needs it, not at a cold start (a chunk of its
 * own in the deployed bundle, docs/performance.md, `cold-start`).
 *
 * Either way the key is the attachment's own (`objectKey`), so a retry writes the same bytes to the
 * same key, and the caller records the attachment only after `put` has resolved.
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
    const head = await sourced(measured, () => readHead(measured.stream, this.partSize));
    if (head.ended) {
      const measurement = measured.stream.measurement();
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: Buffer.concat(head.chunks),
          ContentType: contentType,
          ChecksumSHA256: Buffer.from(measurement.sha256, 'hex').toString('base64'),
          Metadata: { ...metadata, ...measurementMetadata(measurement) },
        }),
      );
      return measurement;
    }

    const { Upload } = await import('@aws-sdk/lib-storage');
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: Readable.from(rejoined(head.chunks, measured.stream)),
        ContentType: contentType,
        Metadata: metadata,
      },
      partSize: this.partSize,
      queueSize: this.queueSize,
      // A failed multipart upload is aborted, so no invisible parts are billed.
      leavePartsOnError: false,
    });
    await sourced(measured, () => upload.done());
    const measurement = measured.stream.measurement();
    if (measurement.sizeBytes <= COPY_OBJECT_MAX_BYTES) {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
          MetadataDirective: 'REPLACE',
          ContentType: contentType,
          Metadata: { ...metadata, ...measurementMetadata(measurement) },
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

const measurementMetadata = (measurement: Measurement): Record<string, string> => ({
  sha256: measurement.sha256,
  'size-bytes': String(measurement.sizeBytes),
});

/** Runs `step`; a failure of the download itself becomes a {@link SourceStreamError}. */
const sourced = async <T>(measured: MeasuredStream, step: () => Promise<T>): Promise<T> => {
  try {
    return await step();
  } catch (error) {
    const failure = measured.sourceFailure();
    if (failure) throw new SourceStreamError(failure.message, { cause: failure });
    throw error;
  }
};

interface Head {
  readonly chunks: Buffer[];
  /** The stream ended within the limit: `chunks` are all of it. */
  readonly ended: boolean;
}

/**
 * Reads `stream` until it ends or more than `limit` bytes have come; in the second case the stream
 * is left paused, the rest unread.
 */
const readHead = (stream: Readable, limit: number): Promise<Head> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const settle = (outcome: () => void) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes <= limit) return;
      stream.pause();
      settle(() => resolve({ chunks, ended: false }));
    };
    const onEnd = () => settle(() => resolve({ chunks, ended: true }));
    const onError = (error: Error) => settle(() => reject(error));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });

/** The chunks already read, then the rest of the stream. */
async function* rejoined(head: readonly Buffer[], rest: Readable): AsyncGenerator<Buffer> {
  yield* head;
  for await (const chunk of rest) yield chunk as Buffer;
}
