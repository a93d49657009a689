import { describe, expect, it } from 'vitest';
import {
  fetchAttachments,
  RETRY_MAX_MS,
  retryDelayMs,
  sweepAttachments,
} from '../../functions/attachments/fetch-use-case.ts';
import {
  BUSY,
  DAY,
  HOUR,
  JPEG,
  RECEIVED_AT,
  storedDetails,
  storedMoServing,
  type World,
  world,
} from '../support/attachment-world.ts';

describe('sweepAttachments', () => {
  const sweepDeps = (w: World) => ({ ...w.deps, shouldContinue: () => true });

  /** One attachment that failed once on the stream path. */
  const failedOnce = async (w: World, moKey: string) => {
    const url = `https://files/${moKey}`;
    const mo = await storedMoServing(w, moKey, [{ name: 'photo.jpg', url, serves: BUSY }]);
    const [outcome] = await fetchAttachments({ ...mo }, w.deps);
    expect(outcome?.result).toBe('pending');
  };

  it('retries a due marker, stores the attachment and deletes the marker', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0101');
    w.downloads.files.set('MOKEY0101', JPEG);

    // Act: not due yet, then due.
    w.clock.now += 4 * 60_000;
    const early = await sweepAttachments(sweepDeps(w));
    w.clock.now += 60_000;
    const due = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(early).toMatchObject({ due: 0, outcomes: [] });
    expect(w.downloads.fileCalls).toEqual(['MOKEY0101', 'MOKEY0101']);
    expect(due.outcomes).toMatchObject([{ result: 'stored', source: 'file-endpoint' }]);
    expect(w.pending.markers.size).toBe(0);
    expect(storedDetails(w.events, 'Inbound Attachment Stored')).toHaveLength(1);
  });

  it('backs off exponentially while the gateway keeps refusing', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0102');
    const nextAttempts: string[] = [];

    // Act: three more failed sweeps, each when the marker is due.
    for (let sweep = 0; sweep < 3; sweep++) {
      const marker = await w.pending.get('MOKEY0102', 0);
      w.clock.now = Date.parse(marker?.nextAttemptAt ?? '');
      await sweepAttachments(sweepDeps(w));
      nextAttempts.push((await w.pending.get('MOKEY0102', 0))?.nextAttemptAt ?? '');
    }

    // Assess: 5 min after the first failure, then 10, 20 and 40 minutes.
    expect(nextAttempts).toEqual([
      '2026-11-21T00:45:00.000Z',
      '2026-11-21T01:05:00.000Z',
      '2026-11-21T01:45:00.000Z',
    ]);
    expect(await w.pending.get('MOKEY0102', 0)).toMatchObject({
      attempts: 4,
      firstFailedAt: RECEIVED_AT,
    });
    expect(retryDelayMs(1)).toBe(5 * 60_000);
    expect(retryDelayMs(40)).toBe(RETRY_MAX_MS);
  });

  it('never schedules a retry after the 7-day window', async () => {
    // Prepare: a marker at its 30th attempt, 6 days 22 hours after the message arrived.
    const w = world();
    await failedOnce(w, 'MOKEY0103');
    const marker = await w.pending.get('MOKEY0103', 0);
    if (!marker) throw new Error('no marker');
    await w.pending.save({ ...marker, attempts: 30 });
    w.clock.now = Date.parse(RECEIVED_AT) + 7 * DAY - 2 * HOUR;
    await w.pending.save({
      ...marker,
      attempts: 30,
      nextAttemptAt: new Date(w.clock.now).toISOString(),
    });

    // Act
    await sweepAttachments(sweepDeps(w));

    // Assess
    expect((await w.pending.get('MOKEY0103', 0))?.nextAttemptAt).toBe('2026-11-28T00:30:00.000Z');
  });

  it('reports an attachment lost after 7 days, with the last reason, and deletes the marker', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0104');
    w.clock.now = Date.parse(RECEIVED_AT) + 7 * DAY + 60_000;
    const callsBefore = w.downloads.fileCalls.length;

    // Act
    const result = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(result.outcomes).toMatchObject([{ result: 'lost', attempts: 1 }]);
    expect(w.downloads.fileCalls).toHaveLength(callsBefore);
    expect(w.pending.markers.size).toBe(0);
    const [lost] = storedDetails(w.events, 'Inbound Attachment Lost');
    expect(lost?.data).toEqual({
      moKey: 'MOKEY0104',
      index: 0,
      name: 'photo.jpg',
      reason: 'content-url: HTTP 503: busy; file-endpoint: GET /mo/v1/file/{moKey}: 21601 no MO',
      attempts: 1,
      receivedAt: RECEIVED_AT,
    });
    expect(w.events.ofKind('attachment')[0]).toMatchObject({
      pk: 'MO#MOKEY0104',
      sk: 'ATTACHMENT#0#LOST',
    });
  });

  it('ends a later attachment as lost once its content URL expired, without asking the file endpoint', async () => {
    // Prepare: the second attachment's content URL failed; the first one is stored.
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0108', [
      { name: 'photo.jpg', url: 'https://files/u12', serves: JPEG },
      { name: 'b.jpg', url: 'https://files/u13', serves: BUSY },
    ]);
    await fetchAttachments({ ...mo }, w.deps);

    // Act: a sweep while the URL is young retries it; one after 24 h ends it.
    w.clock.now = Date.parse(RECEIVED_AT) + 23 * HOUR;
    const young = await sweepAttachments(sweepDeps(w));
    w.clock.now = Date.parse(RECEIVED_AT) + 24 * HOUR;
    const expired = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(young.outcomes).toMatchObject([{ result: 'pending', attempts: 2 }]);
    expect(young.outcomes[0]?.result === 'pending' && young.outcomes[0].nextAttemptAt).toBe(
      '2026-11-21T23:40:00.000Z',
    );
    expect(expired.outcomes).toMatchObject([{ result: 'lost', attempts: 2 }]);
    expect(w.downloads.fileCalls).toEqual([]);
    expect(w.downloads.contentUrlCalls).toEqual([
      'https://files/u12',
      'https://files/u13',
      'https://files/u13',
    ]);
    expect(w.pending.markers.size).toBe(0);
    const [lost] = storedDetails(w.events, 'Inbound Attachment Lost');
    expect(lost?.data).toMatchObject({ moKey: 'MOKEY0108', index: 1, name: 'b.jpg', attempts: 2 });
    expect(lost?.data.reason).toBe(
      'the content URL expired 24 h after receipt and GET /mo/v1/file/{moKey} serves only the ' +
        'first attachment; last error: content-url: HTTP 503: busy',
    );
  });

  it('ends a later attachment as lost at once when the message is first seen after 24 h', async () => {
    // Prepare
    const w = world();
    const mo = await storedMoServing(w, 'MOKEY0107', [
      { name: 'photo.jpg', url: 'https://files/u14' },
      { name: 'b.jpg', url: 'https://files/u15' },
    ]);
    w.downloads.files.set('MOKEY0107', JPEG);
    w.clock.now = Date.parse(RECEIVED_AT) + 25 * HOUR;

    // Act
    const outcomes = await fetchAttachments({ ...mo }, w.deps);

    // Assess
    expect(outcomes).toMatchObject([
      { result: 'stored', source: 'file-endpoint' },
      { result: 'lost', attempts: 0 },
    ]);
    expect(w.downloads.contentUrlCalls).toEqual([]);
    expect(w.downloads.fileCalls).toEqual(['MOKEY0107']);
    expect(w.pending.markers.size).toBe(0);
  });

  it('deletes a marker whose attachment a stream retry has stored meanwhile', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0105');
    const stale = await w.pending.get('MOKEY0105', 0);
    const mo = await storedMoServing(w, 'MOKEY0105', [
      { name: 'photo.jpg', url: 'https://files/again', serves: JPEG },
    ]);
    await fetchAttachments({ ...mo }, w.deps);
    const afterSuccess = w.pending.markers.size;
    // A sweep that had the marker in hand writes its failure back after the stream's success.
    if (stale) await w.pending.save(stale);
    w.clock.now += HOUR;
    const callsBefore = w.downloads.fileCalls.length;

    // Act
    const result = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(afterSuccess).toBe(0);
    expect(result.outcomes).toMatchObject([{ result: 'skipped' }]);
    expect(w.downloads.fileCalls).toHaveLength(callsBefore);
    expect(w.pending.markers.size).toBe(0);
  });

  it('keeps going past a marker that fails on our side, and leaves that marker due', async () => {
    // Prepare
    const w = world();
    await failedOnce(w, 'MOKEY0106');
    await failedOnce(w, 'MOKEY0107');
    w.downloads.files.set('MOKEY0106', JPEG);
    w.downloads.files.set('MOKEY0107', JPEG);
    w.storage.failNext = 1;
    w.clock.now += HOUR;

    // Act
    const result = await sweepAttachments(sweepDeps(w));

    // Assess
    expect(result.errors.map((failure) => failure.marker.moKey)).toEqual(['MOKEY0106']);
    expect(result.outcomes).toMatchObject([{ result: 'stored', ref: { moKey: 'MOKEY0107' } }]);
    expect([...w.pending.markers.keys()]).toEqual(['MOKEY0106#0']);
  });

  it('stops taking markers when told to, leaving the rest due', async () => {
    const w = world();
    await failedOnce(w, 'MOKEY0108');
    await failedOnce(w, 'MOKEY0109');
    w.clock.now += HOUR;
    let budget = 1;

    const result = await sweepAttachments({ ...w.deps, shouldContinue: () => budget-- > 0 });

    expect(result).toMatchObject({ due: 2, deferred: 1 });
    expect(w.pending.markers.size).toBe(2);
  });
});
