import {
  type MessageStatusName,
  reportedStatus,
  statusAfter,
} from '../functions/catalogue/message-status.ts';
import {
  parseAttachmentKey,
  parsePartitionKey,
  parseRejectedPointerKey,
  parseResultKey,
  SORT_KEY,
} from '../functions/commons/table-keys.ts';
import { MAYBE_SENT_UNTIL } from '../functions/send-records/send-record.ts';
import { byTime, gatewayAnswer, type Trace, type TraceEntry } from '../ops/trace.ts';
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
  /** What the step's item says, by its field's name (a time as ISO 8601, shown in KST). */
  readonly facts: ReadonlyArray<readonly [string, string]>;
  /** A report's own outcome, by its result code: a failed one is marked so, not as delivered. */
  readonly outcome?: MessageStatusName;
}

export interface EventStep {
  readonly type: string;
  readonly id: string;
  /** When its item was written to the event table, whose stream publishes it. */
  readonly storedAt: string | undefined;
  /**
   * Each time the bus took it (the local run's log), replays too, by the event's own `time`: when
   * the gateway says it happened, which can come before it was stored.
   */
  readonly published: ReadonlyArray<{ readonly time: string; readonly replayName?: string }>;
  /**
   * The event as JSON: its detail-type, metadata and data from the event table (a report's
   * `messageStatus` as the timeline reads it, as publish-events sets it), phone numbers masked.
   */
  readonly json: string;
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

/** The facts shown as times (KST, UTC on hover). */
const TIME_FACTS: ReadonlySet<string> = new Set([
  'acceptedAt',
  'reportedAt',
  'scheduledFor',
  'receivedAt',
  'claimedUntil',
]);

/** A fallback reason as the gateway gave it: channel, result code and its description. */
const reasonText = (reason: unknown): string => {
  const { channel, resultCode, resultDesc } = (reason ?? {}) as Data;
  return [
    channel,
    resultCode,
    resultDesc === undefined || resultDesc === null ? undefined : `(${String(resultDesc)})`,
  ]
    .filter((part) => part !== undefined && part !== null && part !== '')
    .join(' ');
};

/** A value as one line of text; nothing for an absent value or an empty list or object. */
const str = (value: unknown): string | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? undefined : JSON.stringify(value);
  if (typeof value === 'object' && Object.keys(value).length === 0) return undefined;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
};

/** An epoch-milliseconds attribute as ISO 8601; undefined when it is none. */
const isoOf = (ms: unknown): string | undefined => {
  const value = Number(ms);
  return Number.isFinite(value) && value > 0 ? new Date(value).toISOString() : undefined;
};

const facts = (data: Data, names: readonly string[]): Array<readonly [string, string]> =>
  names.flatMap((name) => {
    const field = data[name];
    const value =
      name === 'fallbackReasons' && Array.isArray(field)
        ? str(
            field
              .map(reasonText)
              .filter((reason) => reason !== '')
              .join('; '),
          )
        : str(field);
    return value === undefined ? [] : [[name, value] as const];
  });

const stepsOf = (entry: TraceEntry): Step[] => {
  const data = dataOf(entry);
  const base = { at: entry.at };
  if (entry.sk === SORT_KEY.sendRecord) {
    // The record's own times (a record written before they were kept has none).
    const maybeSent = Number(data.claimedUntil) === MAYBE_SENT_UNTIL;
    const until = maybeSent ? undefined : isoOf(data.claimedUntil);
    return [
      {
        stage: 'queued',
        title: 'Queued on the send queue',
        at: isoOf(data.queuedAt),
        facts: facts(data, ['sqsMessageId', 'channel', 'recipients']),
      },
      {
        stage: 'claimed',
        title:
          until !== undefined
            ? 'Claimed by a sender, being sent'
            : maybeSent
              ? 'Claimed by a sender, and released for a retry of a recipient the gateway may have'
              : 'Claimed by a sender, sent, and the claim released',
        at: isoOf(data.claimedAt),
        facts: until === undefined ? [] : [['claimedUntil', until]],
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
    const stage: Stage = gatewayAnswer(entry.type) ?? 'sent';
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
    // What became of the message, where this report says otherwise (a late 32114 after 10000).
    const status = str(data.messageStatus);
    const code = str(data.resultCode);
    const message =
      status === undefined || code === undefined || status === reportedStatus(code)
        ? ''
        : `; message ${status}`;
    return [
      {
        ...base,
        stage: reconciled ? 'reconciliation' : 'report',
        ...(code === undefined ? {} : { outcome: reportedStatus(code) }),
        title: reconciled
          ? `Status reconciliation: ${delivered} (${str(data.resultCode) ?? '?'})${message}`
          : `Report: ${delivered} on ${str(data.channel) ?? '?'} (${[str(data.resultCode) ?? '?', str(data.resultCodeDesc)].filter(Boolean).join(' ')})${message}`,
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
  // A cliKey's pointer to a rejected queue message: the rejection itself is a step of its own.
  if (parseRejectedPointerKey(entry.sk) !== undefined) return [];
  const partition = parsePartitionKey(entry.pk).kind;
  if (partition === 'sendRejected') {
    return [
      {
        ...base,
        stage: 'rejected',
        title: `Not sent: ${entry.summary}`,
        facts: facts(data, ['sqsMessageId', 'channel', 'cliKeyCount', 'problemCount']),
      },
    ];
  }
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
  const entries = withMessageStatuses([...trace.entries].sort(byTime));
  const events = entries.flatMap((entry): EventStep[] =>
    entry.eventId === undefined ||
    entry.type === undefined ||
    entry.type.endsWith('(not published)')
      ? []
      : [
          {
            type: entry.type,
            id: entry.eventId,
            storedAt: entry.at,
            published: publications.get(entry.eventId) ?? [],
            json: JSON.stringify(
              {
                'detail-type': entry.type,
                detail: { metadata: entry.metadata, data: entry.data },
              },
              null,
              2,
            ),
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

/**
 * Each report's `messageStatus` as its message's status once it was stored: the highest over it
 * and the message's reports stored before it (`entries` in time order). The table keeps each
 * report's own status; publish-events puts the message's status when it publishes, at least this.
 */
const withMessageStatuses = (entries: readonly TraceEntry[]): TraceEntry[] => {
  const statuses = new Map<string, MessageStatusName>();
  return entries.map((entry) => {
    const data = dataOf(entry);
    const code = str(data.resultCode);
    if (parseResultKey(entry.sk) === undefined || code === undefined) return entry;
    const status = statusAfter(statuses.get(entry.pk), reportedStatus(code));
    statuses.set(entry.pk, status);
    return { ...entry, data: { ...data, messageStatus: status } };
  });
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
    (
      step,
    ) => html`<li class="step stage-${step.stage}${step.outcome ? ` outcome-${step.outcome}` : ''}" data-stage="${step.stage}"${step.outcome ? html` data-outcome="${step.outcome}"` : ''}>
    <div class="when">${time(step.at)}</div>
    <div class="what">${step.outcome ? html`<span class="status status-${step.outcome}">${step.outcome}</span> ` : ''}<strong>${step.title}</strong>
      ${step.facts.length > 0 ? html`<dl>${step.facts.map(([name, value]) => html`<dt>${name}</dt><dd>${TIME_FACTS.has(name) ? fmt(value) : value}</dd>`)}</dl>` : ''}
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
    : html`<p class="legend"><strong>stored</strong>: when the item was written to the event table (by a receiver, the poller, the sender or reconcile-status), whose stream then publishes it. <strong>on the bus</strong>: ${
        options.hasLog
          ? 'each time the bus took the event, by the event’s own time — when the gateway says it happened, to the second, so it can come before “stored” — and each replay of it.'
          : 'a deployed stack keeps no log of its bus that the console can read: an event is published from the table’s stream once stored (msgbridge doctor shows the publisher’s state).'
      }</p>
<div class="scroll"><table class="events" id="published"><thead><tr><th>detail-type</th><th>stored</th><th>on the bus</th><th>event id</th><th>raw JSON</th></tr></thead><tbody>
${timeline.events.map(
  (event, index) =>
    html`<tr data-detail-type="${event.type}"><td>${event.type}</td><td>${time(event.storedAt)}</td><td>${
      options.hasLog
        ? event.published.length === 0
          ? html`<span class="warn">not on the bus yet</span>`
          : event.published.map(
              (p) =>
                html`<div>${p.replayName ? html`replayed (${p.replayName})` : 'on the bus'}, event time ${time(p.time)}</div>`,
            )
        : html`<span class="muted">from the table's stream</span>`
    }</td><td><code>${event.id}</code></td><td class="raw-json"><button type="button" class="copy" data-copy="${`event-json-${index}`}">Copy</button><details><summary>show</summary><pre class="json" id="${`event-json-${index}`}">${event.json}</pre></details></td></tr>`,
)}
</tbody></table></div>`
}`;
