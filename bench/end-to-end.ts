/**
 * Scenario `end-to-end`: the whole bridge on one machine (`local/bridge.ts`), counting every AWS
 * call and every gateway call, then pricing them per million messages.
 *
 * Outbound phase: 100 queue messages of 10 recipients (92 SMS, and one message per other channel:
 * MMS with an S3 attachment, three RCS variants, push, messenger notice, two brand messages)
 * through the producer helper, until every recipient has a delivery event. Inbound phase: 100
 * inbound messages, one webhook each, 10 of them with an attachment, until each has its event
 * and every attachment is in S3. The two phases are counted apart, so each has its own cost.
 *
 * Counted: DynamoDB (calls and the capacity units DynamoDB Local reports), DynamoDB Streams, SQS
 * (requests in 64 KB chunks), S3, the local bus's PutEvents (events in 64 KB chunks), and every
 * HTTP request to the gateway simulator and to the webhook routes (API Gateway requests). Lambda
 * requests are the invocations the local stand-ins make: one per webhook request, per non-empty
 * SQS receive (a batch), per stream poller invocation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { BusEntry } from '../functions/events/publish.ts';
import { SEND_MESSAGE_EXAMPLES } from '../functions/sending/examples.ts';
import { enqueueSend } from '../functions/sending/producer.ts';
import type { SendMessageInput } from '../functions/sending/queue-message.ts';
import { type LocalBridge, startLocalBridge } from '../local/bridge.ts';
import type { SimSnapshot } from '../simulator/controls.ts';
import { smsBody } from '../test/support/send-fixtures.ts';
import {
  CallCounter,
  type CallObservation,
  type CallSnapshot,
  diffSnapshots,
  HttpCounter,
  sumWhere,
} from './call-counter.ts';
import { LAMBDA_MEMORY_MB, PRICE_REGION, PRICES, PRICES_AS_OF } from './prices.ts';
import { type Cell, ratio, round, type ScenarioResult, significant, type Table } from './report.ts';

const QUOTA = 1_000;
const QUEUE_MESSAGES = 100;
const RECIPIENTS_PER_MESSAGE = 10;
const INBOUND_MESSAGES = 100;
const INBOUND_WITH_ATTACHMENT = 10;
const PHASE_TIMEOUT_MS = 120_000;
/** After a phase's last event: late duplicate webhooks and deletes land before the next phase. */
const SETTLE_MS = 1_500;

const MMS_ASSET = { bucket: 'hanbit-mms-assets', key: 'campaigns/2026-12/poster.jpg' };

type LambdaName = keyof typeof LAMBDA_MEMORY_MB;

// ---- workload ----

/** The examples of `docs/sending.md`, each with 10 recipients; scheduled and reply sends left out. */
const otherChannelMessages = (runId: string): SendMessageInput[] =>
  SEND_MESSAGE_EXAMPLES.filter(
    (example) =>
      (example.message as { resvYn?: string }).resvYn !== 'Y' &&
      example.message.channel !== 'rcs-reply',
  ).map((example, m) => {
    const copy = structuredClone(example.message) as Record<string, unknown>;
    const template = Array.isArray(copy.recvInfoLst)
      ? (copy.recvInfoLst[0] as Record<string, unknown>)
      : {};
    copy.recvInfoLst = Array.from({ length: RECIPIENTS_PER_MESSAGE }, (_, i) => ({
      ...template,
      cliKey: `b${runId}-${m}-${i}`,
      phone: `0109876${String(m * 100 + i).padStart(4, '0')}`,
      ...('cuid' in template ? { cuid: `user-${m}-${i}` } : {}),
    }));
    return copy as SendMessageInput;
  });

const outboundMessages = (runId: string): SendMessageInput[] => {
  const others = otherChannelMessages(runId);
  const sms = Array.from(
    { length: QUEUE_MESSAGES - others.length },
    () => ({ channel: 'sms', ...smsBody(RECIPIENTS_PER_MESSAGE) }) as SendMessageInput,
  );
  return [...sms, ...others];
};

// ---- what the bus sees ----

/** A PutEvents entry's size as EventBridge bills it: time, source, detail-type and detail. */
const entryBytes = (entry: BusEntry) =>
  14 +
  Buffer.byteLength(entry.Source, 'utf8') +
  Buffer.byteLength(entry.DetailType, 'utf8') +
  Buffer.byteLength(entry.Detail, 'utf8');

class EventWatch {
  readonly byType = new Map<string, number>();
  /** When the last event of each detail-type was put. */
  readonly lastAt = new Map<string, number>();
  readonly reportedKeys = new Set<string>();
  bytes = 0;

  count(type: string): number {
    return this.byType.get(type) ?? 0;
  }

  /** Wraps the bus's PutEvents: each call is counted, timed and looked into. */
  attach(bridge: LocalBridge, counter: CallCounter): void {
    const bus = bridge.bus;
    const put = bus.putEvents.bind(bus);
    bus.putEvents = async (entries) => {
      const startedAt = performance.now();
      const results = await put(entries);
      const endedAt = performance.now();
      let units = 0;
      for (const entry of entries) {
        const bytes = entryBytes(entry);
        units += Math.max(1, Math.ceil(bytes / (64 * 1024)));
        this.bytes += bytes;
        this.byType.set(entry.DetailType, this.count(entry.DetailType) + 1);
        this.lastAt.set(entry.DetailType, endedAt);
        if (entry.DetailType === 'Delivery Report Received') {
          const detail = JSON.parse(entry.Detail) as { data?: { msgKey?: unknown } };
          this.reportedKeys.add(String(detail.data?.msgKey));
        }
      }
      counter.record('EventBridge PutEvents', { calls: 1, ms: endedAt - startedAt, units });
      return results;
    };
  }
}

/**
 * The send-messages "invocations": each non-empty receive is one batch, which lasts until the
 * last of its messages is deleted or given back (ChangeMessageVisibility).
 */
class SendBatches {
  private readonly batches: Array<{ startedAt: number; endedAt: number }> = [];
  private readonly byHandle = new Map<string, { startedAt: number; endedAt: number }>();

  readonly observe = (call: CallObservation): void => {
    if (call.service !== 'SQS') return;
    if (call.operation === 'ReceiveMessage') {
      const messages = (call.output?.Messages ?? []) as Array<{ ReceiptHandle?: string }>;
      if (messages.length === 0) return;
      const batch = { startedAt: call.endedAt, endedAt: call.endedAt };
      this.batches.push(batch);
      for (const message of messages)
        if (message.ReceiptHandle) this.byHandle.set(message.ReceiptHandle, batch);
      return;
    }
    if (call.operation === 'DeleteMessage' || call.operation === 'ChangeMessageVisibility') {
      const batch = this.byHandle.get(String(call.input.ReceiptHandle));
      if (batch) batch.endedAt = Math.max(batch.endedAt, call.endedAt);
    }
  };

  /** Invocations started in [from, to) and their summed duration. */
  between(from: number, to: number): { invocations: number; ms: number } {
    const inside = this.batches.filter((b) => b.startedAt >= from && b.startedAt < to);
    return {
      invocations: inside.length,
      ms: inside.reduce((sum, b) => sum + (b.endedAt - b.startedAt), 0),
    };
  }

  /** When the last batch started in [from, to) ended. */
  lastEndedAt(from: number, to: number): number {
    return this.batches
      .filter((b) => b.startedAt >= from && b.startedAt < to)
      .reduce((last, b) => Math.max(last, b.endedAt), 0);
  }
}

/**
 * Waits until the table calls stop for a second: the scheduled jobs' first runs (token refresh,
 * reconcile-status's 97 hourly buckets, the attachment sweep) start with the bridge and must not
 * be counted as the first phase's. Their next runs are a minute later, after both phases.
 */
const waitForQuietTables = async (counter: CallCounter) => {
  const tableCalls = () =>
    sumWhere(counter.snapshot(), (key) => key.startsWith('DynamoDB ') && !key.includes('Streams'));
  const deadline = Date.now() + 30_000;
  for (let last = -1; Date.now() < deadline; ) {
    const now = tableCalls();
    if (now === last) return;
    last = now;
    await sleep(1_000);
  }
};

const waitUntil = async (condition: () => boolean, timeoutMs: number, what: () => string) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`end-to-end: timed out waiting for ${what()}`);
    await sleep(100);
  }
};

// ---- one phase's figures ----

interface PhaseFigures {
  readonly messages: number;
  readonly calls: CallSnapshot;
  readonly lambda: Record<LambdaName, { invocations: number; ms: number }>;
  readonly eventBytes: number;
  readonly events: number;
  readonly simulator: {
    readonly sends: number;
    readonly rejectedSends: number;
    readonly authentications: number;
    readonly reportPosts: number;
    readonly moPosts: number;
  };
}

const isKey = (prefix: string) => (key: string) => key.startsWith(prefix);

/** Cost lines: what is billed, units per message, USD per million messages. */
const costLines = (phase: PhaseFigures) => {
  const { calls, messages } = phase;
  const per = (units: number) => units / messages;
  const dynamoWrite = (key: string) =>
    key.startsWith('DynamoDB ') &&
    /^DynamoDB (PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)\b/.test(key);
  const dynamoRead = (key: string) =>
    /^DynamoDB (GetItem|Query|Scan|BatchGetItem|TransactGetItems)\b/.test(key);
  const s3Put = (key: string) =>
    /^S3 (PutObject|CopyObject|CreateMultipartUpload|UploadPart|CompleteMultipartUpload|ListObjects)/.test(
      key,
    );
  const s3Get = (key: string) => key.startsWith('S3 ') && !s3Put(key) && !key.includes('Delete');
  // Empty receives are the pollers waiting: a cost per hour, not per message (see the docs).
  const sqsBilled = (key: string) => key.startsWith('SQS ') && !key.endsWith('(empty)');
  const lambdaInvocations = Object.values(phase.lambda).reduce((s, l) => s + l.invocations, 0);
  const gbSeconds = (Object.keys(phase.lambda) as LambdaName[]).reduce(
    (sum, name) => sum + (phase.lambda[name].ms / 1_000) * (LAMBDA_MEMORY_MB[name] / 1_024),
    0,
  );
  const perMillion = (price: number) => `$${round(price * 1e6, 4)} / 1M`;
  const lines: Array<{ line: string; price: string; unitPrice: number; units: number }> = [
    {
      line: 'API Gateway REST requests',
      price: perMillion(PRICES.apiGatewayRestRequest),
      unitPrice: PRICES.apiGatewayRestRequest,
      units: sumWhere(calls, isKey('webhooks POST')),
    },
    {
      line: 'Lambda requests',
      price: perMillion(PRICES.lambdaRequest),
      unitPrice: PRICES.lambdaRequest,
      units: lambdaInvocations,
    },
    {
      line: 'Lambda GB-seconds (arm64)',
      price: `$${PRICES.lambdaArmGbSecond} / GB-s`,
      unitPrice: PRICES.lambdaArmGbSecond,
      units: gbSeconds,
    },
    {
      line: 'DynamoDB write request units',
      price: perMillion(PRICES.dynamoDbWriteRequestUnit),
      unitPrice: PRICES.dynamoDbWriteRequestUnit,
      units: sumWhere(calls, dynamoWrite, 'units'),
    },
    {
      line: 'DynamoDB read request units',
      price: perMillion(PRICES.dynamoDbReadRequestUnit),
      unitPrice: PRICES.dynamoDbReadRequestUnit,
      units: sumWhere(calls, dynamoRead, 'units'),
    },
    {
      line: 'DynamoDB Streams GetRecords',
      price: `free from Lambda (else ${perMillion(PRICES.dynamoDbStreamsReadRequest)})`,
      unitPrice: 0,
      units: sumWhere(calls, isKey('DynamoDB Streams GetRecords')),
    },
    {
      line: 'SQS requests (64 KB chunks)',
      price: perMillion(PRICES.sqsRequest),
      unitPrice: PRICES.sqsRequest,
      units: sumWhere(calls, sqsBilled, 'units'),
    },
    {
      line: 'EventBridge events (64 KB chunks)',
      price: perMillion(PRICES.eventBridgeEvent),
      unitPrice: PRICES.eventBridgeEvent,
      units: sumWhere(calls, isKey('EventBridge PutEvents'), 'units'),
    },
    {
      line: 'EventBridge archive (GB processed)',
      price: `$${PRICES.eventBridgeArchiveGb} / GB`,
      unitPrice: PRICES.eventBridgeArchiveGb,
      units: phase.eventBytes / 1024 ** 3,
    },
    {
      line: 'S3 PUT-class requests',
      price: perMillion(PRICES.s3PutRequest),
      unitPrice: PRICES.s3PutRequest,
      units: sumWhere(calls, s3Put),
    },
    {
      line: 'S3 GET-class requests',
      price: perMillion(PRICES.s3GetRequest),
      unitPrice: PRICES.s3GetRequest,
      units: sumWhere(calls, s3Get),
    },
  ];
  return lines.map((l) => ({
    ...l,
    unitsPerMessage: per(l.units),
    usdPerMillion: per(l.units) * l.unitPrice * 1e6,
  }));
};

// ---- the run ----

export const runEndToEnd = async (): Promise<ScenarioResult> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-e2e-'));
  const counter = new CallCounter();
  const events = new EventWatch();
  const sendBatches = new SendBatches();
  let http: HttpCounter | undefined;
  let bridge: LocalBridge | undefined;
  try {
    bridge = await startLocalBridge({
      port: 0,
      simulatorPort: 0,
      webhookSecret: 'bench-secret-0123456789',
      dataDir,
      apiKey: 'bench-key',
      apiPassword: 'bench-password',
      tpsQuota: QUOTA,
      printEvents: false,
      simulator: {
        // The simulator's outcome mix (10% failed, 70% of those delivered by fallback, 2%
        // uncertain), a few duplicate webhook deliveries, and short delays so the run is short.
        reportDelayMs: 1_000,
        webhookRetryIntervalMs: 1_000,
        faults: { duplicateWebhookRate: 0.05 },
        seed: 6,
      },
    });
    const b = bridge;
    counter.instrument(b.documents.middlewareStack, 'DynamoDB');
    counter.instrument(b.streams.middlewareStack, 'DynamoDB Streams');
    counter.instrument(b.sqs.middlewareStack, 'SQS', sendBatches.observe);
    counter.instrument(b.s3.middlewareStack, 'S3');
    events.attach(b, counter);
    http = new HttpCounter(
      counter,
      new Map([
        [b.urls.simulator.replace(/\/$/, ''), 'gateway'],
        [b.urls.webhooks.replace(/\/$/, ''), 'webhooks'],
      ]),
    );

    // Setup, not counted: the MMS example's poster in its bucket.
    b.fauxqs.createBucket(MMS_ASSET.bucket);
    await b.s3.send(
      new PutObjectCommand({
        Bucket: MMS_ASSET.bucket,
        Key: MMS_ASSET.key,
        Body: Buffer.alloc(40_000, 7),
        ContentType: 'image/jpeg',
      }),
    );

    await waitForQuietTables(counter);

    const runId = Date.now().toString(36);
    const messages = outboundMessages(runId);
    const recipients = messages.length * RECIPIENTS_PER_MESSAGE;

    // ---- outbound ----
    const outStart = mark(b, counter, events);
    const queued = await enqueueSend(b.sqs, b.urls.sendQueue, messages);
    if (queued.invalid.length > 0 || queued.failed.length > 0)
      throw new Error(
        `end-to-end: enqueue refused ${JSON.stringify(queued.invalid.at(0) ?? queued.failed.at(0))}`,
      );
    const decided = () => events.count('Message Accepted') + events.count('Message Rejected');
    await waitUntil(
      () => decided() >= recipients,
      PHASE_TIMEOUT_MS,
      () => `decisions: ${decided()}/${recipients}`,
    );
    await waitUntil(
      () => events.reportedKeys.size >= events.count('Message Accepted'),
      PHASE_TIMEOUT_MS,
      () => `reports: ${events.reportedKeys.size}/${events.count('Message Accepted')}`,
    );
    const acceptedAt = events.lastAt.get('Message Accepted') ?? Number.NaN;
    const outLastEventAt = events.lastAt.get('Delivery Report Received') ?? Number.NaN;
    await sleep(SETTLE_MS);
    const outEnd = mark(b, counter, events);
    const sentAt = sendBatches.lastEndedAt(outStart.at, outEnd.at);
    const outbound = phaseFigures(outStart, outEnd, sendBatches, events.reportedKeys.size);

    // ---- inbound ----
    const inStart = outEnd;
    const inboundBefore = events.count('Inbound Message Received');
    for (let i = 0; i < INBOUND_MESSAGES; i++) {
      const withAttachment = i < INBOUND_WITH_ATTACHMENT;
      b.sim.injectMo([
        {
          moType: withAttachment ? 'MMSMO' : i % 2 === 0 ? 'SMSMO' : 'LMSMO',
          moCallback: `0101234${String(1000 + i)}`,
          moNumber: '15880000',
          moMsg: `문의 ${i}`,
          ...(withAttachment
            ? {
                attachments: [
                  { name: `photo-${i}.jpg`, contentType: 'image/jpeg', sizeBytes: 50_000 },
                ],
              }
            : {}),
        },
      ]);
      await sleep(5);
    }
    const inbound = () => events.count('Inbound Message Received') - inboundBefore;
    await waitUntil(
      () =>
        inbound() >= INBOUND_MESSAGES &&
        events.count('Inbound Attachment Stored') >= INBOUND_WITH_ATTACHMENT,
      PHASE_TIMEOUT_MS,
      () =>
        `inbound: ${inbound()}/${INBOUND_MESSAGES}, attachments ${events.count('Inbound Attachment Stored')}`,
    );
    await sleep(SETTLE_MS);
    const inEnd = mark(b, counter, events);
    const inboundFigures = phaseFigures(inStart, inEnd, sendBatches, inbound());

    // ---- figures ----
    const outboundSeconds = (outLastEventAt - outStart.at) / 1_000;
    const acceptSeconds = (acceptedAt - outStart.at) / 1_000;
    const sentSeconds = (sentAt - outStart.at) / 1_000;
    const outboundCost = costLines(outbound);
    const inboundCost = costLines(inboundFigures);
    const total = (lines: ReturnType<typeof costLines>) =>
      lines.reduce((sum, line) => sum + line.usdPerMillion, 0);
    const putEventsCalls = sumWhere(outbound.calls, isKey('EventBridge PutEvents'));
    const sends = outbound.simulator.sends + outbound.simulator.rejectedSends;
    const problems = [
      ...(b.poisoned.length > 0 ? [`${b.poisoned.length} poisoned stream records`] : []),
      ...((b.fauxqs.inspectQueue('msgbridge-send-dlq')?.messages.ready.length ?? 0) > 0
        ? ['messages in the send DLQ']
        : []),
    ];
    if (problems.length > 0) throw new Error(`end-to-end: ${problems.join('; ')}`);

    const figures = {
      workload: {
        queueMessages: messages.length,
        recipients,
        recipientsPerMessage: RECIPIENTS_PER_MESSAGE,
        channels: [...new Set(messages.map((m) => m.channel))],
        inboundMessages: INBOUND_MESSAGES,
        inboundAttachments: INBOUND_WITH_ATTACHMENT,
        tpsQuota: QUOTA,
      },
      outbound: {
        deliveryEvents: outbound.messages,
        duplicateDeliveryEvents:
          events.count('Delivery Report Received') - events.reportedKeys.size,
        accepted: events.count('Message Accepted'),
        rejected: events.count('Message Rejected'),
        secondsToLastQueueMessageSent: round(sentSeconds, 2),
        secondsToLastAcceptedEvent: round(acceptSeconds, 2),
        secondsToLastDeliveryEvent: round(outboundSeconds, 2),
        recipientsPerSecondSent: round(recipients / sentSeconds, 1),
        recipientsPerSecondToDeliveryEvent: round(outbound.messages / outboundSeconds, 1),
        putEventsCallsPerEvent: ratio(putEventsCalls, outbound.events),
        gatewaySendCallsPerRecipient: ratio(sends, outbound.messages),
        gatewayCallsPerRecipient: ratio(
          sumWhere(outbound.calls, isKey('gateway ')),
          outbound.messages,
        ),
        simulator: outbound.simulator,
        lambda: outbound.lambda,
        calls: roundCalls(outbound.calls),
        costPerMillionUsd: round(total(outboundCost), 2),
        cost: outboundCost.map(roundCost),
      },
      inbound: {
        inboundEvents: inboundFigures.messages,
        attachmentEvents: events.count('Inbound Attachment Stored'),
        simulator: inboundFigures.simulator,
        lambda: inboundFigures.lambda,
        calls: roundCalls(inboundFigures.calls),
        costPerMillionUsd: round(total(inboundCost), 2),
        cost: inboundCost.map(roundCost),
      },
      prices: { asOf: PRICES_AS_OF, region: PRICE_REGION, ...PRICES },
    };

    return {
      figures,
      tables: [
        {
          title: 'end-to-end: workload and throughput (one run; times are for context)',
          columns: ['figure', 'value'],
          rows: [
            ['queue messages × recipients', `${messages.length} × ${RECIPIENTS_PER_MESSAGE}`],
            ['recipients with a delivery event', String(outbound.messages)],
            [
              'second delivery events for a recipient',
              String(events.count('Delivery Report Received') - events.reportedKeys.size),
            ],
            [
              'inbound messages (with attachment)',
              `${inboundFigures.messages} (${INBOUND_WITH_ATTACHMENT})`,
            ],
            ['simulator TPS quota', String(QUOTA)],
            ['s from first enqueue to last queue message sent', String(round(sentSeconds, 2))],
            [
              's from first enqueue to last "Message Accepted" event',
              String(round(acceptSeconds, 2)),
            ],
            ['s from first enqueue to last delivery event', String(round(outboundSeconds, 2))],
            ['recipients/s through send-messages', String(round(recipients / sentSeconds, 1))],
            [
              'recipients/s to their delivery event',
              String(round(outbound.messages / outboundSeconds, 1)),
            ],
            [
              'PutEvents calls per event (outbound)',
              String(ratio(putEventsCalls, outbound.events)),
            ],
            ['gateway send calls per recipient', String(ratio(sends, outbound.messages))],
          ],
        },
        callsTable(outbound, inboundFigures),
        lambdaTable(outbound, inboundFigures),
        costTable(outboundCost, inboundCost, total),
      ],
    };
  } finally {
    http?.close();
    await bridge?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

// ---- phase bookkeeping ----

interface Mark {
  readonly at: number;
  readonly calls: CallSnapshot;
  readonly publisherInvocations: number;
  readonly fetcherInvocations: number;
  readonly eventBytes: number;
  readonly events: number;
  readonly sim: SimSnapshot;
}

const mark = (bridge: LocalBridge, counter: CallCounter, events: EventWatch): Mark => ({
  at: performance.now(),
  calls: counter.snapshot(),
  publisherInvocations: bridge.publisher.stats.invocations,
  fetcherInvocations: bridge.jobs.fetcher.stats.invocations,
  eventBytes: events.bytes,
  events: [...events.byType.values()].reduce((sum, n) => sum + n, 0),
  sim: bridge.sim.snapshot(),
});

const phaseFigures = (
  start: Mark,
  end: Mark,
  sendBatches: SendBatches,
  messages: number,
): PhaseFigures => {
  const calls = diffSnapshots(end.calls, start.calls);
  const ms = (test: (key: string) => boolean) => sumWhere(calls, test, 'ms');
  const webhook = (route: string) => isKey(`webhooks POST /webhooks/{secret}/${route}`);
  return {
    messages,
    calls,
    lambda: {
      'receive-reports': {
        invocations: sumWhere(calls, webhook('report')),
        ms: ms(webhook('report')),
      },
      'receive-inbound': { invocations: sumWhere(calls, webhook('mo')), ms: ms(webhook('mo')) },
      'send-messages': sendBatches.between(start.at, end.at),
      // The handler's time is spent almost all in PutEvents: their summed time stands for it.
      'publish-events': {
        invocations: end.publisherInvocations - start.publisherInvocations,
        ms: ms(isKey('EventBridge PutEvents')),
      },
      // Downloads from the gateway and uploads to S3 stand for the handler's time.
      'fetch-attachments': {
        invocations: end.fetcherInvocations - start.fetcherInvocations,
        ms:
          ms((key) => /^S3 (Put|Upload|CreateMultipart|CompleteMultipart)/.test(key)) +
          ms((key) => /^gateway GET \/(_sim\/content|mo\/v1\/file)\//.test(key)),
      },
    },
    eventBytes: end.eventBytes - start.eventBytes,
    events: end.events - start.events,
    simulator: {
      sends: end.sim.sends - start.sim.sends,
      rejectedSends: end.sim.rejectedSends - start.sim.rejectedSends,
      authentications: end.sim.authentications - start.sim.authentications,
      reportPosts: end.sim.reports.webhook.posts - start.sim.reports.webhook.posts,
      moPosts: end.sim.mo.webhookPosts - start.sim.mo.webhookPosts,
    },
  };
};

const roundCalls = (calls: CallSnapshot) =>
  Object.fromEntries(
    Object.entries(calls).map(([key, t]) => [
      key,
      { ...t, ms: round(t.ms, 1), units: round(t.units, 2) },
    ]),
  );

const roundCost = (line: ReturnType<typeof costLines>[number]) => ({
  line: line.line,
  price: line.price,
  unitPriceUsd: line.unitPrice,
  units: significant(line.units),
  unitsPerMessage: significant(line.unitsPerMessage),
  usdPerMillionMessages: round(line.usdPerMillion, 4),
});

// ---- tables ----

const callsTable = (outbound: PhaseFigures, inbound: PhaseFigures): Table => {
  const keys = [...new Set([...Object.keys(outbound.calls), ...Object.keys(inbound.calls)])].sort();
  const row = (key: string): Cell[] => {
    const out = outbound.calls[key];
    const inn = inbound.calls[key];
    return [
      key,
      out?.calls ?? 0,
      ratio(out?.calls ?? 0, outbound.messages),
      ratio(out?.units ?? 0, outbound.messages),
      inn?.calls ?? 0,
      ratio(inn?.calls ?? 0, inbound.messages),
      ratio(inn?.units ?? 0, inbound.messages),
    ];
  };
  return {
    title:
      'end-to-end: calls per delivered message (units: DynamoDB capacity units, SQS/EventBridge 64 KB chunks)',
    columns: [
      'service operation [table] / route',
      'outbound calls',
      'per recipient',
      'units per recipient',
      'inbound calls',
      'per inbound msg',
      'units per inbound msg',
    ],
    rows: keys.map(row),
  };
};

const lambdaTable = (outbound: PhaseFigures, inbound: PhaseFigures): Table => ({
  title:
    'end-to-end: Lambda invocations and measured handler time (local; see docs for the method)',
  columns: [
    'function',
    'memory MB',
    'outbound invocations',
    'ms per recipient',
    'inbound invocations',
    'ms per inbound msg',
  ],
  rows: (Object.keys(LAMBDA_MEMORY_MB) as LambdaName[]).map((name) => [
    name,
    LAMBDA_MEMORY_MB[name],
    outbound.lambda[name].invocations,
    ratio(outbound.lambda[name].ms, outbound.messages, 2),
    inbound.lambda[name].invocations,
    ratio(inbound.lambda[name].ms, inbound.messages, 2),
  ]),
});

const costTable = (
  outbound: ReturnType<typeof costLines>,
  inbound: ReturnType<typeof costLines>,
  total: (lines: ReturnType<typeof costLines>) => number,
): Table => ({
  title: `end-to-end: cost per million messages, USD (${PRICE_REGION} list prices of ${PRICES_AS_OF})`,
  columns: [
    'billed item',
    'list price',
    'units per recipient',
    'USD per 1M recipients',
    'units per inbound msg',
    'USD per 1M inbound',
  ],
  rows: [
    ...outbound.map((line, index): Cell[] => {
      const inn = inbound[index];
      return [
        line.line,
        line.price,
        line.unitsPerMessage,
        round(line.usdPerMillion, 4),
        inn?.unitsPerMessage ?? 0,
        round(inn?.usdPerMillion ?? 0, 4),
      ];
    }),
    ['total', '', '', round(total(outbound), 2), '', round(total(inbound), 2)],
  ],
});
