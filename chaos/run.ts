/**
 * `npm run chaos -- --seed S --items N`: the whole bridge on the local stack (the same handlers
 * and wiring as the Lambdas), a seeded workload, faults at every port with the seed's mix, then
 * the invariants checked from outside once the system has settled. Prints its figures and ends
 * with one line `chaos: seed=S items=N lost=L duplicated=D unavoidable=U ...`; exits 1 unless
 * every invariant holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { eventKeys } from '../functions/commons/table-keys.ts';
import { parseSendMessage } from '../functions/send-contract/queue-message-parsing.ts';
import { type LocalBridge, startLocalBridge } from '../local/bridge.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/dynamodb-local.ts';
import { elapseQueueTime, queueCounts } from '../local/queue-time.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import {
  FaultPlan,
  faultMixFor,
  faultyGateway,
  injectDynamoDbFaults,
  injectEventBridgeFaults,
  injectS3Faults,
  injectSqsFaults,
  killableLambda,
  prng,
} from './faults.ts';
import {
  checkInvariants,
  type GatewayLedger,
  holds,
  type QueuedBadSend,
  type Verdict,
} from './invariants.ts';
import { type BadSend, buildWorkload, type HostileBody, type Workload } from './workload.ts';

export interface ChaosOptions {
  readonly seed: number;
  readonly items: number;
  /** Longest time the faults run after the workload, while the sends are decided. @default 60 s */
  readonly faultWindowMs?: number;
  /** Longest wait for the system to settle once the faults stop. @default 120 s */
  readonly settleMs?: number;
  /**
   * Longest further wait, past `settleMs`, while a send still missing its outcome is in the send
   * queue (delayed by its backoff, in flight or ready): it is pending, not lost, and the run waits
   * for its last delivery rather than calling it lost. @default 60 s
   */
  readonly queuedGraceMs?: number;
  /** Where progress lines go. @default console.log */
  readonly log?: (line: string) => void;
  /**
   * Whether the bridge also publishes "Message Accepted" events (`sending.acceptedEvents`).
   * @default false, as deployed
   */
  readonly acceptedEvents?: boolean;
}

export interface ChaosResult {
  readonly seed: number;
  readonly items: number;
  readonly verdict: Verdict;
  readonly ok: boolean;
  readonly summary: string;
  readonly faults: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
}

const TPS_QUOTA = 20;
/** How much later than now the last-resort attachment sweep believes it runs. */
const LATE_SWEEP_MS = 7 * 3_600_000;
/** Sweeps run after the faults, at most: the last as if 21 h later, well inside the 7-day window. */
const LATE_SWEEPS = 3;
/**
 * Then, if a marker is still pending, the sweep as if past the 7-day window: the schedule's end,
 * where a marker whose every source refuses (a single-use content URL already spent) ends as
 * "Inbound Attachment Lost".
 */
const PAST_WINDOW_MS = 8 * 24 * 3_600_000;
/** Past reconcile-status's 10 minutes before it calls an unknown cliKey not sent. */
const LATE_RECONCILE_MS = 15 * 60_000;
/** A report due this soon on the gateway's clock is waited for before the verdict. */
const REPORTS_COMING_MS = 60_000;
/**
 * The stack of the run: a gateway call times out after 1.5 s, so send-messages may have a timeout
 * of 8 s (twice that and 5 s, the least the stack accepts; deployed by default it is 60 s), and
 * its queue's visibility is six times that, as the stack sets it.
 */
const GATEWAY_TIMEOUT_MS = 1_500;
const SEND_TIMEOUT_SECONDS = 8;
/** The sender's redelivery backoff is sized for the default 60 s timeout: scaled to this one. */
const TIME_SCALE = SEND_TIMEOUT_SECONDS / 60;
const WEBHOOK_SECRET = 'chaos-secret-0123456789';

export const runChaos = async (options: ChaosOptions): Promise<ChaosResult> => {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const { seed, items } = options;
  const mix = faultMixFor(seed);
  const plan = new FaultPlan(seed, mix);
  const workload = buildWorkload(seed, items);
  const dataDir = mkdtempSync(join(tmpdir(), `msgbridge-chaos-${seed}-`));
  const unavoidable = new Set<string>();
  let bridge: LocalBridge | undefined;
  const hostileAnswers = new Map<string, number | undefined>();
  const moInjected: Array<{ moKey: string; attachments: number }> = [];
  const queuedBad: QueuedBadSend[] = [];
  // The bridge logs every failure it meets on stderr; under injected faults that is thousands of
  // lines. They are counted (and the first few kept) instead.
  const stderr = { lines: 0, first: [] as string[] };
  const consoleError = console.error;
  console.error = (...args: unknown[]) => {
    stderr.lines += 1;
    if (stderr.first.length < 5) stderr.first.push(args.map(String).join(' ').slice(0, 200));
  };
  try {
    bridge = await startLocalBridge({
      // The invariants read every event the run put on the bus.
      eventsInMemoryBytes: Number.POSITIVE_INFINITY,
      port: 0,
      simulatorPort: 0,
      webhookSecret: WEBHOOK_SECRET,
      dataDir,
      apiKey: 'chaos-key',
      apiPassword: `chaos-password-${seed}`,
      tpsQuota: TPS_QUOTA,
      printEvents: false,
      reportDelivery: workload.reportDelivery,
      reconcileAfterMinutes: 1,
      acceptedEvents: options.acceptedEvents ?? false,
      simulator: {
        seed,
        reportDelayMs: 200,
        failureRate: 0.2,
        webhookRetryIntervalMs: 500,
        webhookTimeoutMs: 3_000,
        confirmWindowMs: 4_000,
        minEmptyPollIntervalMs: 1_000,
        reportBatchSize: 10,
      },
      instrument: {
        clients: ({ dynamodb, s3, sqs, eventBridge }) => {
          injectDynamoDbFaults(dynamodb, plan);
          injectS3Faults(s3, plan);
          injectSqsFaults(sqs, plan, TIME_SCALE);
          injectEventBridgeFaults(eventBridge, plan, unavoidable);
        },
        gateway: faultyGateway(plan),
        lambda: killableLambda,
        gatewayTimeoutMs: GATEWAY_TIMEOUT_MS,
        sendTimeoutSeconds: SEND_TIMEOUT_SECONDS,
      },
    });
    const running = bridge;
    log(
      `chaos: seed ${seed}, ${items} items: ${workload.cliKeys.length} recipients in ${workload.sends.flat().length} send requests, ` +
        `${workload.mo.flat().length} inbound messages (${workload.attachments} attachments), ${workload.hostile.length} hostile bodies; reports by ${workload.reportDelivery}`,
    );
    log(
      `chaos: ${workload.emojiCliKeys.length} recipients with emoji; bad sends: ${workload.badSends
        .map(
          (bad) =>
            `${bad.kind} (${Buffer.byteLength(bad.body)} bytes, ${bad.sameBatch ? 'in' : 'after'} batch ${bad.batch})`,
        )
        .join(', ')}`,
    );

    // Faults on, then the workload, interleaved as it would arrive.
    plan.armed = true;
    running.sim.setFaults(mix.gateway);
    const producer = new SQSClient({
      endpoint: running.urls.sqs,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const random = prng(seed * 31 + 7);
    const pause = () => sleep(Math.floor(random() * 150));
    const revokeAt = new Set(
      Array.from({ length: mix.tokenRevocations }, () =>
        Math.floor(random() * workload.sends.length),
      ),
    );
    // SQS message ids by batch and position: a reused cliKey's Send Rejected names its first's.
    const messageIds: string[][] = [];
    const sending = (async () => {
      for (const [index, batch] of workload.sends.entries()) {
        if (revokeAt.has(index)) {
          running.sim.revokeTokens();
          plan.count('gateway.tokensRevoked');
        }
        const withBatch = workload.badSends.filter((bad) => bad.batch === index && bad.sameBatch);
        if (withBatch.length === 0) {
          const result = await enqueueSend(producer, running.urls.sendQueue, batch);
          if (result.invalid.length > 0 || result.failed.length > 0) {
            throw new Error(
              `the workload's send batch ${index} was not queued: ${JSON.stringify({ invalid: result.invalid, failed: result.failed })}`,
            );
          }
          messageIds[index] = result.queued.map((entry) => entry.messageId);
        } else {
          // One SendMessageBatch call for the batch and the bad sends that go with it, so that
          // a reuse and its first can reach one invocation; the valid ones checked as
          // enqueueSend checks them.
          for (const message of batch) {
            const parsed = parseSendMessage(message, { now: new Date() });
            if (!parsed.ok)
              throw new Error(
                `the workload's send batch ${index} holds an invalid message: ${JSON.stringify(parsed.problems)}`,
              );
          }
          const ids = await queueBodies(producer, running.urls.sendQueue, [
            ...batch.map((message) => JSON.stringify(message)),
            ...withBatch.map((bad) => bad.body),
          ]);
          messageIds[index] = ids.slice(0, batch.length);
          for (const [at, bad] of withBatch.entries())
            queuedBad.push(queued(bad, ids[batch.length + at] ?? '', messageIds));
        }
        for (const bad of workload.badSends.filter((b) => b.batch === index && !b.sameBatch)) {
          const [id] = await queueBodies(producer, running.urls.sendQueue, [bad.body]);
          queuedBad.push(queued(bad, id ?? '', messageIds));
        }
        await pause();
      }
    })();
    const inbound = (async () => {
      for (const batch of workload.mo) {
        for (const item of running.sim.injectMo(batch)) {
          moInjected.push({
            moKey: item.moKey,
            attachments: item.contentInfoLst?.length ?? 0,
          });
        }
        await pause();
      }
    })();
    const hostile = (async () => {
      for (const body of workload.hostile) {
        hostileAnswers.set(body.sha256, await post(running, body));
        if (body.repost) await post(running, body);
        await pause();
      }
    })();
    await Promise.all([sending, inbound, hostile]);
    producer.destroy();

    // Let the faults bite while the sends are decided, then stop them and let the system heal.
    await waitUntil(
      () => sendsDecided(running, workload) && badSendsRejected(running, queuedBad),
      options.faultWindowMs ?? 60_000,
    );
    plan.armed = false;
    running.sim.setFaults({
      errorRate: 0,
      timeoutRate: 0,
      http200ErrorRate: 0,
      duplicateWebhookRate: 0,
      rateLimitBurst: 0,
      reportWithholdRate: 0,
    });
    log(`chaos: faults off after ${seconds(Date.now() - started)}; settling`);

    const verdictNow = () =>
      checkInvariants({
        workload,
        ledger: ledgerOf(running, moInjected),
        entries: running.bus.entries,
        unavoidable,
        hostileAnswers,
        acceptedEvents: options.acceptedEvents ?? false,
        badSends: queuedBad,
      });
    const settleBy = Date.now() + (options.settleMs ?? 120_000);
    const graceBy = settleBy + (options.queuedGraceMs ?? 60_000);
    const faultsOffAt = Date.now();
    let lateSweeps = 0;
    let lateSweepAt = 0;
    let lateReconcileAt = 0;
    let lateChecksAt = 0;
    // A report the gateway will produce within the settle time (a send accepted moments ago, a
    // scheduled send coming due) is not lost yet, but must be waited for: once produced, it is
    // expected, and by polling it may come 10 s after the next poll.
    const reportsComing = () => {
      const simNow = Date.parse(running.sim.snapshot().now);
      return running.sim
        .acceptances()
        .some((a) => a.result === undefined && a.deliverAt <= simNow + REPORTS_COMING_MS);
    };
    for (;;) {
      const { violations } = verdictNow();
      const lost = violations.filter((v) => v.invariant === 'lost');
      if (lost.length === 0 && (!reportsComing() || Date.now() > settleBy)) break;
      const attachmentsOnly = lost.every((v) => v.item.startsWith('attachment '));
      if (Date.now() > settleBy && !(attachmentsOnly && lateSweeps <= LATE_SWEEPS)) {
        if (
          Date.now() > graceBy ||
          !(sendsQueued(running, lost) || checksQueued(running, lost) || badQueued(running, lost))
        )
          break;
      }
      // A send whose last delivery ended undecided is an unknown outcome that reconcile-status
      // resolves 2 to 10 minutes after the attempt. Once nothing else is pending, it runs as if then.
      if (
        Date.now() - lateReconcileAt > 10_000 &&
        Date.now() - faultsOffAt > 15_000 &&
        lost.every(
          (v) =>
            v.item.startsWith('send ') ||
            v.item.startsWith('attachment ') ||
            v.item.startsWith('rejection '),
        )
      ) {
        lateReconcileAt = Date.now();
        const reconciled = await running.jobs.reconcileAt(new Date(Date.now() + LATE_RECONCILE_MS));
        log(
          `chaos: send outcomes still pending; reconcile-status, run as if 15 min later: ${JSON.stringify(reconciled)}`,
        );
      }
      // A report the gateway withheld is found by a report check 1 to 2 minutes after its
      // acceptance; a check whose invocation failed comes back after the queue's visibility
      // timeout (30 minutes), one put back pending after 15. Once nothing else is pending, that
      // time passes at once.
      if (
        Date.now() - lateChecksAt > 10_000 &&
        Date.now() - faultsOffAt > 15_000 &&
        lost.some((v) => v.item.startsWith('report '))
      ) {
        lateChecksAt = Date.now();
        // The queue's time and reconcile-status's pass together: a check handed over early is
        // due on its clock, not put back again.
        running.jobs.reconcileAhead(LATE_RECONCILE_MS);
        const before = queueCounts(running.fauxqs, running.queues.reportChecks.name);
        // Checks an invocation is still working on stay with it; a failed one's come back.
        await elapseQueueTime(running.fauxqs, running.sqs, running.queues.reportChecks.name, {
          receivedMsAgo: 20_000,
        });
        log(
          `chaos: reports still missing; the report checks' queue time passes at once: ${JSON.stringify(before)}`,
        );
      }
      // An attachment whose download failed has a pending marker the scheduled sweep retries
      // 5 minutes to 6 hours later, every 15 minutes for 7 days. Once only attachments and
      // reports are pending (the report checks' time passes above; the sweep touches only
      // attachment markers), the sweep runs as if then; on a busy machine its download may time
      // out again, so it runs again (as if 7 h after the last), like the schedule would, up to
      // LATE_SWEEPS times.
      if (
        lateSweeps < LATE_SWEEPS &&
        Date.now() - lateSweepAt > 10_000 &&
        Date.now() - faultsOffAt > 15_000 &&
        lost.some((v) => v.item.startsWith('attachment ')) &&
        lost.every((v) => v.item.startsWith('attachment ') || v.item.startsWith('report '))
      ) {
        lateSweeps += 1;
        lateSweepAt = Date.now();
        const hours = (lateSweeps * LATE_SWEEP_MS) / 3_600_000;
        const swept = await running.jobs.sweepAt(new Date(Date.now() + lateSweeps * LATE_SWEEP_MS));
        log(
          `chaos: attachments still pending; the sweep, run as if ${hours} h later: ${JSON.stringify(swept)}`,
        );
      } else if (
        lateSweeps === LATE_SWEEPS &&
        Date.now() - lateSweepAt > 5_000 &&
        attachmentsOnly
      ) {
        lateSweeps += 1;
        lateSweepAt = Date.now();
        const swept = await running.jobs.sweepAt(new Date(Date.now() + PAST_WINDOW_MS));
        log(
          `chaos: attachments still pending; the sweep, run as if past the 7-day window: ${JSON.stringify(swept)}`,
        );
      }
      await sleep(500);
    }
    // Late duplicates (a redelivered message, a retried stream batch) would show up now.
    await sleep(3_000);
    await running.publisher.drained().catch(() => undefined);
    const verdict = verdictNow();
    await explainLostSends(running, verdict, log);
    const elapsedMs = Date.now() - started;
    const faults = { ...plan.injected, ...gatewayFaults(running) };
    const summary = report({
      seed,
      items,
      verdict,
      faults,
      notes: plan.notes,
      bridge: running,
      elapsedMs,
      log,
    });
    return { seed, items, verdict, ok: holds(verdict), summary, faults, elapsedMs };
  } finally {
    plan.armed = false;
    await bridge?.stop();
    console.error = consoleError;
    if (stderr.lines > 0) {
      log(`  bridge stderr: ${stderr.lines} lines, the first: ${stderr.first.join(' | ')}`);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/**
 * Puts bodies on the queue as they are, past every producer check (one SendMessage, or one
 * SendMessageBatch call): their SQS message ids, in order. SendMessageBatch fails entry by entry,
 * so each entry's result is read.
 */
const queueBodies = async (
  sqs: SQSClient,
  queueUrl: string,
  bodies: readonly string[],
): Promise<string[]> => {
  if (bodies.length === 1) {
    const answer = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: bodies[0] }),
    );
    if (!answer.MessageId) throw new Error('the queue took a bad send without a message id');
    return [answer.MessageId];
  }
  const answer = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, at) => ({ Id: `m${at}`, MessageBody: body })),
    }),
  );
  const ids = new Map((answer.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
  return bodies.map((_, at) => {
    const id = ids.get(`m${at}`);
    if (!id)
      throw new Error(
        `entry ${at} of a batch with bad sends was not queued: ${JSON.stringify(answer.Failed ?? [])}`,
      );
    return id;
  });
};

/** A bad send as queued, with its first message's id when it reuses a cliKey. */
const queued = (
  bad: BadSend,
  sqsMessageId: string,
  messageIds: ReadonlyArray<readonly string[] | undefined>,
): QueuedBadSend => ({
  kind: bad.kind,
  sqsMessageId,
  bytes: Buffer.byteLength(bad.body, 'utf8'),
  cliKeys: bad.cliKeys,
  ...(bad.reuse
    ? {
        reuse: {
          cliKey: bad.reuse.cliKey,
          firstSqsMessageId: messageIds[bad.reuse.batch]?.[bad.reuse.position] ?? '',
          firstPhones: bad.reuse.firstPhones,
          phones: bad.reuse.phones,
        },
      }
    : {}),
});

/** Posts a hostile body as a gateway would: again after a retry answer, a few times at most. */
const post = async (bridge: LocalBridge, body: HostileBody): Promise<number | undefined> => {
  const url = body.route === 'report' ? bridge.urls.reportWebhook : bridge.urls.moWebhook;
  let status: number | undefined;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...body.headers },
        body: body.body,
      });
      status = response.status;
      const text = await response.text();
      if (status === 413) return status;
      const final =
        body.route === 'report'
          ? status !== 400 && status < 500
          : status >= 200 && status < 300 && codeOf(text) === '10000';
      if (final) return status;
    } catch {
      status = undefined;
    }
    await sleep(300 * (attempt + 1));
  }
  return status;
};

const codeOf = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { code?: string }).code;
  } catch {
    return undefined;
  }
};

const sendsDecided = (bridge: LocalBridge, workload: Workload): boolean => {
  const decided = new Set(
    bridge.bus.entries
      .map(
        (entry) =>
          (JSON.parse(entry.Detail) as { metadata: { idempotencyKey: string } }).metadata
            .idempotencyKey,
      )
      .filter((key) => key.startsWith('send:')),
  );
  return workload.cliKeys.every((cliKey) => decided.has(`send:${cliKey}`));
};

/** Whether every bad send (or, for a reused cliKey, it or its first) has its Send Rejected. */
const badSendsRejected = (bridge: LocalBridge, bad: readonly QueuedBadSend[]): boolean => {
  const rejected = new Set(
    bridge.bus.entries
      .filter((entry) => entry.DetailType === 'Send Rejected')
      .map(
        (entry) =>
          (JSON.parse(entry.Detail) as { data: { sqsMessageId?: string } }).data.sqsMessageId,
      ),
  );
  return bad.every(
    (b) =>
      rejected.has(b.sqsMessageId) ||
      (b.reuse !== undefined && rejected.has(b.reuse.firstSqsMessageId)),
  );
};

/** Whether a bad send missing its Send Rejected (or its first) is still in the send queue. */
const badQueued = (
  bridge: LocalBridge,
  lost: ReadonlyArray<{ readonly item: string }>,
): boolean => {
  const queue = bridge.fauxqs.inspectQueue(bridge.queues.sendQueue.name);
  if (queue === undefined) return false;
  const ids = [
    ...queue.messages.ready,
    ...queue.messages.delayed,
    ...queue.messages.inflight.map((m) => m.message),
  ].map((m) => m.messageId);
  return lost.some((v) => v.item.startsWith('rejection ') && ids.some((id) => v.item.includes(id)));
};

/**
 * A report is still missing while report checks wait on their queue: a withheld report is found
 * only by its check, which may be put back (pending) or come back after a failed invocation.
 */
const checksQueued = (
  bridge: LocalBridge,
  lost: ReadonlyArray<{ readonly item: string }>,
): boolean =>
  lost.some((v) => v.item.startsWith('report ')) &&
  queueCounts(bridge.fauxqs, bridge.queues.reportChecks.name).total > 0;

/** Whether any of the sends missing an outcome is still in the send queue, to be delivered again. */
const sendsQueued = (
  bridge: LocalBridge,
  lost: ReadonlyArray<{ readonly item: string }>,
): boolean => {
  const queue = bridge.fauxqs.inspectQueue(bridge.queues.sendQueue.name);
  if (queue === undefined) return false;
  const bodies = [
    ...queue.messages.ready,
    ...queue.messages.delayed,
    ...queue.messages.inflight.map((m) => m.message),
  ].map((m) => m.body);
  return lost.some(
    (v) =>
      v.item.startsWith('send ') &&
      bodies.some((body) => body.includes(`"${v.item.slice('send '.length)}"`)),
  );
};

const ledgerOf = (
  bridge: LocalBridge,
  mo: ReadonlyArray<{ moKey: string; attachments: number }>,
): GatewayLedger => ({
  acceptances: bridge.sim.acceptances().map((recipient) => ({
    cliKey: recipient.cliKey,
    msgKey: recipient.msgKey,
    ...(recipient.phone === undefined ? {} : { phone: recipient.phone }),
    requestedAt: recipient.requestedAt,
    deliverAt: recipient.deliverAt,
    reported: recipient.result !== undefined,
  })),
  tpsQuota: TPS_QUOTA,
  quotaRefusals: bridge.sim.snapshot().quotaRefusals,
  mo,
});

const gatewayFaults = (bridge: LocalBridge): Record<string, number> => {
  const snapshot = bridge.sim.snapshot();
  return {
    'gateway.rejectedSends': snapshot.rejectedSends,
    'gateway.duplicateAnswers': snapshot.duplicateRecipients,
    'gateway.reportsWithheld': snapshot.reports.withheld,
    'gateway.webhookDuplicatePosts': snapshot.reports.webhook.duplicatePosts,
    'gateway.webhookRetries': snapshot.reports.webhook.retries,
  };
};

/** Where a send without an outcome event is stuck: the gateway's ledger, the queue, the table. */
const explainLostSends = async (
  bridge: LocalBridge,
  verdict: Verdict,
  log: (line: string) => void,
): Promise<void> => {
  const lost = verdict.violations
    .filter((v) => v.invariant === 'lost' && v.item.startsWith('send '))
    .map((v) => v.item.slice('send '.length));
  const queue = bridge.fauxqs.inspectQueue(bridge.queues.sendQueue.name);
  const dlq = bridge.fauxqs.inspectQueue(bridge.queues.sendDlq.name);
  for (const cliKey of lost.slice(0, 10)) {
    const accepted = bridge.sim.acceptances().filter((a) => a.cliKey === cliKey).length;
    const where = (
      [
        ['ready', queue?.messages.ready ?? []],
        ['delayed', queue?.messages.delayed ?? []],
        ['inflight', (queue?.messages.inflight ?? []).map((m) => m.message)],
        ['dlq', dlq?.messages.ready ?? []],
      ] as const
    )
      .flatMap(([state, messages]) =>
        messages
          .filter((m) => m.body.includes(`"${cliKey}"`))
          .map((m) => `${state} (received ${m.approximateReceiveCount} times)`),
      )
      .join(', ');
    const items = await bridge.documents
      .send(
        new QueryCommand({
          TableName: bridge.tables.events,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': eventKeys.send(cliKey) },
        }),
      )
      .then((answer) => (answer.Items ?? []).map((item) => String(item.sk)).join(', '))
      .catch((error: unknown) => `unreadable: ${String(error)}`);
    log(
      `  lost send ${cliKey}: accepted by the gateway ${accepted} time(s); queue: ${where || 'not there'}; event table SEND# items: ${items || 'none'}`,
    );
  }
};

const waitUntil = async (condition: () => boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
  return true;
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const report = (input: {
  seed: number;
  items: number;
  verdict: Verdict;
  faults: Record<string, number>;
  notes: readonly string[];
  bridge: LocalBridge;
  elapsedMs: number;
  log: (line: string) => void;
}): string => {
  const { verdict, log, bridge } = input;
  const list = (record: Readonly<Record<string, number>>) =>
    Object.entries(record)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, count]) => `${name}=${count}`)
      .join(' ');
  log(`  items expected: ${list(verdict.expected)}`);
  log(`  faults injected: ${list(input.faults)}`);
  log(`  events: ${list(verdict.eventsByType)}`);
  const publisher = bridge.publisher.stats;
  log(
    `  retries: stream invocations=${publisher.invocations} retried=${publisher.retries} bisections=${publisher.bisections} given-up=${publisher.recordsFailed}; ` +
      `send deliveries=${bridge.sender.stats.received} failed=${bridge.sender.stats.failed}; ` +
      `attachment stream invocations=${bridge.jobs.fetcher.stats.invocations} given-up=${bridge.jobs.fetcher.stats.recordsFailed}; ` +
      `quota refusals=${bridge.sim.snapshot().quotaRefusals}; send DLQ=${bridge.fauxqs.inspectQueue(bridge.queues.sendDlq.name)?.messages.ready.length ?? 0}`,
  );
  for (const note of input.notes.slice(0, 10)) log(`  note: ${note}`);
  log(
    `  bad sends: ${verdict.rejectedOnce} of ${verdict.badSends} one Send Rejected each; the largest Send Rejected ${verdict.largestSendRejected} bytes (the bus takes 262144)`,
  );
  for (const pair of verdict.reuses)
    log(
      `  reused cliKey ${pair.cliKey}: first ${pair.first}, reuse ${pair.reuse}; sent: ${pair.sent}`,
    );
  // The rarer kinds first: a flood of duplicates must not hide a lost or misreported item.
  const order = [
    'lost',
    'misreported',
    'sent twice',
    'bad send sent',
    'misattributed',
    'too big for the bus',
    'quota exceeded',
    'refused as temporary',
  ];
  const rank = (kind: string) => (order.includes(kind) ? order.indexOf(kind) : order.length);
  const violations = [...verdict.violations].sort((a, b) => rank(a.invariant) - rank(b.invariant));
  for (const violation of violations.slice(0, 40)) {
    log(`  VIOLATION ${violation.invariant}: ${violation.item}: ${violation.detail}`);
  }
  if (verdict.violations.length > 40) log(`  … ${verdict.violations.length - 40} more violations`);
  const total = Object.values(input.faults).reduce((sum, count) => sum + count, 0);
  const line =
    `chaos: seed=${input.seed} items=${input.items} lost=${verdict.lost} duplicated=${verdict.duplicated} ` +
    `unavoidable=${verdict.unavoidable} sentTwice=${verdict.sentTwice} misreported=${verdict.misreported} ` +
    `quotaExceeded=${verdict.quotaExceeded} refusedAsTemporary=${verdict.refusedAsTemporary} ` +
    `badSends=${verdict.badSends} rejectedOnce=${verdict.rejectedOnce} tooBigForBus=${verdict.tooBigForBus} ` +
    `misattributed=${verdict.misattributed} badSent=${verdict.badSent} laterWon=${verdict.laterWon} ` +
    `events=${Object.values(verdict.eventsByType).reduce((sum, n) => sum + n, 0)} faults=${total} time=${seconds(input.elapsedMs)}`;
  log(line);
  return line;
};

const main = async (): Promise<void> => {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      items: { type: 'string', default: '100' },
      'settle-seconds': { type: 'string', default: '120' },
      'accepted-events': { type: 'boolean', default: false },
    },
  });
  const seed = Number(values.seed);
  const items = Number(values.items);
  const settle = Number(values['settle-seconds']);
  if (!Number.isInteger(seed) || !Number.isInteger(items) || items < 10 || !(settle > 0)) {
    console.error(
      'usage: npm run chaos -- --seed <integer> --items <integer ≥ 10> [--settle-seconds 120] [--accepted-events]',
    );
    process.exit(2);
  }
  const result = await runChaos({
    seed,
    items,
    settleMs: settle * 1000,
    acceptedEvents: values['accepted-events'],
  });
  process.exit(result.ok ? 0 : 1);
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  main().catch((error: unknown) => {
    console.error('chaos: the run failed:', error);
    process.exit(1);
  });
}
