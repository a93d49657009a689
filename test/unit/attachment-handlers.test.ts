import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { AttachmentOutcome } from '../../functions/attachments/fetch-use-case.ts';
import { fetchAttachments } from '../../functions/attachments/fetch-use-case.ts';
import {
  createFetchAttachmentsHandler,
  createSweepHandler,
  reportOutcomes,
} from '../../functions/attachments/handler.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import {
  attachment,
  DAY,
  HOUR,
  PHOTO,
  RECEIVED_AT,
  SCAN,
  storedDetails,
  storedMo,
  world,
} from '../support/attachment-world.ts';

describe('the handlers', () => {
  const observability = () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
    const counted = vi.spyOn(metrics, 'addMetric');
    const total = (name: string) =>
      counted.mock.calls
        .filter(([metric]) => metric === name)
        .reduce((sum, [, , value]) => sum + value, 0);
    return { logger, metrics, total };
  };

  const streamRecord = (item: EventRecord, sequenceNumber: string): DynamoDBRecord =>
    ({
      eventName: 'INSERT',
      dynamodb: {
        NewImage: marshall({ ...item, attachmentCount: 1 }),
        SequenceNumber: sequenceNumber,
      },
    }) as DynamoDBRecord;

  it('fails only the record whose storage failed, and counts what happened', async () => {
    // Prepare: record 1 stores, record 2 hits an S3 failure, record 3 cannot be downloaded.
    const w = world();
    const o = observability();
    const ok = await storedMo('MOKEY0201', [attachment('a.jpg', 'https://files/h1', 28)]);
    const s3 = await storedMo('MOKEY0202', [attachment('b.jpg', 'https://files/h2', 28)]);
    const refused = await storedMo('MOKEY0203', [attachment('c.jpg', 'https://files/h3', 28)]);
    w.downloads.contentUrls.set('https://files/h1', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.downloads.contentUrls.set('https://files/h2', { bytes: PHOTO, contentType: 'image/jpeg' });
    const handler = createFetchAttachmentsHandler({ ...w.deps, ...o });
    const put = w.storage.put.bind(w.storage);
    vi.spyOn(w.storage, 'put').mockImplementation(async (key, body, type, options) => {
      if (key.includes('MOKEY0202'))
        throw Object.assign(new Error('SlowDown'), { name: 'SlowDown' });
      return put(key, body, type, options);
    });

    // Act
    const response = await handler({
      Records: [streamRecord(ok, '1'), streamRecord(s3, '2'), streamRecord(refused, '3')],
    });

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(o.total('AttachmentsStored')).toBe(1);
    expect(o.total('AttachmentBytesStored')).toBe(PHOTO.length);
    expect(o.total('AttachmentDownloadFailures')).toBe(1);
    // The failed record's marker was written before its attempt: the sweep has it too.
    expect([...w.pending.markers.keys()]).toEqual(['MOKEY0202#0', 'MOKEY0203#0']);
    expect(w.pending.markers.get('MOKEY0202#0')).toMatchObject({ attempts: 0 });
  });

  it('leaves records alone that are not inserted inbound messages', async () => {
    // Prepare
    const w = world();
    const o = observability();
    const mo = await storedMo('MOKEY0204', [attachment('a.jpg', 'https://files/h4', 28)]);
    w.downloads.contentUrls.set('https://files/h4', { bytes: PHOTO, contentType: 'image/jpeg' });
    const handler = createFetchAttachmentsHandler({ ...w.deps, ...o });
    const modified = { ...streamRecord(mo, '1'), eventName: 'MODIFY' } as DynamoDBRecord;
    const report = streamRecord({ ...mo, kind: 'report', detail: '{}' }, '2');

    // Act
    const response = await handler({ Records: [modified, report] });

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(w.downloads.contentUrlCalls).toEqual([]);
  });

  it('sweeps, counts a lost attachment, and fails the run when a marker failed on our side', async () => {
    // Prepare
    const w = world();
    const o = observability();
    const lost = await storedMo('MOKEY0301', [attachment('a.jpg', 'https://files/s1', 28)]);
    const ours = await storedMo('MOKEY0302', [attachment('b.jpg', 'https://files/s2', 28)]);
    await fetchAttachments({ ...lost }, w.deps);
    await fetchAttachments({ ...ours }, w.deps);
    // The second marker is for a message that arrived later, so it is not yet past its window.
    const marker = await w.pending.get('MOKEY0302', 0);
    if (!marker) throw new Error('no marker');
    await w.pending.save({ ...marker, receivedAt: '2026-11-25T00:00:00.000Z' });
    w.downloads.files.set('MOKEY0302', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.storage.failNext = 1;
    w.clock.now = Date.parse(RECEIVED_AT) + 7 * DAY + HOUR;
    const handler = createSweepHandler({ ...w.deps, ...o, marginMs: 1_000 });

    // Act / Assess
    await expect(handler({})).rejects.toThrow('1 pending attachment(s) failed on our side');
    expect(o.total('AttachmentsLost')).toBe(1);
    expect(storedDetails(w.events, 'Inbound Attachment Lost')).toHaveLength(1);
    expect([...w.pending.markers.keys()]).toEqual(['MOKEY0302#0']);
  });

  it('stores or declares lost, once each, the attachments of a batch that went to on-failure', async () => {
    // Prepare: three attachments in two messages; S3 fails on every delivery of the batch.
    const w = world();
    const o = observability();
    const first = await storedMo('MOKEY0401', [
      attachment('a.jpg', 'https://files/f1', 28),
      attachment('b.jpg', 'https://files/f2', 28),
    ]);
    const second = await storedMo('MOKEY0402', [attachment('c.jpg', 'https://files/f3', 28)]);
    for (const url of ['https://files/f1', 'https://files/f2', 'https://files/f3'])
      w.downloads.contentUrls.set(url, { bytes: PHOTO, contentType: 'image/jpeg' });
    const s3Down = vi
      .spyOn(w.storage, 'put')
      .mockRejectedValue(
        Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' }),
      );
    const puts = vi.spyOn(w.events, 'putIfAbsent');
    const handler = createFetchAttachmentsHandler({ ...w.deps, ...o });
    const batch = { Records: [streamRecord(first, '1'), streamRecord(second, '2')] };
    const sweep = createSweepHandler({ ...w.deps, ...o, marginMs: 0 });

    // Act: the first delivery and 5 retries fail; the records go to the on-failure destination.
    // Every record failing fails the invocation as a whole (Powertools' FullBatchFailureError).
    const deliveries: unknown[] = [];
    for (let delivery = 0; delivery < 6; delivery++) {
      deliveries.push(await handler(batch).catch((error: unknown) => error));
      w.clock.now += 30_000;
    }
    // S3 recovers; the content URLs were used up. The file endpoint serves each message's first
    // attachment (a.jpg, c.jpg); for b.jpg it offers nothing once its content URL has expired.
    s3Down.mockRestore();
    for (const url of ['https://files/f1', 'https://files/f2', 'https://files/f3'])
      w.downloads.contentUrls.set(url, { refuse: 'HTTP 410: content URL already used' });
    w.downloads.files.set('MOKEY0401', { bytes: PHOTO, contentType: 'image/jpeg' });
    w.downloads.files.set('MOKEY0402', { bytes: SCAN, contentType: 'image/png' });
    // The sweep runs every 15 minutes for 8 days.
    for (let run = 0; run < 8 * 24 * 4; run++) {
      w.clock.now += 15 * 60_000;
      await sweep({});
    }

    // Assess
    for (const delivery of deliveries)
      expect(delivery).toMatchObject({ message: expect.stringMatching(/^All records failed/) });
    const keyOf = (detail: { data: Record<string, unknown> }) =>
      `${String(detail.data.moKey)}#${String(detail.data.index)}`;
    const stored = storedDetails(w.events, 'Inbound Attachment Stored');
    expect(stored.map(keyOf).sort()).toEqual(['MOKEY0401#0', 'MOKEY0402#0']);
    expect(stored.map((detail) => detail.data.source)).toEqual(['file-endpoint', 'file-endpoint']);
    const lost = storedDetails(w.events, 'Inbound Attachment Lost');
    expect(lost.map(keyOf)).toEqual(['MOKEY0401#1']);
    expect(lost[0]?.data.reason).toBe(
      'the content URL expired 24 h after receipt and GET /mo/v1/file/{moKey} serves only the ' +
        'first attachment; last error: content-url: HTTP 410: content URL already used',
    );
    // One put per attachment: nothing was stored twice, nothing both stored and lost.
    expect(puts).toHaveBeenCalledTimes(3);
    expect(w.pending.markers.size).toBe(0);
    expect(o.total('AttachmentsStored')).toBe(2);
    expect(o.total('AttachmentsLost')).toBe(1);
  });
});

describe('what fetch-attachments logs', () => {
  const ref = {
    moKey: 'mo-1',
    index: 0,
    name: 'photo.jpg',
    extension: 'jpg',
    contentUrl: null,
    receivedAt: RECEIVED_AT,
    via: 'webhook' as const,
  };
  const stored = {
    result: 'stored' as const,
    ref,
    source: 'content-url' as const,
    key: 'inbound/2026/11/25/mo-1/0-photo.jpg',
    contentType: 'image/jpeg',
    sizeBytes: 3,
    sha256: 'a'.repeat(64),
    failures: [],
    contentUrlRefused: false,
  };

  it('writes an attachment stored at the first try as a debug line, everything else at INFO or above', () => {
    // Prepare
    const logger = new Logger({ logLevel: 'SILENT' });
    const levels = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [
        level,
        vi.spyOn(logger, level).mockImplementation(() => undefined),
      ]),
    );
    const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
    const outcomes: AttachmentOutcome[] = [
      stored,
      { result: 'skipped', ref },
      { ...stored, failures: ['content-url: 410'], source: 'file-endpoint' },
      {
        result: 'pending',
        ref,
        attempts: 1,
        reason: 'content-url: 503',
        nextAttemptAt: RECEIVED_AT,
        contentUrlRefused: false,
      },
      { result: 'lost', ref, attempts: 9, reason: 'file-endpoint: 404' },
    ];

    // Act
    reportOutcomes(outcomes, { logger, metrics });

    // Assess
    const messages = (level: string) =>
      levels[level]?.mock.calls.map(([message]) => message as string);
    expect(messages('debug')).toEqual(['attachment stored', 'attachment already stored']);
    expect(messages('info')).toEqual(['attachment stored']);
    expect(levels.info?.mock.calls[0]?.[1]).toMatchObject({ failedFirst: ['content-url: 410'] });
    expect(messages('warn')).toEqual(['attachment download failed; the sweep retries it']);
    expect(messages('error')).toEqual(['attachment lost: the gateway no longer has it']);
  });
});
