import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3OnFirstUse } from '../commons/clients/s3-on-first-use.ts';
import {
  POLLED_QUARANTINE_PREFIX,
  type PolledPage,
  type PolledPageKind,
  type PolledPageQuarantine,
} from './polled-page-quarantine.ts';

/** Only printable ASCII travels in S3 user metadata (HTTP headers); the rest is dropped. */
const metadataValue = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 256);

/**
 * Kept pages as objects of the attachment bucket (its key, its lifecycle), one JSON object per
 * page at `quarantine/polled/{reports|mo}/<ISO time>-<sha256 of the body, 16 hex>.json`: ISO times
 * sort as text, so S3's key order is the oldest page first, and the same page kept twice in the
 * same millisecond lands on the same key. The object's body is the page's body exactly; the reason
 * and `rptKey` are user metadata.
 *
 * Without a `client`, the container's shared one, and the S3 SDK, are loaded by the first page
 * kept or read: a poller that keeps none never loads them (docs/performance.md, `cold-start`).
 */
export class S3PolledPageQuarantine implements PolledPageQuarantine {
  constructor(
    private readonly bucket: string,
    private readonly client?: S3Client,
  ) {}

  /** The S3 helpers and the client, imported by the first call. */
  private async s3() {
    const part = await s3OnFirstUse();
    return { ...part, client: this.client ?? part.s3Client() };
  }

  async keep(page: PolledPage, at: Date): Promise<string> {
    const digest = createHash('sha256').update(page.body, 'utf8').digest('hex').slice(0, 16);
    const key = `${POLLED_QUARANTINE_PREFIX}${page.kind}/${at.toISOString()}-${digest}.json`;
    const { client, PutObjectCommand } = await this.s3();
    await client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: page.body,
        ContentType: 'application/json',
        Metadata: {
          reason: metadataValue(page.reason),
          ...(page.rptKey === undefined ? {} : { 'rpt-key': metadataValue(page.rptKey) }),
        },
      }),
    );
    return key;
  }

  async list(kind: PolledPageKind, limit: number): Promise<string[]> {
    const { client, listKeys } = await this.s3();
    return listKeys(client, this.bucket, `${POLLED_QUARANTINE_PREFIX}${kind}/`, limit);
  }

  async read(location: string): Promise<string> {
    const { client, getText } = await this.s3();
    return getText(client, this.bucket, location);
  }

  async remove(location: string): Promise<void> {
    const { client, deleteObject } = await this.s3();
    return deleteObject(client, this.bucket, location);
  }
}
