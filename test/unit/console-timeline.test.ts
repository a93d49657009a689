/**
 * The console's timeline from trace entries: the steps of a send in order (queued, claimed, the
 * gateway's answer, reports, a result found by status reconciliation), an inbound message's
 * attachments stored, lost or still pending, and when each event was put on the bus.
 */
import { describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../console/event-log.ts';
import { toText } from '../../console/html.ts';
import { renderTimeline, timelineOf } from '../../console/timeline.ts';
import { type Trace, type TraceEntry, toEntry } from '../../ops/trace.ts';

const entry = (fields: Partial<TraceEntry> & Pick<TraceEntry, 'pk' | 'sk'>): TraceEntry => ({
  at: undefined,
  type: undefined,
  summary: '',
  data: {},
  ...fields,
});

/**
 * A delivery report of `msgKey` with `resultCode` on `channel` as the trace reads it: delivered
 * when the code is 10000, with the other `fields` and `data` given.
 */
const report = (
  msgKey: string,
  resultCode: string,
  channel: string,
  { data = {}, ...fields }: Partial<Omit<TraceEntry, 'data'>> & { data?: object } = {},
): TraceEntry =>
  entry({
    pk: `REPORT#${msgKey}`,
    sk: `RESULT#${resultCode}#${channel}`,
    type: 'Delivery Report Received',
    ...fields,
    data: { delivered: resultCode === '10000', resultCode, channel, ...data },
  });

const trace = (entries: TraceEntry[]): Trace => ({
  key: 'k',
  cliKey: undefined,
  msgKey: undefined,
  moKey: undefined,
  entries,
});

const published = (id: string, time: string, replayName?: string): PublishedEvent => ({
  line: 1,
  time,
  detailType: 'Delivery Report Received',
  id,
  replayName,
  data: {},
});

describe('timelineOf', () => {
  it('orders a send from its queueing to its reconciled result, with each event and its publications', () => {
    const entries = [
      report('M1', '30001', 'SMS', {
        at: '2026-11-27T09:40:00Z',
        eventId: 'e-reconciled',
        via: 'status-query',
      }),
      entry({
        pk: 'SEND#c1',
        sk: 'MESSAGE accepted.c1',
        at: '2026-11-27T09:00:00Z',
        type: 'Message Accepted (not published)',
        data: { cliKey: 'c1', msgKey: 'M1' },
      }),
      entry({
        pk: 'SEND#c1',
        sk: 'MESSAGE',
        data: { sqsMessageId: 'q-1', owner: '1#x', claimedUntil: 0, channel: 'sms' },
      }),
      report('M1', '10000', 'RCS', {
        at: '2026-11-27T09:01:00Z',
        eventId: 'e-report',
        via: 'webhook',
        data: { fallbackReasons: [] },
      }),
    ];

    const timeline = timelineOf(trace(entries), [
      published('e-report', '2026-11-27T09:01:00Z'),
      published('e-report', '2026-11-27T10:00:00Z', 'replay-1'),
    ]);

    expect(timeline.steps.map((step) => step.stage)).toEqual([
      'queued',
      'claimed',
      'accepted',
      'report',
      'reconciliation',
    ]);
    expect(timeline.steps[4]?.title).toBe(
      'Status reconciliation: not delivered (30001); message delivered',
    );
    expect(timeline.events).toEqual([
      expect.objectContaining({
        id: 'e-report',
        published: [
          { time: '2026-11-27T09:01:00Z' },
          { time: '2026-11-27T10:00:00Z', replayName: 'replay-1' },
        ],
      }),
      expect.objectContaining({ id: 'e-reconciled', published: [] }),
    ]);
  });

  it.each([
    [0, 'Claimed by a sender, sent, and the claim released', []],
    [1, 'Claimed by a sender, and released for a retry of a recipient the gateway may have', []],
    [
      Date.parse('2026-11-27T09:00:30Z'),
      'Claimed by a sender, being sent',
      [['claimedUntil', '2026-11-27T09:00:30.000Z']],
    ],
  ])('tells a send record whose claimedUntil is %s by its claim', (claimedUntil, title, facts) => {
    const timeline = timelineOf(
      trace([
        entry({
          pk: 'SEND#c9',
          sk: 'MESSAGE',
          data: { sqsMessageId: 'q-9', owner: '2#x', claimedUntil, channel: 'sms' },
        }),
      ]),
      [],
    );

    expect(timeline.steps.find((step) => step.stage === 'claimed')).toMatchObject({
      title,
      facts,
    });
  });

  it('says the message stayed delivered on a report stored after its delivery (messageStatus)', () => {
    // Each report as stored: saying its own status
    const delivery = report('M2', '10000', 'SMS', {
      at: '2026-11-27T09:00:00Z',
      via: 'webhook',
      data: { messageStatus: 'delivered' },
    });
    const late = report('M2', '32114', 'MSGR', {
      at: '2026-11-27T09:05:00Z',
      via: 'webhook',
      data: { messageStatus: 'uncertain', resultCodeDesc: 'uncertain' },
    });
    const plain = report('M3', '32004', 'SMS', {
      at: '2026-11-27T09:06:00Z',
      via: 'webhook',
      data: { messageStatus: 'failed' },
    });

    const titles = timelineOf(trace([late, plain, delivery]), []).steps.map((step) => step.title);

    expect(titles).toEqual([
      'Report: delivered on SMS (10000)',
      'Report: not delivered on MSGR (32114 uncertain); message delivered',
      'Report: not delivered on SMS (32004)',
    ]);
  });

  it('shows a rejected send with the gateway code', () => {
    const timeline = timelineOf(
      trace([
        entry({
          pk: 'SEND#c2',
          sk: 'OUTCOME',
          at: '2026-11-27T09:00:00Z',
          type: 'Message Rejected',
          eventId: 'e-rejected',
          data: { cliKey: 'c2', code: '23001', message: 'invalid callback' },
        }),
      ]),
      undefined,
    );

    expect(timeline.steps).toEqual([
      expect.objectContaining({
        stage: 'rejected',
        facts: expect.arrayContaining([['code', '23001']]),
      }),
    ]);
  });

  it('tells stored, lost and pending attachments of an inbound message apart', () => {
    const timeline = timelineOf(
      trace([
        entry({
          pk: 'MO#m1',
          sk: 'ATTACHMENT#2',
          at: '2026-11-27T09:00:00Z',
          type: 'Inbound Attachment Lost',
          data: { index: 2, name: 'c.jpg', reason: 'the content URL expired' },
        }),
        entry({
          pk: 'MO#m1',
          sk: 'ATTACHMENT#0',
          at: '2026-11-27T09:00:00Z',
          type: 'Inbound Attachment Stored',
          data: { index: 0, name: 'a.jpg', s3: { bucket: 'b', key: 'inbound/a.jpg' } },
        }),
        entry({
          pk: 'MO#m1',
          sk: 'MO',
          at: '2026-11-27T09:00:00Z',
          type: 'Inbound Message Received',
          data: { moKey: 'm1', type: 'MMSMO', attachmentCount: 3 },
        }),
      ]),
      [],
    );

    expect(timeline.steps.map((step) => step.stage)).toEqual([
      'inbound',
      'attachment',
      'attachment',
    ]);
    expect(timeline.attachments).toEqual([
      {
        index: 0,
        state: 'stored',
        name: 'a.jpg',
        s3: { bucket: 'b', key: 'inbound/a.jpg' },
        reason: undefined,
      },
      { index: 1, state: 'pending', name: undefined, s3: undefined, reason: undefined },
      {
        index: 2,
        state: 'lost',
        name: 'c.jpg',
        s3: undefined,
        reason: 'the content URL expired',
      },
    ]);
  });

  it('gives every step its time and shows no table key, claim owner or empty list', () => {
    const queuedAt = Date.parse('2026-11-27T08:59:58Z');
    const claimedAt = Date.parse('2026-11-27T08:59:59.250Z');
    const sent = trace([
      entry({
        pk: 'SEND#c3',
        sk: 'MESSAGE',
        data: {
          sqsMessageId: 'q-3',
          owner: '1#4f1c9a2e-attempt',
          claimedUntil: 0,
          queuedAt,
          claimedAt,
          channel: 'rcs',
          recipients: 1,
        },
      }),
      entry({
        pk: 'SEND#c3',
        sk: 'MESSAGE accepted.c3',
        at: '2026-11-27T09:00:00Z',
        type: 'Message Accepted (not published)',
        data: { cliKey: 'c3', msgKey: 'M3', acceptedAt: '2026-11-27T09:00:00Z' },
      }),
      report('M3', '10000', 'SMS', {
        at: '2026-11-27T09:00:05Z',
        eventId: 'e-3',
        via: 'webhook',
        data: {
          fallbackReasons: [
            { channel: 'RCS', resultCode: '61000', resultDesc: 'not an RCS phone' },
          ],
          customFields: {},
          reportedAt: '2026-11-27T09:00:04Z',
        },
      }),
    ]);

    const timeline = timelineOf(sent, [published('e-3', '2026-11-27T09:00:04Z')]);
    const page = toText(renderTimeline(sent, timeline, { onStack: false, hasLog: true }));

    expect(timeline.steps.map((step) => [step.stage, step.at])).toEqual([
      ['queued', '2026-11-27T08:59:58.000Z'],
      ['claimed', '2026-11-27T08:59:59.250Z'],
      ['accepted', '2026-11-27T09:00:00Z'],
      ['report', '2026-11-27T09:00:05Z'],
    ]);
    expect(timeline.steps[3]?.facts).toContainEqual([
      'fallbackReasons',
      'RCS 61000 (not an RCS phone)',
    ]);
    expect(page).not.toMatch(/SEND#|REPORT#|RESULT#|MESSAGE accepted/);
    expect(page).not.toContain('4f1c9a2e');
    expect(page).not.toMatch(/>\[\]<|>\{\}</);
    // Times in KST, with UTC on hover.
    expect(page).toContain('2026-11-27 17:59:58.000 KST');
    expect(page).toContain('title="2026-11-27 08:59:58.000 UTC"');
    expect(page).toContain('2026-11-27 18:00:04.000 KST');
  });

  it('says what "stored" and "on the bus" mean beside the events', () => {
    const stored = trace([
      entry({
        pk: 'MO#m9',
        sk: 'MO',
        at: '2026-11-27T09:00:00Z',
        type: 'Inbound Message Received',
        eventId: 'e-9',
        data: { moKey: 'm9' },
      }),
    ]);

    const local = toText(
      renderTimeline(stored, timelineOf(stored, []), { onStack: false, hasLog: true }),
    );
    const stack = toText(
      renderTimeline(stored, timelineOf(stored, undefined), { onStack: true, hasLog: false }),
    );

    expect(local).toContain(
      '<strong>stored</strong>: when the item was written to the event table',
    );
    expect(local).toContain('by the event’s own time');
    expect(local).toContain('not on the bus yet');
    expect(stack).toContain('keeps no log of its bus');
  });

  it('marks a failed report failed, not as delivered, and gives each event its raw JSON to copy', () => {
    // Prepare
    const reports = trace([
      report('M1', '10000', 'SMS', {
        at: '2026-11-27T09:00:05Z',
        eventId: 'e-ok',
      }),
      report('M2', '40001', 'SMS', {
        at: '2026-11-27T09:00:06Z',
        eventId: 'e-failed',
        metadata: { id: 'e-failed', via: 'webhook' },
        data: { phone: '010****5678' },
      }),
    ]);

    // Act
    const timeline = timelineOf(reports, undefined);
    const page = toText(renderTimeline(reports, timeline, { onStack: true, hasLog: false }));

    // Assess
    expect(timeline.steps.map((step) => step.outcome)).toEqual(['delivered', 'failed']);
    expect(page).toContain(
      'class="step stage-report outcome-failed" data-stage="report" data-outcome="failed"',
    );
    expect(page).toContain('<span class="status status-failed">failed</span>');
    expect(page).toContain('<span class="status status-delivered">delivered</span>');
    expect(JSON.parse(timeline.events[1]?.json ?? '')).toMatchObject({
      'detail-type': 'Delivery Report Received',
      detail: { metadata: { id: 'e-failed', via: 'webhook' }, data: { resultCode: '40001' } },
    });
    expect(page).toContain(
      '<button type="button" class="copy" data-copy="event-json-1">Copy</button>',
    );
    expect(page).toContain('<pre class="json" id="event-json-1">{\n  &quot;detail-type&quot;');
  });
});

describe('the trace of a send record', () => {
  it.each([
    [0, 'send record: 0 of 1 recipients accepted, claim released by 2#x'],
    [1, 'send record: 0 of 1 recipients accepted, claim released by 2#x, marked as maybe sent'],
    [
      Date.parse('2026-11-27T09:00:30Z'),
      'send record: 0 of 1 recipients accepted, claimed by 2#x until 2026-11-27T09:00:30.000Z',
    ],
  ])('summarises claimedUntil %s', (claimedUntil, summary) => {
    const traced = toEntry({
      pk: 'SEND#c9',
      sk: 'MESSAGE',
      owner: '2#x',
      claimedUntil,
      recipients: 1,
    });

    expect(traced.summary).toBe(summary);
  });
});
