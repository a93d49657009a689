/**
 * The attachment store in S3 (`S3ObjectStorage`), against a mocked S3 client: an attachment that
 * fits in one part is stored with one `PutObject` carrying its SHA-256 as checksum and metadata; a
 * larger one streams into a multipart upload and gets its metadata by one copy; a download that
 * breaks stores nothing.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { S3ObjectStorage } from '../../functions/attachments/adapters/s3-object-storage.ts';
import { SourceStreamError } from '../../functions/attachments/fetch-use-case.ts';

const MiB = 1024 * 1024;
const client = new S3Client({
  region: 'ap-northeast-2',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const s3 = mockClient(client);

afterEach(() => s3.reset());

/** `bytes` in chunks of 64 KiB, as a download arrives. */
const download = (bytes: Buffer) =>
  Readable.from(
    (function* chunks() {
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
        yield bytes.subarray(offset, offset + 64 * 1024);
    })(),
  );

/** The first `good` bytes of `bytes`, then a broken connection. */
const brokenDownload = (bytes: Buffer, good: number) =>
  Readable.from(
    (function* chunks() {
      yield bytes.subarray(0, good);
      throw new Error('socket hang up');
    })(),
  );

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
const pattern = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => i % 251));
const KEY = 'inbound/2026/11/25/mo-1/0-photo.jpg';
const METADATA = { 'mo-key': 'mo-1', index: '0', source: 'content-url' };

describe('the attachment store in S3', () => {
  it('stores an attachment that fits in one part with one PutObject, checksum and metadata included', async () => {
    // Prepare
    s3.on(PutObjectCommand).resolves({});
    const photo = pattern(300_000);
    const storage = new S3ObjectStorage('attachments', { client });

    // Act
    const measurement = await storage.put(KEY, download(photo), 'image/jpeg', {
      metadata: METADATA,
      expectedBytes: photo.length,
    });

    // Assess: one PUT-class request, nothing else.
    expect(measurement).toEqual({
      sizeBytes: photo.length,
      sha256: sha256(photo).toString('hex'),
    });
    expect(s3.calls()).toHaveLength(1);
    const put = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(put).toMatchObject({
      Bucket: 'attachments',
      Key: KEY,
      ContentType: 'image/jpeg',
      ChecksumSHA256: sha256(photo).toString('base64'),
      Metadata: {
        ...METADATA,
        sha256: sha256(photo).toString('hex'),
        'size-bytes': String(photo.length),
      },
    });
    expect(Buffer.compare(put?.Body as Buffer, photo)).toBe(0);
  });

  it('streams a larger attachment into a multipart upload, then copies its metadata onto it', async () => {
    // Prepare
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
    const parts: Buffer[] = [];
    s3.on(UploadPartCommand).callsFake(async (input: { Body: Uint8Array }) => {
      parts.push(Buffer.from(input.Body));
      return { ETag: `"etag-${parts.length}"` };
    });
    s3.on(CompleteMultipartUploadCommand).resolves({});
    s3.on(CopyObjectCommand).resolves({});
    const clip = pattern(6 * MiB + 123);
    const storage = new S3ObjectStorage('attachments', { client });

    // Act
    const measurement = await storage.put(KEY, download(clip), 'video/mp4', {
      metadata: METADATA,
      expectedBytes: clip.length,
    });

    // Assess
    expect(measurement.sha256).toBe(sha256(clip).toString('hex'));
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(parts.map((part) => part.length)).toEqual([5 * MiB, MiB + 123]);
    expect(Buffer.compare(Buffer.concat(parts), clip)).toBe(0);
    expect(s3.commandCalls(CopyObjectCommand)[0]?.args[0].input).toMatchObject({
      Key: KEY,
      MetadataDirective: 'REPLACE',
      Metadata: {
        ...METADATA,
        sha256: sha256(clip).toString('hex'),
        'size-bytes': String(clip.length),
      },
    });
  });

  it('stores nothing of a download that breaks off or ends short of its Content-Length', async () => {
    const photo = pattern(200_000);
    const storage = new S3ObjectStorage('attachments', { client });

    await expect(
      storage.put(KEY, brokenDownload(photo, 100_000), 'image/jpeg', { metadata: METADATA }),
    ).rejects.toThrow(SourceStreamError);
    await expect(
      storage.put(KEY, download(photo.subarray(0, 150_000)), 'image/jpeg', {
        expectedBytes: photo.length,
      }),
    ).rejects.toThrow(SourceStreamError);
    expect(s3.calls()).toHaveLength(0);
  });

  it('passes an S3 failure on as it is, not as a broken download', async () => {
    s3.on(PutObjectCommand).rejects(new Error('SlowDown'));
    const storage = new S3ObjectStorage('attachments', { client });

    const stored = storage.put(KEY, download(pattern(1_000)), 'image/jpeg');

    await expect(stored).rejects.toThrow('SlowDown');
    await expect(stored).rejects.not.toBeInstanceOf(SourceStreamError);
  });
});
