/**
 * How the chaos run waits once its workload is in: for every send to be decided while the faults
 * run, then, faults off, for nothing to be lost. What the bridge would do hours or days later (a
 * reconcile-status run that resolves an unknown outcome, a report check past its queue's delays,
 * the attachment sweep retrying a failed download) is run at once, on the jobs' own clocks, once
 * nothing else is pending; a send or check still in its queue, and an unknown outcome not yet
 * resolved (its recipient's report check is queued only once it is), is waited for, not called
 * lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AWAITING_REPORT_INDEX, UNKNOWN_OUTCOME_BUCKET } from '../functions/commons/tables.ts';
import type { LocalBridge } from '../local/bridge.ts';
import { queuedMessages } from '../local/queue-snapshot.ts';
import { elapseQueueTime, queueCounts } from '../local/queue-time.ts';
import type { QueuedBadSend, Verdict } from './invariants.ts';
import type { Workload } from './workload.ts';

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
 * Waits, `timeoutMs` at most, until every cliKey of `workload` has its send outcome on the bus and
 * every bad send its Send Rejected. @returns whether they all have
 */
export const awaitOutcomes = (
  bridge: LocalBridge,
  workload: Workload,
  badSends: readonly QueuedBadSend[],
  timeoutMs: number,
): Promise<boolean> =>
  waitUntil(() => sendsDecided(bridge, workload) && badSendsRejected(bridge, badSends), timeoutMs);

/**
 * Waits until `verdictNow` finds nothing lost and no report is coming, the late job runs made as
 * their time comes: at most `settleMs`, then up to `queuedGraceMs` more while what is missing is
 * still in a queue.
 */
export const settle = async (
  bridge: LocalBridge,
  verdictNow: () => Verdict,
  options: {
    readonly settleMs: number;
    readonly queuedGraceMs: number;
    readonly log: (line: string) => void;
  },
): Promise<void> => {
  const { log } = options;
  const settleBy = Date.now() + options.settleMs;
  const graceBy = settleBy + options.queuedGraceMs;
  const faultsOffAt = Date.now();
  let lateSweeps = 0;
  let lateSweepAt = 0;
  let lateReconcileAt = 0;
  let lateChecksAt = 0;
  // A report the gateway will produce within the settle time (a send accepted moments ago, a
  // scheduled send coming due) is not lost yet, but must be waited for: once produced, it is
  // expected, and by polling it may come 10 s after the next poll.
  const reportsComing = () => {
    const simNow = Date.parse(bridge.sim.snapshot().now);
    return bridge.sim
      .acceptances()
      .some((a) => a.result === undefined && a.deliverAt <= simNow + REPORTS_COMING_MS);
  };
  for (;;) {
    const { violations } = verdictNow();
    const lost = violations.filter((v) => v.invariant === 'lost');
    if (lost.length === 0 && (!reportsComing() || Date.now() > settleBy)) break;
    const attachmentsOnly = lost.every((v) => v.item.startsWith('attachment '));
    // A send whose last delivery ended undecided (its claim held by an attempt that died after
    // the gateway accepted, say) is an unknown outcome: its outcome event, and for an accepted
    // recipient its report check, come only once reconcile-status has resolved it. While one is
    // open, a missing send outcome or report is pending, not lost.
    const unknownsOpen =
      lost.some((v) => v.item.startsWith('send ') || v.item.startsWith('report ')) &&
      (await unresolvedUnknownOutcomes(bridge));
    if (Date.now() > settleBy && !(attachmentsOnly && lateSweeps <= LATE_SWEEPS)) {
      if (
        Date.now() > graceBy ||
        !(
          sendsQueued(bridge, lost) ||
          checksQueued(bridge, lost) ||
          badQueued(bridge, lost) ||
          unknownsOpen
        )
      )
        break;
    }
    // reconcile-status resolves an unknown outcome 2 to 10 minutes after the attempt, on its
    // schedule. Once nothing else is pending, or while one is open (a missing report waits for
    // it), it runs as if then.
    if (
      Date.now() - lateReconcileAt > 10_000 &&
      Date.now() - faultsOffAt > 15_000 &&
      (unknownsOpen ||
        lost.every(
          (v) =>
            v.item.startsWith('send ') ||
            v.item.startsWith('attachment ') ||
            v.item.startsWith('rejection '),
        ))
    ) {
      lateReconcileAt = Date.now();
      const reconciled = await bridge.jobs.reconcileAt(new Date(Date.now() + LATE_RECONCILE_MS));
      log(
        `chaos: ${unknownsOpen ? 'unknown send outcomes open' : 'send outcomes still pending'}; reconcile-status, run as if 15 min later: ${JSON.stringify(reconciled)}`,
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
      bridge.jobs.reconcileAhead(LATE_RECONCILE_MS);
      const before = queueCounts(bridge.fauxqs, bridge.queues.reportChecks.name);
      // Checks an invocation is still working on stay with it; a failed one's come back.
      await elapseQueueTime(bridge.fauxqs, bridge.sqs, bridge.queues.reportChecks.name, {
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
      const swept = await bridge.jobs.sweepAt(new Date(Date.now() + lateSweeps * LATE_SWEEP_MS));
      log(
        `chaos: attachments still pending; the sweep, run as if ${hours} h later: ${JSON.stringify(swept)}`,
      );
    } else if (lateSweeps === LATE_SWEEPS && Date.now() - lateSweepAt > 5_000 && attachmentsOnly) {
      lateSweeps += 1;
      lateSweepAt = Date.now();
      const swept = await bridge.jobs.sweepAt(new Date(Date.now() + PAST_WINDOW_MS));
      log(
        `chaos: attachments still pending; the sweep, run as if past the 7-day window: ${JSON.stringify(swept)}`,
      );
    }
    await sleep(500);
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

/** The send queue's messages: ready, delayed, and received but not deleted. */
const inSendQueue = (bridge: LocalBridge) => {
  const name = bridge.queues.sendQueue.name;
  return queuedMessages(bridge.fauxqs, [name])[name] ?? [];
};

/** Whether a bad send missing its Send Rejected (or its first) is still in the send queue. */
const badQueued = (
  bridge: LocalBridge,
  lost: ReadonlyArray<{ readonly item: string }>,
): boolean => {
  const ids = inSendQueue(bridge).map((m) => m.messageId);
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

/**
 * Whether any of the sends missing an outcome, or of the recipients whose report is missing, is
 * still in the send queue, to be delivered again: an acceptance no delivery recorded yet (the
 * attempt died after the gateway accepted) gets its report check from the delivery that does.
 */
const sendsQueued = (
  bridge: LocalBridge,
  lost: ReadonlyArray<{ readonly item: string }>,
): boolean => {
  const bodies = inSendQueue(bridge).map((m) => m.body);
  const cliKeyOf = new Map(bridge.sim.acceptances().map((a) => [a.msgKey, a.cliKey]));
  return lost.some((v) => {
    const cliKey = v.item.startsWith('send ')
      ? v.item.slice('send '.length)
      : v.item.startsWith('report ')
        ? cliKeyOf.get(v.item.slice('report '.length))
        : undefined;
    return cliKey !== undefined && bodies.some((body) => body.includes(`"${cliKey}"`));
  });
};

/**
 * Whether the awaiting-report index holds an unknown outcome reconcile-status has not resolved
 * (the sender's `UNKNOWN` items; resolving one takes it off the index).
 */
const unresolvedUnknownOutcomes = async (bridge: LocalBridge): Promise<boolean> => {
  const answer = await bridge.documents.send(
    new QueryCommand({
      TableName: bridge.tables.events,
      IndexName: AWAITING_REPORT_INDEX.name,
      KeyConditionExpression: '#bucket = :bucket',
      ExpressionAttributeNames: { '#bucket': AWAITING_REPORT_INDEX.partitionKey },
      ExpressionAttributeValues: { ':bucket': UNKNOWN_OUTCOME_BUCKET },
      Limit: 1,
    }),
  );
  return (answer.Items ?? []).length > 0;
};

const waitUntil = async (condition: () => boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
  return true;
};
