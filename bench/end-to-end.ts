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
import type { SendMessageInput } from '../functions/sending/queue-message.ts';
import { type LocalBridge, startLocalBridge } from '../local/bridge.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';
import { smsBody } from '../test/support/send-fixtures.ts';
import { CallCounter, HttpCounter, sumWhere } from './call-counter.ts';
import {
  callsTable,
  costLines,
  costTable,
  isKey,
  lambdaTable,
  mark,
  phaseFigures,
  roundCalls,
  roundCost,
} from './end-to-end-figures.ts';
import { EventWatch, SendBatches } from './end-to-end-watch.ts';
import { PRICE_REGION, PRICES, PRICES_AS_OF } from './prices.ts';
import { ratio, round, type ScenarioResult } from './report.ts';

const QUOTA = 1_000;
const QUEUE_MESSAGES = 100;
const INBOUND_MESSAGES = 100;
const INBOUND_WITH_ATTACHMENT = 10;
const PHASE_TIMEOUT_MS = 120_000;
/** After a phase's last event: late duplicate webhooks and deletes land before the next phase. */
const SETTLE_MS = 1_500;

const MMS_ASSET = { bucket: 'hanbit-mms-assets', key: 'campaigns/2026-12/poster.jpg' };

// ---- workload ----

/** The examples of `docs/sending.md`, each with `recipients`; scheduled and reply sends left out. */
const otherChannelMessages = (runId: string, recipients: number): SendMessageInput[] =>
  SEND_MESSAGE_EXAMPLES.filter(
    (example) =>
      (example.message as { resvYn?: string }).resvYn !== 'Y' &&
      example.message.channel !== 'rcs-reply',
  ).map((example, m) => {
    const copy = structuredClone(example.message) as Record<string, unknown>;
    const template = Array.isArray(copy.recvInfoLst)
      ? (copy.recvInfoLst[0] as Record<string, unknown>)
      : {};
    copy.recvInfoLst = Array.from({ length: recipients }, (_, i) => ({
      ...template,
      cliKey: `b${runId}-${m}-${i}`,
      phone: `0109876${String(m * 100 + i).padStart(4, '0')}`,
      ...('cuid' in template ? { cuid: `user-${m}-${i}` } : {}),
    }));
    return copy as SendMessageInput;
  });

const outboundMessages = (runId: string, recipients: number): SendMessageInput[] => {
  const others = otherChannelMessages(runId, recipients);
  const sms = Array.from(
    { length: QUEUE_MESSAGES - others.length },
    () => ({ channel: 'sms', ...smsBody(recipients) }) as SendMessageInput,
  );
  return [...sms, ...others];
};

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

// ---- the run ----

/**
 * The whole bridge, locally, under a mixed workload of queue messages with `recipientsPerMessage`
 * recipients each (`end-to-end`: 10, `end-to-end-single`: 1).
 */
export const runEndToEnd = async (recipientsPerMessage = 10): Promise<ScenarioResult> => {
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
    const messages = outboundMessages(runId, recipientsPerMessage);
    const recipients = messages.length * recipientsPerMessage;

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
        recipientsPerMessage,
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
            ['queue messages × recipients', `${messages.length} × ${recipientsPerMessage}`],
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
