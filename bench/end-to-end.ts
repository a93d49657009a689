/**
 * Scenario `end-to-end`: the whole bridge on one machine (`local/bridge.ts`), counting every AWS
 * call and every gateway call, then pricing them per million messages.
 *
 * Outbound phase: 100 queue messages of 10 recipients (92 SMS, and one message per other channel:
 * MMS with an S3 attachment, three RCS variants, push, messenger notice, two brand messages)
 * through the producer helper, until every recipient has a delivery event. Inbound phase: 100
 * inbound messages, one webhook each, 10 of them with an attachment, until each has its event
 * and every attachment is in S3; then a plain phase of 100 more without attachments. The phases
 * are counted apart, so each has its own cost.
 *
 * Counted: DynamoDB (calls and the capacity units DynamoDB Local reports), DynamoDB Streams, SQS
 * (requests in 64 KB chunks), S3, the local bus's PutEvents (events in 64 KB chunks), and every
 * HTTP request to the gateway simulator and to the webhook routes (API Gateway requests). Lambda
 * requests are the invocations the local stand-ins make: one per webhook request, per non-empty
 * SQS receive (a batch), per stream poller invocation.
 *
 * Reconcile phase, between the two: reconcile-status through the local run's own composition
 * (`jobs.reconcileAt`), once as at the end of the outbound phase (nothing due yet: the fixed work
 * of a run) and once as 31 minutes later, when every accepted recipient is due; the difference,
 * per recipient, is its own row group. Also measured: the bytes each function's logger writes
 * (`log-meter.ts`), the bytes of the gateway's and the VPC functions' AWS calls (`traffic.ts`).
 * Modelled on top (`end-to-end-model.ts`): platform, EMF and access-log lines, X-Ray, KMS, Secrets
 * Manager, the INIT phase, NAT data processing and the front doors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { smsBody } from '../fixtures/send-bodies.ts';
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import { type LocalBridge, startLocalBridge } from '../local/bridge.ts';
import { localClientConfig } from '../local/dynamodb-local.ts';
import { elapseQueueTime, queueCounts } from '../local/queue-time.ts';
import { checkpointKey } from '../local/stream-checkpoints.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';
import { CallCounter, HttpCounter, sumWhere } from './call-counter.ts';
import { GB, SUSTAINED, totalsByFront, xrayTracesPerMessage } from './cost-model.ts';
import { deploymentOf, frontKey, tracesOwnInvocations } from './deployed.ts';
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
import {
  frontDoors,
  logBreakdown,
  modelledLines,
  natLine,
  natPerMillionInRegion,
  reconcileFixedLine,
  reconcileLogLine,
} from './end-to-end-model.ts';
import { basisTable, modelTables } from './end-to-end-tables.ts';
import {
  awaitJobFreeWindow,
  roundFronts,
  waitForQuietTables,
  waitUntil,
} from './end-to-end-waits.ts';
import { EventWatch, SendBatches } from './end-to-end-watch.ts';
import { benchBridgeOptions } from './local-bridge.ts';
import { CountingLogger, LogBytes } from './log-meter.ts';
import { LAMBDA_MEMORY_MB, PRICE_REGION, PRICES, PRICES_AS_OF } from './prices.ts';
import { type LineCost, REGIONS, regionalCost } from './regional-cost.ts';
import { ratio, round, type ScenarioResult } from './report.ts';
import { bucketBytes, tableBytes } from './storage-meter.ts';
import { functionScope, TrafficMeter, trafficBeyond } from './traffic.ts';

const QUOTA = 1_000;
const QUEUE_MESSAGES = 100;
const INBOUND_MESSAGES = 100;
const INBOUND_WITH_ATTACHMENT = 10;
const PHASE_TIMEOUT_MS = 120_000;
/** What a phase takes here, with room to spare (measured: about 7–17 s outbound, 10 s inbound). */
const OUTBOUND_PHASE_MS = 30_000;
const RECONCILE_RUNS_MS = 30_000;
const INBOUND_PHASE_MS = 25_000;
/** After a phase's last event: late duplicate webhooks and deletes land before the next phase. */
const SETTLE_MS = 1_500;

const MMS_ASSET = { bucket: 'hanbit-mms-assets', key: 'campaigns/2026-12/poster.jpg' };
/** The local run's RECONCILE_AFTER_MINUTES (the deployed default). */
const RECONCILE_AFTER_MINUTES = 30;

const roundStored = (stored: { readonly dynamoDbBytes: number; readonly s3Bytes: number }) => ({
  dynamoDbBytes: Math.round(stored.dynamoDbBytes),
  s3Bytes: Math.round(stored.s3Bytes),
});

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

// ---- the run ----

/**
 * The whole bridge, locally, under a mixed workload of queue messages with `recipientsPerMessage`
 * recipients each (`end-to-end`: 10, `end-to-end-single`: 1).
 */
export const runEndToEnd = async (
  recipientsPerMessage = 10,
  /** The cold-start scenario's import time per function, for the INIT line. */
  importMs?: Readonly<Record<string, number>>,
  /** `acceptedEvents`: the deployment choice `sending.acceptedEvents` (default off). */
  options: { readonly acceptedEvents?: boolean } = {},
): Promise<ScenarioResult> => {
  const acceptedEvents = options.acceptedEvents ?? false;
  // What `npx cdk deploy` of this repository deploys: the figures price its front door.
  const deployment = deploymentOf();
  const { front } = deployment;
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-e2e-'));
  const counter = new CallCounter();
  const logs = new LogBytes();
  const traffic = new TrafficMeter();
  const meters = { logs, traffic, reconcile: { invocations: 0, ms: 0 } };
  let unwatch: (() => void) | undefined;
  const events = new EventWatch();
  const sendBatches = new SendBatches();
  let http: HttpCounter | undefined;
  let bridge: LocalBridge | undefined;
  /** The report-check queue, once the bridge has started (its URL names the checks' sends). */
  let reportCheckQueueUrl: string | undefined;
  try {
    bridge = await startLocalBridge({
      ...benchBridgeOptions(dataDir),
      tpsQuota: QUOTA,
      reconcileAfterMinutes: RECONCILE_AFTER_MINUTES,
      acceptedEvents,
      // Measurement only: each function's logger counts its lines' bytes, and each Lambda
      // stand-in runs inside a scope naming it, so its AWS calls' bytes are its own.
      loggerFor: (name) =>
        new CountingLogger(
          logs,
          name,
          LAMBDA_MEMORY_MB[name as keyof typeof LAMBDA_MEMORY_MB] ?? 256,
          {},
          // The level the stack deploys for this function (its advanced logging controls).
          deployment.functions[name]?.applicationLogLevel,
        ),
      instrument: {
        lambda: (name, handler) => async (event) => {
          if (name !== 'reconcile-status') return functionScope.run(name, () => handler(event));
          // reconcile-status's invocations (its schedule's and its check queue's) are metered.
          const started = performance.now();
          try {
            return await functionScope.run(name, () => handler(event));
          } finally {
            meters.reconcile.invocations += 1;
            meters.reconcile.ms += performance.now() - started;
          }
        },
        // Every function's own clients (and its event sources'), counted and metered.
        clients: (clients) => {
          counter.instrument(clients.dynamodb.middlewareStack, 'DynamoDB');
          counter.instrument(clients.streams.middlewareStack, 'DynamoDB Streams');
          counter.instrument(clients.sqs.middlewareStack, 'SQS', sendBatches.observe);
          counter.instrument(clients.s3.middlewareStack, 'S3');
          traffic.instrument(clients.dynamodb.middlewareStack, 'DynamoDB');
          // send-messages sends the report checks of a batch's requests together, outside any
          // one request's scope: they are its calls, through the NAT.
          traffic.instrument(clients.sqs.middlewareStack, 'SQS', (input, operation) =>
            operation.startsWith('SendMessage') &&
            reportCheckQueueUrl !== undefined &&
            input.QueueUrl === reportCheckQueueUrl
              ? 'send-messages'
              : undefined,
          );
          traffic.instrument(clients.s3.middlewareStack, 'S3');
        },
      },
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
    sendBatches.queueUrl = b.urls.sendQueue;
    reportCheckQueueUrl = b.urls.reportChecks;
    const jobsStartedAt = performance.now();
    // The local stream poller's checkpoints (written with the run's own client) stand in for the
    // event source mapping's own bookkeeping, which Lambda does not bill: counted apart, never
    // priced. The producers' sends go through the run's SQS client too.
    const checkpoint = checkpointKey('');
    counter.instrument(b.documents.middlewareStack, 'DynamoDB', undefined, (input) => {
      const key = (input.Key ?? input.Item) as { pk?: unknown } | undefined;
      return typeof key?.pk === 'string' && key.pk.startsWith(checkpoint);
    });
    counter.instrument(b.sqs.middlewareStack, 'SQS', sendBatches.observe);
    traffic.instrument(b.sqs.middlewareStack, 'SQS');
    unwatch = traffic.watchHttp(b.urls.simulator, 'gateway');
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

    // ---- reconcile-status, idle ----
    const reconcileAt = async (at: Date) => {
      // The local timer's own run (each minute) may hold the lease: wait for it to end.
      for (let attempt = 0; attempt < 30; attempt++) {
        const started = performance.now();
        const run = await functionScope.run('reconcile-status', () => b.jobs.reconcileAt(at));
        if (run.kind === 'busy') {
          await sleep(1_000);
          continue;
        }
        meters.reconcile.invocations += 1;
        meters.reconcile.ms += performance.now() - started;
        await sleep(SETTLE_MS);
        return run;
      }
      throw new Error('end-to-end: reconcile-status found its lease held for 30 s');
    };
    // Its fixed work: a run with no report check and no index entry (the queue is empty yet). It
    // and the outbound phase after it must not share their window with the local timer's runs.
    await awaitJobFreeWindow(counter, jobsStartedAt, RECONCILE_RUNS_MS + OUTBOUND_PHASE_MS);
    const idleStart = mark(b, counter, events, meters);
    const idleRun = await reconcileAt(new Date());
    const idleEnd = mark(b, counter, events, meters);

    // ---- outbound ----
    const storedBefore = await tableBytes(b.documents, b.tables.events);
    const outStart = mark(b, counter, events, meters);
    const queued = await enqueueSend(b.sqs, b.urls.sendQueue, messages);
    if (queued.invalid.length > 0 || queued.failed.length > 0)
      throw new Error(
        `end-to-end: enqueue refused ${JSON.stringify(queued.invalid.at(0) ?? queued.failed.at(0))}`,
      );
    // Every recipient ends with its delivery report (the simulator rejects none of this workload).
    const decided = () => events.reportedKeys.size + events.count('Message Rejected');
    await waitUntil(
      () => decided() >= recipients,
      PHASE_TIMEOUT_MS,
      () => `reports and rejections: ${decided()}/${recipients}`,
    );
    if (acceptedEvents)
      await waitUntil(
        () => events.count('Message Accepted') >= events.reportedKeys.size,
        PHASE_TIMEOUT_MS,
        () => `acceptances: ${events.count('Message Accepted')}/${events.reportedKeys.size}`,
      );
    const acceptedAt = events.lastAt.get('Message Accepted') ?? Number.NaN;
    const outLastEventAt = events.lastAt.get('Delivery Report Received') ?? Number.NaN;
    await sleep(SETTLE_MS);
    const outEnd = mark(b, counter, events, meters);
    const sentAt = sendBatches.lastEndedAt(outStart.at, outEnd.at);
    const outbound = phaseFigures(outStart, outEnd, sendBatches, events.reportedKeys.size);

    // ---- reconcile-status, per recipient ----
    // As deployed, the queue holds each report check back 15 minutes and its event source then
    // hands it to reconcile-status: once before it is due (afterMinutes 30: it is put back,
    // delayed the 15 minutes left) and once due. Each phase less the idle run's fixed work, per
    // recipient, is the reconcile work of a recipient.
    await awaitJobFreeWindow(counter, jobsStartedAt, RECONCILE_RUNS_MS);
    const checkQueue = b.queues.reportChecks.name;
    // Passing the queue's time is the bench's doing, not the stack's: its calls go uncounted.
    const clockSqs = new SQSClient(localClientConfig(b.fauxqs.address));
    const notDueStart = mark(b, counter, events, meters);
    // The queue's 15-minute delivery delay, passed at once (the checks' queue as deployed).
    await elapseQueueTime(b.fauxqs, clockSqs, checkQueue);
    await waitUntil(
      () => {
        // Every check put back, and every one received deleted by the event source.
        const counts = queueCounts(b.fauxqs, checkQueue);
        return counts.delayed >= messages.length && counts.inflight + counts.visible === 0;
      },
      PHASE_TIMEOUT_MS,
      () => `checks put back: ${JSON.stringify(queueCounts(b.fauxqs, checkQueue))}`,
    );
    await sleep(SETTLE_MS);
    const notDueEnd = mark(b, counter, events, meters);
    // The checks it put back come due: the 15 minutes passed at once, on reconcile-status's clock.
    b.jobs.reconcileAhead((RECONCILE_AFTER_MINUTES + 1) * 60_000);
    const dueStart = mark(b, counter, events, meters);
    await elapseQueueTime(b.fauxqs, clockSqs, checkQueue);
    await waitUntil(
      () => queueCounts(b.fauxqs, checkQueue).total === 0,
      PHASE_TIMEOUT_MS,
      () => `checks finished: ${JSON.stringify(queueCounts(b.fauxqs, checkQueue))}`,
    );
    await sleep(SETTLE_MS);
    const dueEnd = mark(b, counter, events, meters);
    b.jobs.reconcileAhead(0);
    clockSqs.destroy();
    // What the outbound messages left stored, once reconcile-status is done with them.
    const storedAfterOutbound = await tableBytes(b.documents, b.tables.events);
    // One run's figures (messages = 1): the fixed run, and the two runs over the checks.
    const idleLines = costLines(phaseFigures(idleStart, idleEnd, sendBatches, 1), front);
    const runLines = [
      costLines(phaseFigures(notDueStart, notDueEnd, sendBatches, 1), front),
      costLines(phaseFigures(dueStart, dueEnd, sendBatches, 1), front),
    ];
    const reconcilePerRecipient = (runLines[1] ?? [])
      .map((line, index) => {
        const units = runLines.reduce(
          (sum, lines) =>
            sum + Math.max(0, (lines[index]?.units ?? 0) - (idleLines[index]?.units ?? 0)),
          0,
        );
        return {
          ...line,
          line: `reconcile: ${line.line}`,
          units,
          unitsPerMessage: units / recipients,
          usdPerMillion: (units / recipients) * line.unitPrice * 1e6,
        };
      })
      .filter((line) => line.units > 0);
    const reconcileUsdPerRun = idleLines.reduce((sum, line) => sum + line.usdPerMillion / 1e6, 0);
    const reconcileFixed = reconcileFixedLine(reconcileUsdPerRun, recipients);
    const duePhase = phaseFigures(dueStart, dueEnd, sendBatches, recipients);
    const reconcileGatewayCalls = sumWhere(duePhase.calls, isKey('gateway '));
    reconcilePerRecipient.push(reconcileLogLine(duePhase, deployment));

    // ---- inbound ----
    /**
     * `count` inbound messages, each in its own webhook post, the first `withAttachment` of them
     * MMS with a 50 KB attachment; ends when each has its event and each attachment is in S3.
     */
    const inboundPhase = async (count: number, withAttachment: number) => {
      await awaitJobFreeWindow(counter, jobsStartedAt, INBOUND_PHASE_MS);
      const start = mark(b, counter, events, meters);
      const messagesBefore = events.count('Inbound Message Received');
      const attachmentsBefore = events.count('Inbound Attachment Stored');
      for (let i = 0; i < count; i++) {
        const mms = i < withAttachment;
        b.sim.injectMo([
          {
            moType: mms ? 'MMSMO' : i % 2 === 0 ? 'SMSMO' : 'LMSMO',
            moCallback: `0101234${String(1000 + i)}`,
            moNumber: '15880000',
            moMsg: `문의 ${i}`,
            ...(mms
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
      const received = () => events.count('Inbound Message Received') - messagesBefore;
      const stored = () => events.count('Inbound Attachment Stored') - attachmentsBefore;
      await waitUntil(
        () => received() >= count && stored() >= withAttachment,
        PHASE_TIMEOUT_MS,
        () => `inbound: ${received()}/${count}, attachments ${stored()}/${withAttachment}`,
      );
      await sleep(SETTLE_MS);
      const end = mark(b, counter, events, meters);
      return { end, figures: phaseFigures(start, end, sendBatches, received()) };
    };
    // The goal's workload (10% MMS), then the same number of plain items on their own, and what
    // each left stored.
    const attachmentBytesBefore = await bucketBytes(b.s3, b.urls.attachmentBucket);
    const mixed = await inboundPhase(INBOUND_MESSAGES, INBOUND_WITH_ATTACHMENT);
    const storedAfterMixed = await tableBytes(b.documents, b.tables.events);
    const attachmentBytes =
      (await bucketBytes(b.s3, b.urls.attachmentBucket)) - attachmentBytesBefore;
    const plain = await inboundPhase(INBOUND_MESSAGES, 0);
    const storedAfterPlain = await tableBytes(b.documents, b.tables.events);
    const inboundFigures = mixed.figures;
    const plainFigures = plain.figures;

    // ---- figures ----
    const outboundSeconds = (outLastEventAt - outStart.at) / 1_000;
    const acceptSeconds = (acceptedAt - outStart.at) / 1_000;
    const sentSeconds = (sentAt - outStart.at) / 1_000;
    const coldStartImports = importMs;
    const outboundCost = [
      ...costLines(outbound, front),
      ...reconcilePerRecipient,
      reconcileFixed,
      ...modelledLines(outbound, 'outbound', coldStartImports, deployment),
    ];
    const zero = <L extends { units: number; unitsPerMessage: number; usdPerMillion: number }>(
      line: L,
    ): L => ({ ...line, units: 0, unitsPerMessage: 0, usdPerMillion: 0 });
    const inboundCostOf = (phase: typeof inboundFigures) => [
      ...costLines(phase, front),
      ...reconcilePerRecipient.map(zero),
      zero(reconcileFixed),
      ...modelledLines(phase, 'inbound', coldStartImports, deployment),
    ];
    const inboundCost = inboundCostOf(inboundFigures);
    const plainCost = inboundCostOf(plainFigures);
    // The reconcile runs' traffic beyond their fixed part, as their cost lines count it: the not-due
    // and the due run each less the idle run, key by key, never below zero.
    const idlePhase = phaseFigures(idleStart, idleEnd, sendBatches, 1);
    const notDuePhase = phaseFigures(notDueStart, notDueEnd, sendBatches, recipients);
    const outboundNat = natLine(outbound, [
      trafficBeyond([notDuePhase.traffic, duePhase.traffic], idlePhase.traffic),
    ]);
    const inboundNat = natLine(inboundFigures);
    const fronts = frontDoors(inboundFigures, logBreakdown(inboundFigures, deployment));
    const reportFronts = frontDoors(outbound, logBreakdown(outbound, deployment));
    const total = (lines: readonly { usdPerMillion: number }[]) =>
      lines.reduce((sum, line) => sum + line.usdPerMillion, 0);
    const accepted = outbound.eventsByType['Message Accepted'] ?? { events: 0, bytes: 0 };
    const outboundTotal = total(outboundCost);
    const inboundTotal = total(inboundCost);
    const plainTotal = total(plainCost);
    const benchRate = outbound.messages / outboundSeconds;
    const tracesAt = (rate: number) =>
      xrayTracesPerMessage(
        Object.entries(outbound.lambda)
          .filter(([name]) => tracesOwnInvocations(deployment, name))
          .map(([, l]) => l.invocations / outbound.messages),
        rate,
      );
    // Each path in both Regions, storage for the stack's retentions included.
    const logBytesOf = (lines: readonly LineCost[]) =>
      lines
        .filter((line) => line.line.endsWith('CloudWatch Logs ingested (GB)'))
        .reduce((sum, line) => sum + line.unitsPerMessage * GB, 0);
    const byRegion = (
      lines: readonly LineCost[],
      phase: { readonly eventBytes: number; readonly messages: number },
      stored: { readonly dynamoDbBytes: number; readonly s3Bytes: number },
      nat?: { readonly unitsPerMessage: number },
    ) =>
      Object.fromEntries(
        REGIONS.map((region) => {
          const cost = regionalCost(
            lines,
            {
              ...stored,
              archiveBytes: phase.eventBytes / phase.messages,
              logBytes: logBytesOf(lines),
            },
            deployment.retentions,
            region,
          );
          return [
            region,
            {
              costPerMillionUsd: round(cost.costPerMillionUsd, 2),
              runningCostPerMillionUsd: round(cost.runningCostPerMillionUsd, 2),
              storageCostPerMillionUsd: round(cost.storageCostPerMillionUsd, 2),
              floorPerMillionUsd: round(cost.floorPerMillionUsd, 2),
              ratioToFloor: round(cost.ratioToFloor, 2),
              runningRatioToFloor: round(cost.runningRatioToFloor, 2),
              // The NAT's data processing at this Region's price (`egress.mode: nat`), apart from
              // the total as `costPerMillionUsdWithFixedEgress` adds it.
              ...(nat
                ? {
                    natDataPerMillionUsd: round(natPerMillionInRegion(nat, region), 4),
                    costPerMillionUsdWithFixedEgress: round(
                      cost.costPerMillionUsd + natPerMillionInRegion(nat, region),
                      2,
                    ),
                  }
                : {}),
              storage: cost.storage.map((line) => ({
                line: line.line,
                unitsPerMessage: line.unitsPerMessage,
                usdPerMillionMessages: round(line.usdPerMillion, 4),
                basis: line.basis,
              })),
            },
          ];
        }),
      );
    const storedPerMessage = {
      outbound: {
        dynamoDbBytes: (storedAfterOutbound.outbound - storedBefore.outbound) / outbound.messages,
        s3Bytes: 0,
      },
      inbound: {
        dynamoDbBytes:
          (storedAfterMixed.inbound - storedAfterOutbound.inbound) / inboundFigures.messages,
        s3Bytes: attachmentBytes / inboundFigures.messages,
      },
      inboundPlain: {
        dynamoDbBytes:
          (storedAfterPlain.inbound - storedAfterMixed.inbound) / plainFigures.messages,
        s3Bytes: 0,
      },
    };
    const putEventsCalls = sumWhere(outbound.calls, isKey('EventBridge PutEvents'));
    const sends = outbound.simulator.sends + outbound.simulator.rejectedSends;
    const problems = [
      ...(b.publisherFailureCount() > 0
        ? [`${b.publisherFailureCount()} stream batches on the publisher's on-failure queue`]
        : []),
      ...((b.fauxqs.inspectQueue(b.queues.sendDlq.name)?.messages.ready.length ?? 0) > 0
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
      /** What the totals price: the stack as `cdk.json` deploys it (`deployed.ts`). */
      deployment,
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
        costPerMillionUsd: round(outboundTotal, 2),
        costPerMillionUsdWithFixedEgress: round(outboundTotal + outboundNat.usdPerMillion, 2),
        storedBytesPerMessage: roundStored(storedPerMessage.outbound),
        byRegion: byRegion(outboundCost, outbound, storedPerMessage.outbound, outboundNat),
        acceptedEventsPublished: acceptedEvents,
        acceptedEvents: accepted,
        reportWebhookCostPerMillionUsdByFront: roundFronts(reportFronts),
        costPerMillionUsdByFront: roundFronts(
          totalsByFront(outboundTotal, frontKey(front), reportFronts),
          2,
        ),
        reconcile: {
          idleRun,
          // Invocations of the check queue's event source in each phase.
          checkInvocations: {
            notDue: notDueEnd.reconcile.invocations - notDueStart.reconcile.invocations,
            due: dueEnd.reconcile.invocations - dueStart.reconcile.invocations,
          },
          usdPerRun: reconcileUsdPerRun,
          // The idle run's billed units, for the idle month to price in any Region.
          idleRunLines: idleLines
            .filter((line) => line.units > 0)
            .map((line) => ({ line: line.line, unitsPerRun: line.units })),
          gatewayCallsPerRecipient: ratio(reconcileGatewayCalls, outbound.messages),
          costPerMillionUsd: round(total([...reconcilePerRecipient, reconcileFixed]), 4),
        },
        logs: outbound.logs,
        traffic: outbound.traffic,
        nat: roundCost(outboundNat),
        xray: {
          benchRecipientsPerSecond: round(benchRate, 1),
          tracesPerRecipientAtBenchRate: round(tracesAt(benchRate), 5),
          sustainedRecipientsPerSecond: SUSTAINED.messagesPerSecond,
          tracesPerRecipientSustained: round(tracesAt(SUSTAINED.messagesPerSecond), 5),
        },
        assumptions: SUSTAINED,
        cost: outboundCost.map(roundCost),
      },
      inbound: {
        inboundEvents: inboundFigures.messages,
        attachmentEvents: events.count('Inbound Attachment Stored'),
        simulator: inboundFigures.simulator,
        lambda: inboundFigures.lambda,
        calls: roundCalls(inboundFigures.calls),
        costPerMillionUsd: round(inboundTotal, 2),
        costPerMillionUsdWithFixedEgress: round(inboundTotal + inboundNat.usdPerMillion, 2),
        storedBytesPerMessage: roundStored(storedPerMessage.inbound),
        byRegion: byRegion(inboundCost, inboundFigures, storedPerMessage.inbound, inboundNat),
        costPerMillionUsdByFront: roundFronts(
          totalsByFront(inboundTotal, frontKey(front), fronts),
          2,
        ),
        webhookCostPerMillionUsdByFront: roundFronts(fronts),
        logs: inboundFigures.logs,
        traffic: inboundFigures.traffic,
        nat: roundCost(inboundNat),
        cost: inboundCost.map(roundCost),
      },
      /** The same number of inbound items, none with an attachment, counted in a phase of their own. */
      inboundPlain: {
        inboundEvents: plainFigures.messages,
        lambda: plainFigures.lambda,
        calls: roundCalls(plainFigures.calls),
        costPerMillionUsd: round(plainTotal, 2),
        storedBytesPerMessage: roundStored(storedPerMessage.inboundPlain),
        byRegion: byRegion(plainCost, plainFigures, storedPerMessage.inboundPlain),
        logs: plainFigures.logs,
        cost: plainCost.map(roundCost),
      },
      prices: { asOf: PRICES_AS_OF, region: PRICE_REGION, ...PRICES },
      retentions: deployment.retentions,
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
            ...(acceptedEvents
              ? [
                  [
                    's from first enqueue to last "Message Accepted" event',
                    String(round(acceptSeconds, 2)),
                  ],
                ]
              : []),
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
        {
          title: `end-to-end: inbound, USD per 1M items: ${INBOUND_WITH_ATTACHMENT} in ${INBOUND_MESSAGES} with an attachment (the goal's workload), and ${INBOUND_MESSAGES} plain items in a phase of their own`,
          columns: ['billed item', 'mixed', 'plain'],
          rows: [
            ...inboundCost
              .map((line, index) => [line, plainCost[index]] as const)
              .filter(([line, other]) => line.usdPerMillion > 0 || (other?.usdPerMillion ?? 0) > 0)
              .map(([line, other]) => [
                line.line,
                round(line.usdPerMillion, 4),
                round(other?.usdPerMillion ?? 0, 4),
              ]),
            ['total', round(inboundTotal, 2), round(plainTotal, 2)],
          ],
        },
        ...modelTables({
          outbound,
          inbound: inboundFigures,
          deployment,
          outboundNat,
          inboundNat,
          outboundTotal,
          inboundTotal,
          fronts,
          reportFronts,
          tracesAtBenchRate: tracesAt(benchRate),
          benchRate,
        }),
        basisTable('end-to-end: how the modelled outbound lines are reached', outboundCost),
        basisTable(
          'end-to-end: how the modelled inbound lines are reached',
          inboundCost.filter((line) => !line.line.startsWith('reconcile: ')),
        ),
      ],
    };
  } finally {
    http?.close();
    unwatch?.();
    await bridge?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
