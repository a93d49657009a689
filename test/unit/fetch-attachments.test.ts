import { describe, expect, it } from 'vitest';
import {
  fetchAttachments,
  InvalidInboundItemError,
  NOT_ATTEMPTED,
} from '../../functions/attachments/fetch-attachments.ts';
import {
  attachment,
  HOUR,
  PHOTO,
  RECEIVED_AT,
  SCAN,
  sha256,
  storedDetails,
  storedMo,
  world,
} from '../support/attachment-world.ts';

describe('fetchAttachments', () => {
  it('streams a young message’s attachment from its content URL into storage and stores the event', async () => {
    // Prepare
    const w = world();
    const mo = await storedMo('MOKEY0001', [attachment('photo.jpg', 'https://files/u1', 28)]);
    w.downloads.contentUrls.set('https://files/u1', { bytes: PHOTO, contentType: 'image/jpeg' });
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
    const mo = await storedMo('MOKEY0002', [attachment('scan.png', 'https://files/u2', 1)]);
    w.downloads.contentUrls.set('https://files/u2', { bytes: SCAN, contentType: 'image/png' });
    w.downloads.files.set('MOKEY0002', { bytes: SCAN, contentType: 'image/png' });
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
    const mo = await storedMo('MOKEY0003', [attachment('a.jpg', 'https://files/u3', 28)]);
    w.downloads.contentUrls.set('https://files/u3', { refuse: 'HTTP 410: already used' });
    w.downloads.files.set('MOKEY0003', { bytes: PHOTO, contentType: 'image/jpeg' });

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
    const mo = await storedMo('MOKEY0004', [attachment('scan.png', 'https://files/u4', 1)]);
    w.downloads.contentUrls.set('https://files/u4', {
      breakAfter: 50_000,
      bytes: SCAN,
      contentType: 'image/png',
    });
    w.downloads.files.set('MOKEY0004', { bytes: SCAN, contentType: 'image/png' });

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
    const mo = await storedMo('MOKEY0005', [
      attachment('photo.jpg', 'https://files/u5', 28),
      attachment('b.jpg', 'https://files/u6', 28),
    ]);
    w.downloads.contentUrls.set('https://files/u5', { refuse: 'HTTP 503: busy' });
    w.downloads.contentUrls.set('https://files/u6', { bytes: PHOTO, contentType: 'image/jpeg' });

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
    const mo = await storedMo('MOKEY0007', [
      attachment('photo.jpg', 'https://files/u10', 28),
      attachment('b.jpg', 'https://files/u11', 28),
    ]);
    w.downloads.contentUrls.set('https://files/u10', { refuse: 'HTTP 503: busy' });
    w.downloads.contentUrls.set('https://files/u11', { refuse: 'HTTP 503: busy' });
    w.downloads.files.set('MOKEY0007', { bytes: PHOTO, contentType: 'image/jpeg' });

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
    const mo = await storedMo('MOKEY0006', [attachment('a.jpg', 'https://files/u7', 28)]);
    w.downloads.contentUrls.set('https://files/u7', { bytes: PHOTO, contentType: 'image/jpeg' });
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
    const mo = await storedMo('MOKEY0009', [attachment('a.jpg', 'https://files/u9', 28)]);
    w.downloads.contentUrls.set('https://files/u9', { refuse: 'HTTP 503: busy' });
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
    const mo = await storedMo('MOKEY0007', [attachment('a.jpg', 'https://files/u8', 28)]);
    w.downloads.contentUrls.set('https://files/u8', { bytes: PHOTO, contentType: 'image/jpeg' });
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
    const mo = await storedMo('MO/KEY 8', [
      attachment('사진.jpg', 'https://files/k1', 28),
      attachment('my photo (1).PNG', 'https://files/k2', 28),
      attachment('../../etc/passwd', 'https://files/k3', 28),
    ]);
    for (const url of ['https://files/k1', 'https://files/k2', 'https://files/k3'])
      w.downloads.contentUrls.set(url, { bytes: PHOTO, contentType: 'image/jpeg' });

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
