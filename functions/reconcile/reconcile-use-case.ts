import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../gateway/errors.ts';
import type { StatusQueryData, StatusQueryItem } from '../../gateway/schemas/index.ts';
import { STATUS_QUERY_MAX_KEYS } from '../../gateway/schemas/reports.ts';
import { messageStatusUnavailable } from '../catalogue/catalogue.ts';
import { buildEventDetail } from '../catalogue/envelope.ts';
import { mapWithConcurrency } from '../commons/helpers/map-with-concurrency.ts';
import type { Lease } from '../commons/lease.ts';
import { eventKeys, idempotencyKeys } from '../commons/table-keys.ts';
import { type EventRecord, toEventRecord } from '../event-table/event-record.ts';
import { receiveReports } from '../received-items/receive-items.ts';
import type { ReportCheck } from '../send-records/ports.ts';
import type { PutBackEntry, ReportCheckQueue } from '../send-records/report-checks.ts';
import type {
  AwaitingRecipient,
  ReconcileCounts,
  ReconcileDeps,
  ReconcileStop,
} from './reconcile-ports.ts';
import { resolveUnknownOutcomes } from './resolve-unknown-outcomes.ts';
import { kstDate } from './status-query.ts';

type MutableCounts = { -readonly [K in keyof ReconcileCounts]: ReconcileCounts[K] };

/** A recipient to look at, and what settles it once its report or status is stored. */
interface Examined {
  readonly recipient: AwaitingRecipient;
  /** Takes the recipient off its report check (its share of it). */
  readonly settle: () => Promise<void>;
}

/** One key to query: a recipient and the date it is asked for. */
interface PendingKey extends Examined {
  readonly reqDt: string;
  /** False once the key is retried with the day before its acceptance. */
  readonly acceptanceDay: boolean;
}

const MINUTE_MS = 60_000;

/** Counts of a run that has done nothing yet. */
const newCounts = (): MutableCounts => ({
  examined: 0,
  checksReceived: 0,
  checksFinished: 0,
  checksNotDue: 0,
  checksPostponed: 0,
  checksExpired: 0,
  checksInvalid: 0,
  alreadyRecorded: 0,
  statusQueries: 0,
  keysQueried: 0,
  reportsReconciled: 0,
  reportsDuplicate: 0,
  statusUnavailable: 0,
  stillPending: 0,
  storeFailures: 0,
  quarantined: 0,
  notQueried: 0,
  unknownExamined: 0,
  unknownAccepted: 0,
  unknownNotSent: 0,
  unknownAlreadyDecided: 0,
  unknownPending: 0,
  unknownUnreadable: 0,
  stoppedBy: 'complete',
});
const HOUR_MS = 3_600_000;

/**
 * The scheduled run: resolves the unknown outcomes. (The report checks the sender queues are read
 * by {@link checkReports}, on the queue's own event source.)
 *
 * Input: the ports and settings. Output: counts of what was found, queried and stored.
 *
 * Primary course: `resolveUnknownOutcomes` asks the gateway about every send without an answer
 * attempted between `horizonHours` and `unknownAfterMinutes` ago, and stores what it knows.
 *
 * Alternative courses: the run stops early, leaving the rest for the next run, when
 * `hasTimeLeft()` says so or when a status query fails with a retryable gateway error. Other
 * gateway errors and storage errors are thrown.
 */
export const reconcileStatus = async (deps: ReconcileDeps): Promise<ReconcileCounts> => {
  const counts = newCounts();
  const stop = await resolveUnknownOutcomes(
    { deps, counts },
    deps.hasTimeLeft ?? (() => true),
    owner(deps),
  );
  counts.stoppedBy = stop ?? 'complete';
  return counts;
};

/**
 * Looks for the reports of the accepted recipients on the report checks `queue` hands over (on
 * Lambda, the batch the report-check queue's event source delivers).
 *
 * Input: the ports, settings and the queue. Output: counts of what was found, queried, stored,
 * finished and postponed.
 *
 * Primary course: a check older than `horizonHours` is finished unasked; one accepted less than
 * `afterMinutes` ago is put back on the queue delayed until it is due (at most 15 minutes, SQS's
 * longest delay; a check due later comes round again) and finished; for the recipients of the
 * others, those whose report or unavailable status is already stored are settled, the rest are
 * queried 10 keys per call, grouped by the KST date of acceptance: a finished status (DONE with a
 * result code) is stored as a report through the receivers' path (`via: 'status-query'`, so a
 * later real report is a duplicate and causes no second event); `OVER_DATE` / `INVALID_KEY` is
 * stored once as "Message Status Unavailable"; REG and ING are left pending. A check is finished
 * as soon as every recipient in it is settled; at the end, a check with recipients still pending
 * or not queried (the gateway unavailable, the time up) is put back, with only those recipients,
 * for a look `RECHECK_SECONDS` later. So a check is never parked on the queue received and
 * unfinished (SQS's 120,000 in-flight messages are no ceiling), and the readers scale with the
 * queue.
 *
 * Alternative courses: an `INVALID_KEY` is asked again with the day before the acceptance date
 * before it is believed (the send call may have crossed KST midnight before the acceptance was
 * recorded, and an "already accepted" answer may come a day after the original send); the
 * reading stops when `maxRecipients` recipients without a stored report or status were read
 * (those with one cost no query and do not count), when `hasTimeLeft()` says so, or when a status
 * query fails with a retryable gateway error; a check that cannot be read is left unfinished (it
 * comes back after the queue's visibility timeout, and ends in its DLQ); a check that could not
 * be put back is left unfinished too (it comes back whole; its stored reports are found
 * recorded). Other gateway errors and storage errors are thrown: nothing is finished, and the
 * whole batch comes back.
 */
export const checkReports = async (
  deps: ReconcileDeps & { readonly checks: ReportCheckQueue },
): Promise<ReconcileCounts> => {
  const now = deps.now().getTime();
  const window = {
    fromMs: now - deps.settings.horizonHours * HOUR_MS,
    toMs: now - deps.settings.afterMinutes * MINUTE_MS,
  };
  const hasTimeLeft = deps.hasTimeLeft ?? (() => true);
  const counts = newCounts();
  const queue = new KeyQueue();
  const run: Run = { deps, counts, queue };
  const checks = new CheckTracker(deps.checks);
  await endRun(run, hasTimeLeft, await reconcileChecks(run, checks, hasTimeLeft, window));
  counts.checksFinished += await checks.finishSettled();
  counts.checksPostponed += await checks.putBackOpen(RECHECK_SECONDS);
  return counts;
};

/**
 * Queries what was read even when the budget ended the reading (not when the gateway is
 * unavailable), and records what was left and why the run ended.
 */
const endRun = async (
  run: Run,
  hasTimeLeft: () => boolean,
  stop: ReconcileStop | undefined,
): Promise<void> => {
  const drained =
    stop === 'gateway-unavailable'
      ? undefined
      : await drain(run, hasTimeLeft, { fullBatchesOnly: false });
  run.counts.notQueried = run.queue.size;
  run.counts.stoppedBy = drained ?? stop ?? 'complete';
};

/** How long a check with recipients still pending waits for its next look: SQS's longest delay. */
export const RECHECK_SECONDS = 900;

/**
 * Reads the report-check queue while the budget and the time last: a check older than the horizon
 * is finished unasked, one not yet due is put back delayed until it is, and the recipients of a due
 * one are triaged and queried. A check is finished (deleted) as soon as all its
 * recipients are settled.
 */
const reconcileChecks = async (
  run: Run,
  checks: CheckTracker,
  hasTimeLeft: () => boolean,
  window: { readonly fromMs: number; readonly toMs: number },
): Promise<ReconcileStop | undefined> => {
  const { deps, counts } = run;
  for (;;) {
    const budget = deps.settings.maxRecipients - toQuery(counts);
    if (budget <= 0) return 'budget';
    if (!hasTimeLeft()) return 'time';
    // A check holds up to 10 recipients; whole checks are read, so the budget may be passed by
    // the last one's share of a check.
    const received = await checks.queue.receive(
      Math.min(10, Math.ceil(budget / STATUS_QUERY_MAX_KEYS)),
    );
    // A check seen before in this run came back (a visibility timeout shorter than the run):
    // the queue has been gone through.
    const fresh = received.filter((item) => checks.firstSight(item.messageId));
    if (fresh.length === 0) return undefined;
    counts.checksReceived += fresh.length;
    const due: Examined[] = [];
    const notDue: PutBackEntry[] = [];
    for (const item of fresh) {
      if (!('check' in item)) {
        counts.checksInvalid += 1;
        deps.onInvalidCheck?.(item);
        continue;
      }
      const acceptedMs = Date.parse(item.check.acceptedAt);
      if (acceptedMs < window.fromMs) {
        counts.checksExpired += 1;
        checks.expire(item.id);
        continue;
      }
      if (acceptedMs > window.toMs) {
        counts.checksNotDue += 1;
        const dueInSeconds = Math.ceil((acceptedMs - window.toMs) / 1_000);
        notDue.push({
          id: item.id,
          check: item.check,
          delaySeconds: Math.min(RECHECK_SECONDS, Math.max(1, dueInSeconds)),
        });
        continue;
      }
      due.push(...checks.track(item.id, item.check));
    }
    if (notDue.length > 0) counts.checksPostponed += await checks.queue.putBack(notDue);
    counts.examined += due.length;
    await triage(run, due);
    const stop = await drain(run, hasTimeLeft, { fullBatchesOnly: true });
    // Finished checks go at once, while their receipt handles are fresh: a long run would
    // otherwise hold every check it read, and see the first ones come back.
    counts.checksFinished += await checks.finishSettled();
    if (stop) return stop;
  }
};

/**
 * Recipients read that needed (or need) a status query: the budget's measure. A recipient whose
 * report is already stored costs two reads and no gateway call, so a backlog of answered checks
 * is worked through at the queue's pace, not the budget's.
 */
const toQuery = (counts: ReconcileCounts): number => counts.examined - counts.alreadyRecorded;

/**
 * The report checks a run has received: which recipients of each are settled, so that a check is
 * deleted only once all of them are (one left pending, or not queried, brings it back later).
 */
class CheckTracker {
  private readonly open = new Map<string, { check: ReportCheck; waiting: Set<string> }>();
  private readonly finished: string[] = [];
  private readonly seen = new Set<string>();

  constructor(readonly queue: ReportCheckQueue) {}

  /** True the first time this run receives the message. */
  firstSight(messageId: string): boolean {
    if (this.seen.has(messageId)) return false;
    this.seen.add(messageId);
    return true;
  }

  /** The recipients of a due check, each settling its share of it. */
  track(id: string, check: ReportCheck): Examined[] {
    const waiting = new Set(check.recipients.map((r) => r.cliKey));
    this.open.set(id, { check, waiting });
    return check.recipients.map((r) => ({
      recipient: {
        cliKey: r.cliKey,
        acceptedAt: check.acceptedAt,
        ...(r.msgKey ? { msgKey: r.msgKey } : {}),
      },
      settle: async () => {
        waiting.delete(r.cliKey);
      },
    }));
  }

  expire(id: string): void {
    this.finished.push(id);
  }

  /** Deletes the checks whose recipients are all settled (once each); answers how many. */
  async finishSettled(): Promise<number> {
    const ids = [
      ...this.finished,
      ...[...this.open].filter(([, { waiting }]) => waiting.size === 0).map(([id]) => id),
    ];
    this.finished.length = 0;
    for (const id of ids) this.open.delete(id);
    if (ids.length > 0) await this.queue.finish(ids);
    return ids.length;
  }

  /**
   * Puts every check with unsettled recipients back on the queue, with only those recipients,
   * `delaySeconds` later; answers how many were put back (the others stay unfinished).
   */
  async putBackOpen(delaySeconds: number): Promise<number> {
    const entries = [...this.open].map(([id, { check, waiting }]) => ({
      id,
      check: { ...check, recipients: check.recipients.filter((r) => waiting.has(r.cliKey)) },
      delaySeconds,
    }));
    this.open.clear();
    return entries.length === 0 ? 0 : this.queue.putBack(entries);
  }
}

const owner = (deps: ReconcileDeps): string => deps.owner ?? `reconcile-status#${randomUUID()}`;

/** The lease that keeps reconcile-status runs from overlapping. */
export const RECONCILE_LEASE = 'reconcile-status';

/**
 * Runs {@link reconcileStatus} only while holding the `reconcile-status` lease, so overlapping
 * runs never query the same recipients twice. `busy` when another run holds it.
 */
export const reconcileStatusExclusively = async (
  deps: ReconcileDeps,
  lease: { readonly lease: Lease; readonly owner: string; readonly ttlMs: number },
): Promise<{ readonly kind: 'busy' } | ({ readonly kind: 'done' } & ReconcileCounts)> => {
  if (!(await lease.lease.acquire(RECONCILE_LEASE, lease.owner, lease.ttlMs)))
    return { kind: 'busy' };
  try {
    return { kind: 'done', ...(await reconcileStatus(deps)) };
  } finally {
    await lease.lease.release(RECONCILE_LEASE, lease.owner);
  }
};

interface Run {
  readonly deps: ReconcileDeps;
  readonly counts: MutableCounts;
  readonly queue: KeyQueue;
}

/** Settles recorded recipients and queues the others for the status query. */
const triage = async (run: Run, examined: readonly Examined[]): Promise<void> => {
  const { deps, counts, queue } = run;
  const recorded = await mapWithConcurrency(examined, deps.receive.concurrency, async (e) => {
    const r = e.recipient;
    const known =
      (r.msgKey !== undefined && (await deps.ledger.hasReport(r.msgKey))) ||
      (await deps.ledger.hasStatusUnavailable(r.cliKey));
    if (known) await e.settle();
    return known;
  });
  examined.forEach((e, i) => {
    if (recorded[i]) counts.alreadyRecorded += 1;
    else queue.add({ ...e, reqDt: kstDate(e.recipient.acceptedAt, 0), acceptanceDay: true });
  });
};

/** Queries queued keys, full batches only or everything; answers why it stopped, if it did. */
const drain = async (
  run: Run,
  hasTimeLeft: () => boolean,
  options: { fullBatchesOnly: boolean },
): Promise<ReconcileStop | undefined> => {
  for (
    let batch = run.queue.take(options.fullBatchesOnly);
    batch !== undefined;
    batch = run.queue.take(options.fullBatchesOnly)
  ) {
    if (!hasTimeLeft()) {
      run.queue.putBack(batch);
      return 'time';
    }
    const stop = await queryBatch(run, batch);
    if (stop) return stop;
  }
  return undefined;
};

const queryBatch = async (
  run: Run,
  batch: readonly PendingKey[],
): Promise<ReconcileStop | undefined> => {
  const { deps, counts } = run;
  let answer: StatusQueryData;
  try {
    answer = await deps.gateway.queryStatus(
      batch.map((key) => ({ cliKey: key.recipient.cliKey, reqDt: key.reqDt })),
    );
  } catch (error) {
    if (!(error instanceof GatewayError && error.retryable)) throw error;
    run.queue.putBack(batch);
    counts.gatewayError = `${error.name}: ${error.message}`;
    return 'gateway-unavailable';
  }
  counts.statusQueries += 1;
  counts.keysQueried += batch.length;

  const byCliKey = new Map(answer.cliKeyLst.map((item) => [item.cliKey, item]));
  const finished: Array<{ key: PendingKey; report: Record<string, unknown> }> = [];
  const unavailable: Array<{ key: PendingKey; record: EventRecord }> = [];
  for (const key of batch) {
    const verdict = judge(key, byCliKey.get(key.recipient.cliKey));
    switch (verdict.kind) {
      case 'finished':
        finished.push({ key, report: verdict.report });
        break;
      case 'unavailable':
        unavailable.push({ key, record: unavailableRecord(deps, key, verdict) });
        break;
      case 'ask-day-before':
        run.queue.add({
          ...key,
          reqDt: kstDate(key.recipient.acceptedAt, -1),
          acceptanceDay: false,
        });
        break;
      case 'pending':
        counts.stillPending += 1;
        break;
    }
  }
  await storeReports(run, finished);
  for (const { key, record } of unavailable) {
    if ((await deps.receive.store.putIfAbsent(record)) === 'stored') counts.statusUnavailable += 1;
    await key.settle();
  }
  return undefined;
};

type Verdict =
  | { readonly kind: 'finished'; readonly report: Record<string, unknown> }
  | {
      readonly kind: 'unavailable';
      readonly status: 'OVER_DATE' | 'INVALID_KEY';
      readonly msgKey: string | null;
    }
  | { readonly kind: 'ask-day-before' }
  | { readonly kind: 'pending' };

/** What one status answer means for its recipient. */
const judge = (key: PendingKey, item: StatusQueryItem | undefined): Verdict => {
  if (item === undefined) return { kind: 'pending' };
  const msgKey = item.msgKey ?? key.recipient.msgKey ?? null;
  switch (item.status) {
    case 'DONE':
      // A DONE without a result code (or without any msgKey to file it under) is not a report yet.
      if (!item.resultCode || msgKey === null) return { kind: 'pending' };
      return { kind: 'finished', report: reportFromStatus(item, msgKey) };
    case 'INVALID_KEY':
      if (key.acceptanceDay) return { kind: 'ask-day-before' };
      return { kind: 'unavailable', status: 'INVALID_KEY', msgKey };
    case 'OVER_DATE':
      return { kind: 'unavailable', status: 'OVER_DATE', msgKey };
    default:
      // REG, ING, or a status the spec does not list: ask again next run.
      return { kind: 'pending' };
  }
};

/** The report item a finished status stands for; unknown fields are kept, as for a webhook report. */
const reportFromStatus = (item: StatusQueryItem, msgKey: string): Record<string, unknown> => {
  const { status: _status, ...fields } = item;
  return { ...fields, msgKey };
};

/**
 * Stores finished statuses as reports; they are settled only when every one is durable. A
 * status whose delivery the receivers already stored under another `ch` is not stored again.
 */
const storeReports = async (
  run: Run,
  all: ReadonlyArray<{ key: PendingKey; report: Record<string, unknown> }>,
): Promise<void> => {
  if (all.length === 0) return;
  const { deps, counts } = run;
  const expiresAt =
    Math.floor(deps.receive.now().getTime() / 1000) + deps.receive.retentionDays * 86_400;
  const reported = await mapWithConcurrency(all, deps.receive.concurrency, async (f) => {
    const { msgKey, resultCode, ch, fbReasonLst } = f.report as {
      msgKey: string;
      resultCode: string;
      ch?: string | null;
      fbReasonLst?: ReadonlyArray<{ ch?: string | null }>;
    };
    const own = reportSortKey(resultCode, ch ?? null);
    const others = [
      ...new Set(
        [...REPORT_CHANNELS, null, ...(fbReasonLst ?? []).map((reason) => reason.ch ?? null)].map(
          (channel) => reportSortKey(resultCode, channel),
        ),
      ),
    ].filter((sk) => sk !== own);
    return (await deps.guards.guard(msgKey, others, own, expiresAt)) === 'reported';
  });
  const already = all.filter((_, i) => reported[i]);
  counts.reportsDuplicate += already.length;
  await mapWithConcurrency(already, deps.receive.concurrency, (f) => f.key.settle());
  const finished = all.filter((_, i) => !reported[i]);
  if (finished.length === 0) return;
  const outcome = await receiveReports(
    JSON.stringify({ rptLst: finished.map((f) => f.report) }),
    deps.receive,
    'status-query',
  );
  counts.reportsReconciled += outcome.stored;
  counts.reportsDuplicate += outcome.duplicates;
  counts.quarantined += outcome.quarantined;
  counts.storeFailures += outcome.failed;
  // After a failed write the whole batch stays unsettled: the next look finds the stored ones
  // recorded and queries only the rest.
  if (outcome.result === 'retry') return;
  await mapWithConcurrency(finished, deps.receive.concurrency, (f) => f.key.settle());
};

const unavailableRecord = (
  deps: ReconcileDeps,
  key: PendingKey,
  verdict: { readonly status: 'OVER_DATE' | 'INVALID_KEY'; readonly msgKey: string | null },
): EventRecord => {
  const at = deps.receive.now().toISOString();
  const { cliKey, acceptedAt } = key.recipient;
  const detail = buildEventDetail(messageStatusUnavailable, {
    idempotencyKey: idempotencyKeys.statusUnavailable(cliKey),
    occurredAt: at,
    receivedAt: at,
    via: 'status-query',
    data: { cliKey, msgKey: verdict.msgKey, status: verdict.status, acceptedAt },
  });
  return toEventRecord(
    { ...statusUnavailableKeys(cliKey), kind: 'status' },
    detail,
    deps.receive.retentionDays,
  );
};

/**
 * The `ch` values a report may carry (the gateway's channel codes seen in reports and in the
 * simulator). A status-built report guards the keys of all of them, so a webhook report of the
 * same delivery with any of them is a duplicate; a channel outside this list is not guarded.
 */
export const REPORT_CHANNELS = ['SMS', 'LMS', 'MMS', 'RCS', 'PUSH', 'MSGR', 'BRAND'] as const;

/** The sort key the receivers store a report under (`inbound/item-records.ts`; a test holds them equal). */
export const reportSortKey = (resultCode: string, ch: string | null): string =>
  eventKeys.result(resultCode, ch);

/** Where the "Message Status Unavailable" event of a recipient is stored (once). */
export const statusUnavailableKeys = (cliKey: string) => eventKeys.statusUnavailable(cliKey);

/** Keys waiting for the status query, by the date they are asked with (one date per call). */
class KeyQueue {
  private readonly byDate = new Map<string, PendingKey[]>();

  get size(): number {
    let size = 0;
    for (const keys of this.byDate.values()) size += keys.length;
    return size;
  }

  add(key: PendingKey): void {
    const keys = this.byDate.get(key.reqDt);
    if (keys) keys.push(key);
    else this.byDate.set(key.reqDt, [key]);
  }

  /** Up to 10 keys of one date, or `undefined`; with `fullOnly`, only a batch of exactly 10. */
  take(fullOnly: boolean): PendingKey[] | undefined {
    for (const [date, keys] of this.byDate) {
      if (fullOnly && keys.length < STATUS_QUERY_MAX_KEYS) continue;
      const batch = keys.splice(0, STATUS_QUERY_MAX_KEYS);
      if (keys.length === 0) this.byDate.delete(date);
      return batch;
    }
    return undefined;
  }

  putBack(batch: readonly PendingKey[]): void {
    for (const key of batch) this.add(key);
  }
}
