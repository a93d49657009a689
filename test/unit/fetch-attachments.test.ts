import { describe, expect, it } from 'vitest';
import {
  fetchAttachments,
  InvalidInboundItemError,
  NOT_ATTEMPTED,
} from '../../functions/attachments/fetch-use-case.ts';
import {
  BUSY,
  HOUR,
  JPEG,
  PHOTO,
  PNG,
  RECEIVED_AT,
  SCAN,
  sha256,
  storedDetails,
  storedMoServing,
  world,
} from '../support/attachment-world.ts';

describe('fetchAttachments', () => {
  it('streams a young message’s attachment from its content URL into storage and stores the event', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0001', [
      { name: 'photo.jpg', url: 'https://files/u1', serves: JPEG },
    ]);
    w.clock.now += 2 * HOUR;

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    const key = 'inbound/2026/11/21/MOKEY0001/0-photo.jpg';
    expect(outcomes).toMatchObject([{ result: 'stored', source: 'content-url', key }]);
    expect(w.downloads.fileCalls).toEqual([]);
    expect(w.storage.objects.get(key)).toEqual({
      bytes: PHOTO,
      contentType: 'image/jpeg',
      metadata: {
        'mo-key': 'MOKEY0001',
        index: '0',
        source: 'content-url',
        'original-name': 'photo.jpg',
        sha256: sha256(PHOTO),
        'size-bytes': String(PHOTO.length),
      },
    });
    const [stored] = storedDetails(w.events, 'Inbound Attachment Stored');
    expect(stored?.data).toEqual({
      moKey: 'MOKEY0001',
      index: 0,
      name: 'photo.jpg',
      contentType: 'image/jpeg',
      sizeBytes: PHOTO.length,
      sha256: sha256(PHOTO),
      s3: { bucket: 'attachments-bucket', key },
      source: 'content-url',
    });
    expect(stored?.metadata).toMatchObject({
      idempotencyKey: 'attachment:MOKEY0001:0',
      receivedAt: RECEIVED_AT,
      occurredAt: '2026-11-21T02:30:00.000Z',
      via: 'webhook',
    });
    expect(w.events.ofKind('attachment')[0]).toMatchObject({
      pk: 'MO#MOKEY0001',
      sk: 'ATTACHMENT#0',
    });
    expect(w.pending.markers.size).toBe(0);
  });

  it('goes straight to the file endpoint once the message is older than 24 h', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0002', [
      { name: 'scan.png', url: 'https://files/u2', size: 1, serves: PNG },
    ]);
    w.downloads.files.set('MOKEY0002', PNG);
    w.clock.now += 25 * HOUR;

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([
      { result: 'stored', source: 'file-endpoint', sizeBytes: SCAN.length, sha256: sha256(SCAN) },
    ]);
    expect(w.downloads.contentUrlCalls).toEqual([]);
    expect(w.downloads.fileCalls).toEqual(['MOKEY0002']);
    expect(storedDetails(w.events, 'Inbound Attachment Stored')[0]?.data.source).toBe(
      'file-endpoint',
    );
  });

  it('falls back to the file endpoint when the content URL is refused', async () => {
    // Prepare: the URL was already used (single use) → 410.
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0003', [
      { name: 'a.jpg', url: 'https://files/u3', serves: { refuse: 'HTTP 410: already used' } },
    ]);
    w.downloads.files.set('MOKEY0003', JPEG);

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([
      {
        result: 'stored',
        source: 'file-endpoint',
        failures: ['content-url: HTTP 410: already used'],
      },
    ]);
    expect(w.downloads.contentUrlCalls).toEqual(['https://files/u3']);
    expect(w.pending.markers.size).toBe(0);
  });

  it('falls back to the file endpoint when the content URL breaks off mid-stream', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0004', [
      {
        name: 'scan.png',
        url: 'https://files/u4',
        size: 1,
        serves: { breakAfter: 50_000, ...PNG },
      },
    ]);
    w.downloads.files.set('MOKEY0004', PNG);

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess: the stored object is the whole file, not the broken first half.
    expect(outcomes).toMatchObject([{ result: 'stored', source: 'file-endpoint' }]);
    const [object] = w.storage.objects.values();
    expect(object?.bytes.equals(SCAN)).toBe(true);
    const [outcome] = outcomes;
    expect(outcome?.result === 'stored' && outcome.failures[0]).toMatch(
      /^content-url: download broke off: other side closed/,
    );
  });

  it('keeps a pending marker with backoff when both downloads fail, without throwing', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0005', [
      { name: 'photo.jpg', url: 'https://files/u5', serves: BUSY },
      { name: 'b.jpg', url: 'https://files/u6', serves: JPEG },
    ]);

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess: the second attachment is stored regardless of the first.
    expect(outcomes.map((outcome) => outcome.result)).toEqual(['pending', 'stored']);
    expect(w.pending.markers.get('MOKEY0005#0')).toEqual({
      moKey: 'MOKEY0005',
      index: 0,
      name: 'photo.jpg',
      extension: 'jpg',
      contentUrl: 'https://files/u5',
      receivedAt: RECEIVED_AT,
      via: 'webhook',
      attempts: 1,
      lastError: 'content-url: HTTP 503: busy; file-endpoint: GET /mo/v1/file/{moKey}: 21601 no MO',
      firstFailedAt: RECEIVED_AT,
      nextAttemptAt: '2026-11-21T00:35:00.000Z',
    });
    expect(storedDetails(w.events, 'Inbound Attachment Stored')).toHaveLength(1);
  });

  it('asks the file endpoint (which names only the moKey) for the first attachment only', async () => {
    // Prepare: both content URLs refused; the file endpoint serves the message's file.
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0007', [
      { name: 'photo.jpg', url: 'https://files/u10', serves: BUSY },
      { name: 'b.jpg', url: 'https://files/u11', serves: BUSY },
    ]);
    w.downloads.files.set('MOKEY0007', JPEG);

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess: the second waits for another try of its content URL, within its 24 h.
    expect(outcomes).toMatchObject([
      { result: 'stored', source: 'file-endpoint' },
      { result: 'pending', reason: 'content-url: HTTP 503: busy' },
    ]);
    expect(w.downloads.fileCalls).toEqual(['MOKEY0007']);
    expect(w.pending.markers.get('MOKEY0007#1')).toMatchObject({
      attempts: 1,
      nextAttemptAt: '2026-11-21T00:35:00.000Z',
    });
  });

  it('throws for a storage failure of ours, leaving the marker written before the attempt', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0006', [
      { name: 'a.jpg', url: 'https://files/u7', serves: JPEG },
    ]);
    w.storage.failNext = 1;

    // Act / Assess: the stream retries the record; should it give up, the sweep has the marker.
    await expect(fetchAttachments({ ...mo }, w.deps)).rejects.toThrow(
      'We encountered an internal error',
    );
    expect([...w.pending.markers.values()]).toEqual([
      {
        moKey: 'MOKEY0006',
        index: 0,
        name: 'a.jpg',
        extension: 'jpg',
        contentUrl: 'https://files/u7',
        receivedAt: RECEIVED_AT,
        via: 'webhook',
        attempts: 0,
        lastError: NOT_ATTEMPTED,
        nextAttemptAt: '2026-11-21T00:45:00.000Z',
      },
    ]);
    expect(w.events.ofKind('attachment')).toEqual([]);
  });

  it('keeps the attempts of a marker when the stream delivers the record again', async () => {
    // Prepare: a first delivery whose downloads were refused.
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0009', [
      { name: 'a.jpg', url: 'https://files/u9', serves: BUSY },
    ]);
    await fetchAttachments({ ...mo }, w.deps);
    w.clock.now += 60_000;

    // Act
    await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(await w.pending.get('MOKEY0009', 0)).toMatchObject({
      attempts: 2,
      firstFailedAt: RECEIVED_AT,
    });
  });

  it('skips an attachment that is already stored, without downloading it again', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0007', [
      { name: 'a.jpg', url: 'https://files/u8', serves: JPEG },
    ]);
    await fetchAttachments({ ...mo }, w.deps);

    // Act: the stream delivers the same record again.
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([{ result: 'skipped' }]);
    expect(w.downloads.contentUrlCalls).toHaveLength(1);
    expect(w.downloads.fileCalls).toEqual([]);
    expect(w.events.ofKind('attachment')).toHaveLength(1);
  });

  it('refuses an item that is not a stored inbound message', async () => {
    const w = world();
    await expect(
      fetchAttachments({ pk: 'MO#X', detail: '{"data":{}}' }, w.deps),
    ).rejects.toBeInstanceOf(InvalidInboundItemError);
  });

  it('makes keys safe for S3 whatever the attachment is called', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MO/KEY 8', [
      { name: '사진.jpg', url: 'https://files/k1', serves: JPEG },
      { name: 'my photo (1).PNG', url: 'https://files/k2', serves: JPEG },
      { name: '../../etc/passwd', url: 'https://files/k3', serves: JPEG },
    ]);

    // Act
    await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect([...w.storage.objects.keys()]).toEqual([
      'inbound/2026/11/21/MO_KEY_8/0-attachment.jpg',
      'inbound/2026/11/21/MO_KEY_8/1-my_photo_1.PNG',
      'inbound/2026/11/21/MO_KEY_8/2-etc_passwd',
    ]);
    expect(
      w.storage.objects.get('inbound/2026/11/21/MO_KEY_8/0-attachment.jpg')?.metadata,
    ).toMatchObject({ 'original-name': encodeURIComponent('사진.jpg'), 'mo-key': 'MO%2FKEY%208' });
  });
});
