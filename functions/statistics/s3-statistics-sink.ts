import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { s3Client } from '../commons/clients/s3.ts';
import type { StatisticsObjectSink } from './export-use-case.ts';

/**
 * The JSON-lines export in S3: one `PutObject` per object, so a rerun of the same day replaces
 * the object whole. Encryption is the bucket's default.
 */
export class S3StatisticsSink implements StatisticsObjectSink {
  constructor(
    readonly bucket: string,
    private readonly client: S3Client = s3Client(),
  ) {}

  async putObject(key: string, body: string, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }
}
