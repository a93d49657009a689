import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it, vi } from 'vitest';

// The container's shared S3 client, replaced so the test sees when (and how often) it is made.
const shared = vi.hoisted(() => ({ made: 0, sent: [] as unknown[] }));
vi.mock('../../functions/commons/clients/s3.ts', () => ({
  s3Client: () => {
    shared.made += 1;
    return {
      send: async (command: unknown) => {
        shared.sent.push(command);
        return {};
      },
    };
  },
}));

const { receiveDepsFromEnvironment } = await import(
  '../../functions/received-items/receive-environment.ts'
);
const { S3PayloadStore } = await import('../../functions/event-table/s3-payload-store.ts');

const logger = { error: () => undefined } as unknown as Parameters<
  typeof receiveDepsFromEnvironment
>[0];

describe('the payload store of a receiver', () => {
  it('makes no S3 client at start; the first put uses the shared one, later puts the same', async () => {
    // Prepare
    const deps = receiveDepsFromEnvironment(logger, {
      EVENT_TABLE_NAME: 'events',
      PAYLOAD_BUCKET: 'payloads',
    });
    const atStart = shared.made;

    // Act
    const stored = await deps.payloads.put('payloads/report/abc', '{"a":1}', 'application/json');
    await deps.payloads.put('payloads/report/def', '{"b":2}', 'application/json');

    // Assess
    expect(atStart).toBe(0);
    expect(shared.sent).toHaveLength(2);
    expect(shared.sent[0]).toBeInstanceOf(PutObjectCommand);
    expect((shared.sent[0] as PutObjectCommand).input).toMatchObject({
      Bucket: 'payloads',
      Key: 'payloads/report/abc',
      ContentType: 'application/json',
      Metadata: { 'size-bytes': '7' },
    });
    expect(stored).toMatchObject({ bucket: 'payloads', key: 'payloads/report/abc', bytes: 7 });
  });

  it('uses the client it was given, and never the shared one', async () => {
    // Prepare
    const before = shared.made;
    const send = vi.fn(async () => ({}));
    const store = new S3PayloadStore('local-payloads', { send } as unknown as S3Client);

    // Act
    await store.put('payloads/mo/abc', 'x', 'text/plain');

    // Assess
    expect(send).toHaveBeenCalledTimes(1);
    expect(shared.made).toBe(before);
  });
});
