/**
 * Scenario `end-to-end`: the whole bridge on one machine (`local/bridge.ts`), counting every AWS
 * call and every gateway call, then pricing them per million messages.
 *
 * Outbound phase: 100 queue messages of 10 recipients (92 SMS, and one message per other channel:
 * MMS with an S3 attachment, three RCS variants, push, messenger notice, two brand messages)
 * through the producer helper, until every recipient has a delivery event. Inbound phase: 100
 * inbound messages, one webhook each, 10 of them with an attachment, until each has its event
 * and every attachment is in S3; then a plain phase of 100 more without attachments. The phases
 * are counted apart, so each has its own cost. The workload is `end-to-end-workload.ts`'s.
 *
 * Counted (`end-to-end-bridge.ts`): DynamoDB (calls and the capacity units DynamoDB Local
 * reports), DynamoDB Streams, SQS (requests in 64 KB chunks), S3, the local bus's PutEvents
 * (events in 64 KB chunks), and every HTTP request to the gateway simulator and to the webhook
 * routes (API Gateway requests). Lambda requests are the invocations the local stand-ins make:
 * one per webhook request, per non-empty SQS receive (a batch), per stream poller invocation.
 *
 * Reconcile phase, between the two: reconcile-status through the local run's own composition
 * (`jobs.reconcileAt`), once as at the end of the outbound phase (nothing due yet: the fixed work
 * of a run) and once as 31 minutes later, when every accepted recipient is due; the difference,
 * per recipient, is its own row group. Also measured: the bytes each function's logger writes
 * (`log-meter.ts`), the bytes of the gateway's and the VPC functions' AWS calls (`traffic.ts`).
 * Modelled on top (`end-to-end-model.ts`): platform, EMF and access-log lines, X-Ray, KMS, Secrets
 * Manager, the INIT phase, NAT data processing and the front doors. The figures and tables are
 * `end-to-end-report.ts`'s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SQSClient } from '@aws-sdk/client-sqs';
import { localClientConfig } from '../local/dynamodb-local.ts';
import { elapseQueueTime, queueCounts } from '../local/queue-time.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { deploymentOf } from './deployed.ts';
import { type MeasuredBridge, startMeasuredBridge } from './end-to-end-bridge.ts';
import { mark, phaseFigures } from './end-to-end-figures.ts';
import { endToEndReport } from './end-to-end-report.ts';
import { awaitJobFreeWindow, waitForQuietTables, waitUntil } from './end-to-end-waits.ts';
import {
  INBOUND_MESSAGES,
  INBOUND_WITH_ATTACHMENT,
  injectInbound,
  outboundMessages,
  putMmsPoster,
} from './end-to-end-workload.ts';
import type { ScenarioResult } from './report.ts';
import { bucketBytes, tableBytes } from './storage-meter.ts';
import { functionScope } from './traffic.ts';

const QUOTA = 1_000;
const PHASE_TIMEOUT_MS = 120_000;
/** What a phase takes here, with room to spare (measured: about 7–17 s outbound, 10 s inbound). */
const OUTBOUND_PHASE_MS = 30_000;
const RECONCILE_RUNS_MS = 30_000;
const INBOUND_PHASE_MS = 25_000;
/** After a phase's last event: late duplicate webhooks and deletes land before the next phase. */
const SETTLE_MS = 1_500;
/** The local run's RECONCILE_AFTER_MINUTES (the deployed default). */
const RECONCILE_AFTER_MINUTES = 30;

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
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-e2e-'));
  let measured: MeasuredBridge | undefined;
  try {
    measured = await startMeasuredBridge({
      dataDir,
      deployment,
      tpsQuota: QUOTA,
      reconcileAfterMinutes: RECONCILE_AFTER_MINUTES,
      acceptedEvents,
    });
    const { bridge: b, counter, events, sendBatches, meters, jobsStartedAt } = measured;
    const markNow = () => mark(b, counter, events, meters);

    await putMmsPoster(b);
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
    const idleStart = markNow();
    const idleRun = await reconcileAt(new Date());
    const idleEnd = markNow();

    // ---- outbound ----
    const storedBefore = await tableBytes(b.documents, b.tables.events);
    const outStart = markNow();
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
    const outEnd = markNow();
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
    const notDueStart = markNow();
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
    const notDueEnd = markNow();
    // The checks it put back come due: the 15 minutes passed at once, on reconcile-status's clock.
    b.jobs.reconcileAhead((RECONCILE_AFTER_MINUTES + 1) * 60_000);
    const dueStart = markNow();
    await elapseQueueTime(b.fauxqs, clockSqs, checkQueue);
    await waitUntil(
      () => queueCounts(b.fauxqs, checkQueue).total === 0,
      PHASE_TIMEOUT_MS,
      () => `checks finished: ${JSON.stringify(queueCounts(b.fauxqs, checkQueue))}`,
    );
    await sleep(SETTLE_MS);
    const dueEnd = markNow();
    b.jobs.reconcileAhead(0);
    clockSqs.destroy();
    // What the outbound messages left stored, once reconcile-status is done with them.
    const storedAfterOutbound = await tableBytes(b.documents, b.tables.events);
    // One run's figures (messages = 1): the fixed run, and the two runs over the checks.
    const reconcileRuns = {
      idle: phaseFigures(idleStart, idleEnd, sendBatches, 1),
      notDue: phaseFigures(notDueStart, notDueEnd, sendBatches, 1),
      due: phaseFigures(dueStart, dueEnd, sendBatches, 1),
    };

    // ---- inbound ----
    /**
     * `count` inbound messages, each in its own webhook post, the first `withAttachment` of them
     * MMS with a 50 KB attachment; ends when each has its event and each attachment is in S3.
     */
    const inboundPhase = async (count: number, withAttachment: number) => {
      await awaitJobFreeWindow(counter, jobsStartedAt, INBOUND_PHASE_MS);
      const start = markNow();
      const messagesBefore = events.count('Inbound Message Received');
      const attachmentsBefore = events.count('Inbound Attachment Stored');
      await injectInbound(b, count, withAttachment);
      const received = () => events.count('Inbound Message Received') - messagesBefore;
      const stored = () => events.count('Inbound Attachment Stored') - attachmentsBefore;
      await waitUntil(
        () => received() >= count && stored() >= withAttachment,
        PHASE_TIMEOUT_MS,
        () => `inbound: ${received()}/${count}, attachments ${stored()}/${withAttachment}`,
      );
      await sleep(SETTLE_MS);
      return phaseFigures(start, markNow(), sendBatches, received());
    };
    // The goal's workload (10% MMS), then the same number of plain items on their own, and what
    // each left stored.
    const attachmentBytesBefore = await bucketBytes(b.s3, b.urls.attachmentBucket);
    const inbound = await inboundPhase(INBOUND_MESSAGES, INBOUND_WITH_ATTACHMENT);
    const storedAfterMixed = await tableBytes(b.documents, b.tables.events);
    const attachmentBytes =
      (await bucketBytes(b.s3, b.urls.attachmentBucket)) - attachmentBytesBefore;
    const inboundPlain = await inboundPhase(INBOUND_MESSAGES, 0);
    const storedAfterPlain = await tableBytes(b.documents, b.tables.events);

    const problems = [
      ...(b.publisherFailureCount() > 0
        ? [`${b.publisherFailureCount()} stream batches on the publisher's on-failure queue`]
        : []),
      ...((b.fauxqs.inspectQueue(b.queues.sendDlq.name)?.messages.ready.length ?? 0) > 0
        ? ['messages in the send DLQ']
        : []),
    ];
    if (problems.length > 0) throw new Error(`end-to-end: ${problems.join('; ')}`);

    return endToEndReport({
      recipientsPerMessage,
      messages,
      acceptedEvents,
      tpsQuota: QUOTA,
      deployment,
      importMs,
      events,
      outbound,
      outboundSeconds: {
        sent: (sentAt - outStart.at) / 1_000,
        accepted: (acceptedAt - outStart.at) / 1_000,
        delivered: (outLastEventAt - outStart.at) / 1_000,
      },
      reconcile: { idleRun, ...reconcileRuns },
      inbound,
      inboundPlain,
      stored: {
        before: storedBefore,
        afterOutbound: storedAfterOutbound,
        afterMixed: storedAfterMixed,
        afterPlain: storedAfterPlain,
        attachmentBytes,
      },
    });
  } finally {
    await measured?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
