import {
  parseAttachmentKey,
  parsePartitionKey,
  parseResultKey,
  SORT_KEY,
} from '../functions/commons/table-keys.ts';
import { byTime, type Trace, type TraceEntry } from '../ops/trace.ts';
import type { PublishedEvent } from './event-log.ts';
import { html, type SafeHtml } from './html.ts';
import { fmt } from './http.ts';

/*
 * One message's life as steps, from what `msgbridge trace` reads: queued → claimed → sent (the
 * gateway's answer) → accepted or scheduled → reports → status reconciliation, or an inbound
 * message with its attachments; then every event its items became, with the time each was put on
 * the bus where the target keeps a log of it (the local run).
 */

export type Stage =
  | 'queued'
  | 'claimed'
  | 'sent'
  | 'accepted'
  | 'scheduled'
  | 'rejected'
  | 'unknown'
  | 'report'
  | 'reconciliation'
  | 'inbound'
  | 'attachment'
  | 'quarantined'
  | 'other';

export interface Step {
  readonly stage: Stage;
  readonly title: string;
  readonly at: string | undefined;
  readonly item: string;
  readonly facts: ReadonlyArray<readonly [string, string]>;
}

export interface EventStep {
  readonly type: string;
  readonly id: string;
  readonly item: string;
  readonly storedAt: string | undefined;
  /** When the bus took it (local run), each replay after it too. */
  readonly published: ReadonlyArray<{ readonly time: string; readonly replayName?: string }>;
}

export interface Attachment {
  readonly index: number;
  readonly state: 'stored' | 'lost' | 'pending';
  readonly name: string | undefined;
  readonly s3: { readonly bucket: string; readonly key: string } | undefined;
  readonly reason: string | undefined;
}

export interface Timeline {
  readonly steps: readonly Step[];
  readonly events: readonly EventStep[];
  readonly attachments: readonly Attachment[];
}

type Data = Record<string, unknown>;

const dataOf = (entry: TraceEntry): Data =>
  entry.data !== null && typeof entry.data === 'object' ? (entry.data as Data) : {};

const str = (value: unknown): string | undefined =>
  value === undefined || value === null || value === ''
    ? undefined
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

const facts = (data: Data, names: readonly string[]): Array<readonly [string, string]> =>
  names.flatMap((name) => {
    const value = str(data[name]);
    return value === undefined ? [] : [[name, value] as const];
  });

const stepsOf = (entry: TraceEntry): Step[] => {
  const data = dataOf(entry);
  const item = `${entry.pk} ${entry.sk}`;
  const base = { at: entry.at, item };
  if (entry.sk === SORT_KEY.sendRecord) {
    const until = Number(data.claimedUntil);
    return [
      {
        ...base,
        stage: 'queued',
        title: 'Queued on the send queue',
        facts: facts(data, ['sqsMessageId', 'channel', 'recipients']),
      },
      {
        ...base,
        stage: 'claimed',
        title:
          until > 0
            ? `Claimed until ${new Date(until).toISOString()}`
            : 'Claimed, sent, and the claim released',
        facts: facts(data, ['owner']),
      },
    ];
  }
  if (entry.sk.startsWith('MESSAGE accepted.')) {
    return [
      {
        ...base,
        stage: 'accepted',
        title:
          data.alreadyAccepted === true
            ? 'Sent: already accepted'
            : 'Sent: accepted by the gateway',
        facts: facts(data, ['cliKey', 'msgKey', 'channel', 'acceptedAt']),
      },
    ];
  }
  if (entry.sk === 'UNKNOWN') {
    return [
      {
        ...base,
        stage: 'unknown',
        title: `Sent: outcome unknown (${entry.summary})`,
        facts: facts(data, ['code', 'message']),
      },
    ];
  }
  if (entry.sk === SORT_KEY.outcome) {
    const stage: Stage =
      entry.type === 'Message Scheduled'
        ? 'scheduled'
        : entry.type === 'Message Rejected'
          ? 'rejected'
          : entry.type?.startsWith('Message Accepted')
            ? 'accepted'
            : 'sent';
    const title =
      stage === 'scheduled'
        ? 'Sent: scheduled by the gateway'
        : stage === 'rejected'
          ? 'Sent: rejected by the gateway'
          : stage === 'accepted'
            ? 'Sent: accepted by the gateway'
            : `Sent: ${entry.type ?? 'answer'}`;
    return [
      {
        ...base,
        stage,
        title,
        facts: facts(data, [
          'cliKey',
          'msgKey',
          'code',
          'message',
          'channel',
          'phone',
          'scheduledFor',
          'webReqId',
        ]),
      },
    ];
  }
  if (parseResultKey(entry.sk) !== undefined) {
    const reconciled = entry.via === 'status-query';
    const delivered =
      data.delivered === true
        ? 'delivered'
        : data.delivered === false
          ? 'not delivered'
          : 'reported';
    return [
      {
        ...base,
        stage: reconciled ? 'reconciliation' : 'report',
        title: reconciled
          ? `Status reconciliation: ${delivered} (${str(data.resultCode) ?? '?'})`
          : `Report: ${delivered} on ${str(data.channel) ?? '?'} (${str(data.resultCode) ?? '?'} ${str(data.resultCodeDesc) ?? ''})`.trimEnd(),
        facts: [
          ...facts(data, [
            'msgKey',
            'cliKey',
            'channel',
            'resultCode',
            'failureCategory',
            'fallbackReasons',
            'telco',
            'phone',
            'reportedAt',
          ]),
          ...(entry.via ? [['via', entry.via] as const] : []),
        ],
      },
    ];
  }
  if (entry.sk === SORT_KEY.mo) {
    return [
      {
        ...base,
        stage: 'inbound',
        title: `Inbound ${str(data.type) ?? 'message'} received`,
        facts: facts(data, [
          'moKey',
          'sender',
          'receivingNumber',
          'title',
          'text',
          'attachmentCount',
          'telco',
        ]),
      },
    ];
  }
  if (parseAttachmentKey(entry.sk) !== undefined) {
    return [
      {
        ...base,
        stage: 'attachment',
        title:
          entry.type === 'Inbound Attachment Lost'
            ? `Attachment ${str(data.index) ?? ''} lost`
            : `Attachment ${str(data.index) ?? ''} stored`,
        facts: facts(data, ['name', 'contentType', 'sizeBytes', 'reason']),
      },
    ];
  }
  const partition = parsePartitionKey(entry.pk).kind;
  if (partition === 'quarantine' || partition === 'unrecognised') {
    return [
      {
        ...base,
        stage: 'quarantined',
        title: `Quarantined: ${str(data.reason) ?? ''}`,
        facts: facts(data, ['webhook', 'bodySha256']),
      },
    ];
  }
  return [{ ...base, stage: 'other', title: entry.type ?? entry.summary, facts: [] }];
};

const attachmentsOf = (entries: readonly TraceEntry[]): Attachment[] => {
  const mo = entries.find((entry) => entry.sk === SORT_KEY.mo);
  const count = Number(dataOf(mo ?? ({ data: {} } as TraceEntry)).attachmentCount ?? 0);
  const byIndex = new Map<number, Attachment>();
  for (const entry of entries) {
    const attachment = parseAttachmentKey(entry.sk);
    if (attachment === undefined) continue;
    const data = dataOf(entry);
    const { index } = attachment;
    const s3 = data.s3 as { bucket?: unknown; key?: unknown } | undefined;
    byIndex.set(index, {
      index,
      state: entry.type === 'Inbound Attachment Lost' ? 'lost' : 'stored',
      name: str(data.name),
      s3:
        typeof s3?.bucket === 'string' && typeof s3.key === 'string'
          ? { bucket: s3.bucket, key: s3.key }
          : undefined,
      reason: str(data.reason),
    });
  }
  for (let index = 0; index < count; index += 1) {
    if (!byIndex.has(index))
      byIndex.set(index, {
        index,
        state: 'pending',
        name: undefined,
        s3: undefined,
        reason: undefined,
      });
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
};

/** The steps, events and attachments of a trace; `log` gives when each event was published. */
export const timelineOf = (trace: Trace, log: readonly PublishedEvent[] | undefined): Timeline => {
  const publications = new Map<string, Array<{ time: string; replayName?: string }>>();
  for (const event of log ?? []) {
    if (event.id === undefined) continue;
    const list = publications.get(event.id) ?? [];
    list.push({ time: event.time, ...(event.replayName ? { replayName: event.replayName } : {}) });
    publications.set(event.id, list);
  }
  const entries = [...trace.entries].sort(byTime);
  const events = entries.flatMap((entry): EventStep[] =>
    entry.eventId === undefined ||
    entry.type === undefined ||
    entry.type.endsWith('(not published)')
      ? []
      : [
          {
            type: entry.type,
            id: entry.eventId,
            item: `${entry.pk} ${entry.sk}`,
            storedAt: entry.at,
            published: publications.get(entry.eventId) ?? [],
          },
        ],
  );
  // A send record has no time of its own: its queueing and claim came before every answer. An
  // attachment keeps its message's time of arrival: the message itself comes first.
  const steps = entries.flatMap(stepsOf);
  const opening = (step: Step) => ['queued', 'claimed', 'inbound'].includes(step.stage);
  const first = steps.filter(opening);
  const rest = steps.filter((step) => !opening(step));
  return { steps: [...first, ...rest], events, attachments: attachmentsOf(trace.entries) };
};

const time = (at: string | undefined): SafeHtml =>
  at === undefined ? html`<span class="muted">—</span>` : fmt(at);

/** Where an S3 object is seen: the AWS console on a stack; its URI locally. */
const s3Link = (s3: { bucket: string; key: string }, onStack: boolean): SafeHtml =>
  onStack
    ? html`<a href="${`https://s3.console.aws.amazon.com/s3/object/${encodeURIComponent(s3.bucket)}?prefix=${encodeURIComponent(s3.key)}`}" rel="noreferrer noopener" target="_blank">s3://${s3.bucket}/${s3.key}</a>`
    : html`<code>s3://${s3.bucket}/${s3.key}</code>`;

/** The timeline's markup. */
export const renderTimeline = (
  trace: Trace,
  timeline: Timeline,
  options: { readonly onStack: boolean; readonly hasLog: boolean },
): SafeHtml => html`
<section class="keys">
  ${trace.cliKey ? html`<span>cliKey <code>${trace.cliKey}</code></span>` : ''}
  ${trace.msgKey ? html`<span>msgKey <code>${trace.msgKey}</code></span>` : ''}
  ${trace.moKey ? html`<span>moKey <code>${trace.moKey}</code></span>` : ''}
</section>
<ol class="timeline" id="timeline">
  ${timeline.steps.map(
    (step) => html`<li class="step stage-${step.stage}" data-stage="${step.stage}">
    <div class="when">${time(step.at)}</div>
    <div class="what"><strong>${step.title}</strong> <span class="item">${step.item}</span>
      ${step.facts.length > 0 ? html`<dl>${step.facts.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>` : ''}
    </div>
  </li>`,
  )}
</ol>
${
  timeline.attachments.length > 0
    ? html`<h2>Attachments</h2>
<table class="attachments"><thead><tr><th>#</th><th>state</th><th>name</th><th>object</th></tr></thead><tbody>
${timeline.attachments.map(
  (a) =>
    html`<tr data-state="${a.state}"><td>${a.index}</td><td class="state-${a.state}">${a.state}</td><td>${a.name ?? ''}</td><td>${a.s3 ? s3Link(a.s3, options.onStack) : (a.reason ?? '')}</td></tr>`,
)}
</tbody></table>`
    : ''
}
<h2>Events published</h2>
${
  timeline.events.length === 0
    ? html`<p class="muted">No event was stored for this message.</p>`
    : html`<table class="events" id="published"><thead><tr><th>detail-type</th><th>stored</th><th>on the bus (event time)</th><th>event id</th><th>item</th></tr></thead><tbody>
${timeline.events.map(
  (event) =>
    html`<tr data-detail-type="${event.type}"><td>${event.type}</td><td>${time(event.storedAt)}</td><td>${
      options.hasLog
        ? event.published.length === 0
          ? html`<span class="warn">not on the bus yet</span>`
          : event.published.map(
              (p) =>
                html`<div>${time(p.time)}${p.replayName ? html` <span class="muted">(replay ${p.replayName})</span>` : ''}</div>`,
            )
        : html`<span class="muted">from the table's stream</span>`
    }</td><td><code>${event.id}</code></td><td class="item">${event.item}</td></tr>`,
)}
</tbody></table>`
}`;
