import { GatewayError, GatewayRateLimitedError } from '../../gateway/errors.ts';
import type { MoListData, PollReportsResponseData } from '../../gateway/schemas/index.ts';
import * as z from '../../gateway/schemas/zod.ts';
import { parseGatewayDateTime } from '../../protocol/kst.ts';
import type { PolledPageKind } from './polled-page-quarantine.ts';
import { type LeaseHolder, type PollLogger, type PollStop, underLease } from './poller-lease.ts';
import {
  keepPage,
  type PageStorePorts,
  type ReingestOutcome,
  reingestKeptPages,
  storePage,
  summary,
} from './store-polled-pages.ts';

/**
 * How delivery reports reach msgbridge: the gateway's report webhook, report polling, or both at
 * once (each report is stored once either way: the event store's conditional put dedupes).
 */
export const ReportDeliverySchema = z.enum(['webhook', 'polling', 'both']);
export type ReportDelivery = z.infer<typeof ReportDeliverySchema>;

/** Only one report poller and one MO poller may be active: each holds its lease while it runs. */
export const REPORT_POLLER_LEASE = 'report-poller';
export const MO_POLLER_LEASE = 'mo-poller';

/** The gateway as the report poller needs it (spec 01 §4.11, §4.12); `GatewayClient` fits. */
export interface ReportPollingGateway {
  /** One page of up to 100 reports, or `null` when none was waiting. */
  pollReports(): Promise<PollReportsResponseData>;
  confirmReports(rptKeyLst: readonly string[]): Promise<void>;
}

/** The gateway as the MO poller needs it (spec 01 §4.14); `GatewayClient` fits. */
export interface MoPollingGateway {
  /** MO messages not yet handed out; each is handed out once, there is no confirmation. */
  listMo(): Promise<MoListData>;
}

/** The gateway both pollers call: reports and inbound messages. */
export type PollingGateway = ReportPollingGateway & MoPollingGateway;

/** Time rules of a polling run, in milliseconds. */
export interface PollTiming {
  /** After an empty poll: the gateway's 10 s plus a margin. Never below 10 s. */
  readonly emptyPollWaitMs: number;
  /** After a `29002` answer, or a failed poll that may have counted as an empty one. */
  readonly retryWaitMs: number;
  /** The gateway's confirmation window, counted from just before the poll was sent. */
  readonly confirmWindowMs: number;
  /** A confirm is started only while more than this is left of the window (the call's own time). */
  readonly confirmMarginMs: number;
  /**
   * Kept free after a poll starts for the poll call, storing the page and confirming it: no poll
   * starts later than `deadline - pageBudgetMs`. At most the confirm window less its margin.
   */
  readonly pageBudgetMs: number;
  readonly leaseTtlMs: number;
  /** The lease is renewed before a poll once it is this old. */
  readonly renewEveryMs: number;
  /**
   * Stores of one page before it is kept in durable quarantine instead; the attempts are
   * `storeBackoffMs`, 2 × `storeBackoffMs`, … apart.
   */
  readonly storeAttempts: number;
  readonly storeBackoffMs: number;
  /**
   * Report pages in flight at once while the gateway keeps answering full pages (100 reports):
   * each full page lets one more poll start beside the ones storing and confirming theirs, up to
   * this many; a page that is not full brings it back to one. The gateway hands each report out
   * once (spec 01 §3, polled report), so the pages are disjoint.
   */
  readonly pagesInFlight: number;
}

/** Reports on a full page (spec 01 §8): more are probably waiting. */
export const REPORTS_PER_POLL = 100;

/** The gateway's minimum interval after an empty poll (spec 01 §8). */
export const MIN_EMPTY_POLL_INTERVAL_MS = 10_000;

export const DEFAULT_POLL_TIMING: PollTiming = {
  emptyPollWaitMs: MIN_EMPTY_POLL_INTERVAL_MS + 500,
  retryWaitMs: MIN_EMPTY_POLL_INTERVAL_MS + 500,
  confirmWindowMs: 120_000,
  confirmMarginMs: 15_000,
  pageBudgetMs: 15_000,
  leaseTtlMs: 45_000,
  renewEveryMs: 5_000,
  storeAttempts: 3,
  storeBackoffMs: 1_000,
  pagesInFlight: 32,
};

/** Timing that would break a gateway rule or let the lease lapse mid-page. */
export class PollTimingError extends Error {
  override readonly name = 'PollTimingError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid poll timing:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

/** The ports of a polling run; the Lambda passes real adapters, tests fakes and a fake clock. */
export interface PollDeps<G> extends LeaseHolder, PageStorePorts {
  readonly gateway: G;
  readonly timing?: Partial<PollTiming>;
}

export interface ReportPollOutcome {
  readonly stopped: PollStop | 'webhook-mode';
  /** Polls the gateway answered with `10000`, empty or not. */
  readonly polls: number;
  readonly emptyPolls: number;
  /** Polls answered `29002`. */
  readonly rateLimitedPolls: number;
  /** Polls that failed retryably (5xx, timeout, unreadable answer). */
  readonly failedPolls: number;
  readonly reportsPolled: number;
  readonly reportsStored: number;
  readonly reportsDuplicate: number;
  readonly itemsQuarantined: number;
  readonly pagesConfirmed: number;
  /**
   * Pages left for the gateway to deliver again: neither stored nor kept in durable quarantine,
   * too late, or the confirm failed.
   */
  readonly pagesUnconfirmed: number;
  /** Pages not stored after every attempt, kept in durable quarantine (and then confirmed). */
  readonly pagesQuarantined: number;
  /** Pages that could be neither stored nor kept: left unconfirmed, the double fault. */
  readonly pagesNotKept: number;
  /** Kept pages whose items were all stored by this run, and removed from the quarantine. */
  readonly pagesReingested: number;
  /**
   * Kept pages still waiting when the run's re-ingest ended; `null` when they were not listed
   * (the listing failed, another poller held the lease, or no time was left).
   */
  readonly quarantinedPagesLeft: number | null;
  /**
   * The largest poll lag of the run: how old the oldest report (`rptDt`) on a page was when the
   * page was polled. For the poll-lag alarm; `null` when no page came.
   */
  readonly oldestReportAgeSeconds: number | null;
}

export interface InboundPollOutcome {
  readonly stopped: PollStop;
  readonly polls: number;
  readonly emptyPolls: number;
  readonly rateLimitedPolls: number;
  readonly failedPolls: number;
  readonly messagesPolled: number;
  readonly messagesStored: number;
  readonly messagesDuplicate: number;
  readonly itemsQuarantined: number;
  /** Pages not stored after every attempt, kept in durable quarantine. */
  readonly pagesQuarantined: number;
  readonly pagesReingested: number;
  readonly quarantinedPagesLeft: number | null;
  /**
   * Handed out by the gateway, not stored after every attempt, and not kept in durable quarantine
   * either (the double fault): the gateway will not repeat them.
   */
  readonly messagesNotStored: number;
}

/**
 * Polls delivery reports for one invocation (spec 01 §4.11, §4.12; field notes "Polling").
 *
 * Input: the report delivery mode and the ports. Output: what was polled, stored and confirmed.
 * Primary course: under the `report-poller` lease (renewed while running; lost → stop), first
 * re-ingest the report pages kept in durable quarantine by earlier runs, then poll; store every
 * report through the webhook path (`receiveReports`, via `polling`), which reads each item on its
 * own and keeps an odd one raw in quarantine; confirm the page's `rptKey` only once the page is
 * stored and while the 120 s window still has room; poll again at once after a non-empty page,
 * and only 10 s (plus a margin) after an empty one or a `29002`. No poll starts unless its page
 * can be stored and confirmed before the deadline.
 * Alternatives: in `webhook` mode, return at once. A page whose store still asks for a retry after
 * `storeAttempts` is kept in durable quarantine and then confirmed: once it is kept, the gateway's
 * redelivery (which stops after 81 h) is no longer what keeps it, and the next runs store it from
 * there. When it cannot be kept either, it stays unconfirmed: the gateway delivers it again after
 * 120 s. A confirm that would be late leaves the page unconfirmed too; either way the store
 * recognises the duplicates.
 */
export const pollReports = async (
  deps: PollDeps<ReportPollingGateway>,
  delivery: ReportDelivery,
): Promise<ReportPollOutcome> => {
  const counts = {
    ...newPollCounters(),
    reportsPolled: 0,
    reportsStored: 0,
    reportsDuplicate: 0,
    pagesConfirmed: 0,
    pagesUnconfirmed: 0,
    pagesQuarantined: 0,
    pagesNotKept: 0,
  };
  let maxLagMs: number | undefined;
  const finish = (
    stopped: ReportPollOutcome['stopped'],
    reingest: ReingestOutcome = NOTHING_REINGESTED,
  ): ReportPollOutcome => ({
    stopped,
    ...counts,
    reportsStored: counts.reportsStored + reingest.stored,
    reportsDuplicate: counts.reportsDuplicate + reingest.duplicates,
    pagesReingested: reingest.pages,
    quarantinedPagesLeft: reingest.left,
    oldestReportAgeSeconds: maxLagMs === undefined ? null : Math.round(maxLagMs / 1000),
  });
  if (delivery === 'webhook') return finish('webhook-mode');

  const poller = {
    lease: REPORT_POLLER_LEASE,
    kind: 'reports',
    what: 'report',
    isFull: (data: PollReportsResponseData) => (data?.rptLst.length ?? 0) >= REPORTS_PER_POLL,
  } as const;
  const poll = () => deps.gateway.pollReports();
  const run = await pollUnderLease(deps, poller, counts, poll, async (data, polledAt, timing) => {
    if (data === null || data.rptLst.length === 0) {
      counts.emptyPolls++;
      const notBefore = deps.now() + timing.emptyPollWaitMs;
      // A key without items (never seen, but possible) is confirmed so it is not handed out again.
      if (data !== null) await confirm(deps, timing, data.rptKey, polledAt);
      return notBefore;
    }

    counts.reportsPolled += data.rptLst.length;
    const oldest = oldestReportTime(data.rptLst);
    if (oldest !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, polledAt - oldest);
    // The items as the gateway sent them: the receive path reads each on its own.
    const body = JSON.stringify({ rptLst: data.rptLst });
    const { outcome, stored, duplicates } = await storePage(deps, timing, 'reports', body);
    counts.reportsStored += stored;
    counts.reportsDuplicate += duplicates;
    counts.itemsQuarantined += outcome.quarantined + outcome.unrecognised;
    const notBefore = deps.now();
    if (outcome.result === 'retry') {
      const kept = await keepPage(deps, {
        kind: 'reports',
        body,
        reason: `not stored after ${timing.storeAttempts} attempts: ${outcome.failed} item(s) failed`,
        rptKey: data.rptKey,
      });
      if (kept === undefined) {
        counts.pagesNotKept++;
        counts.pagesUnconfirmed++;
        deps.logger.error(
          'report page neither stored nor kept in quarantine; left unconfirmed for redelivery',
          { rptKey: data.rptKey, ...summary(outcome), msgKeys: outcome.keys },
        );
        return notBefore;
      }
      counts.pagesQuarantined++;
      deps.logger.error('report page not fully stored; kept in durable quarantine', {
        rptKey: data.rptKey,
        location: kept,
        ...summary(outcome),
        msgKeys: outcome.keys,
      });
    }
    if (await confirm(deps, timing, data.rptKey, polledAt)) {
      counts.pagesConfirmed++;
      deps.logger.info('report page stored and confirmed', {
        rptKey: data.rptKey,
        ...summary(outcome),
        msgKeys: outcome.keys,
      });
    } else {
      counts.pagesUnconfirmed++;
    }
    return notBefore;
  });
  return finish(run.stopped, run.reingest);
};

/**
 * Polls inbound (MO) messages for one invocation, for accounts without an MO webhook
 * (spec 01 §4.14): the same discipline as {@link pollReports} under its own `mo-poller` lease,
 * re-ingesting kept MO pages first and storing through `receiveInbound` (via `polling`). The
 * gateway hands each message out once and has no confirmation, so a page whose store asks for a
 * retry is stored again in this run (the items already written come back as duplicates); after
 * `storeAttempts` it is kept in durable quarantine for the next runs. Only when that fails too are
 * its messages counted as not stored.
 */
export const pollInbound = async (
  deps: PollDeps<MoPollingGateway>,
): Promise<InboundPollOutcome> => {
  const counts = {
    ...newPollCounters(),
    messagesPolled: 0,
    messagesStored: 0,
    messagesDuplicate: 0,
    pagesQuarantined: 0,
    messagesNotStored: 0,
  };
  // One page at a time: an MO page holds every waiting message (no page size to tell "more").
  const poller = { lease: MO_POLLER_LEASE, kind: 'mo', what: 'mo', isFull: () => false } as const;
  const poll = () => deps.gateway.listMo();
  const run = await pollUnderLease(deps, poller, counts, poll, async (messages, _, timing) => {
    if (messages.length === 0) {
      counts.emptyPolls++;
      return deps.now() + timing.emptyPollWaitMs;
    }

    counts.messagesPolled += messages.length;
    const body = JSON.stringify({ moLst: messages });
    const { outcome, stored, duplicates } = await storePage(deps, timing, 'mo', body);
    counts.messagesStored += stored;
    counts.messagesDuplicate += duplicates;
    counts.itemsQuarantined += outcome.quarantined + outcome.unrecognised;
    const notBefore = deps.now();
    if (outcome.result !== 'retry') {
      deps.logger.info('inbound messages polled and stored', {
        messages: messages.length,
        stored,
        moKeys: outcome.keys,
      });
      return notBefore;
    }
    const kept = await keepPage(deps, {
      kind: 'mo',
      body,
      reason: `not stored after ${timing.storeAttempts} attempts: ${outcome.failed} item(s) failed`,
    });
    if (kept === undefined) {
      counts.messagesNotStored += outcome.failed;
      deps.logger.error(
        'inbound messages polled but neither stored nor kept in quarantine; the gateway will not repeat them',
        { ...summary(outcome), moKeys: outcome.keys },
      );
    } else {
      counts.pagesQuarantined++;
      deps.logger.error('inbound messages not fully stored; page kept in durable quarantine', {
        location: kept,
        ...summary(outcome),
        moKeys: outcome.keys,
      });
    }
    return notBefore;
  });
  return {
    stopped: run.stopped,
    ...counts,
    messagesStored: counts.messagesStored + run.reingest.stored,
    messagesDuplicate: counts.messagesDuplicate + run.reingest.duplicates,
    pagesReingested: run.reingest.pages,
    quarantinedPagesLeft: run.reingest.left,
  };
};

export interface PollingConfig {
  readonly reportDelivery: ReportDelivery;
  readonly moPolling: boolean;
}

export interface PollingRun {
  readonly reports: ReportPollOutcome | undefined;
  readonly inbound: InboundPollOutcome | undefined;
  /** Failures of either poller; the other one still ran to its end. */
  readonly errors: readonly unknown[];
}

/** Runs the report poller and, when configured, the MO poller side by side until the deadline. */
export const runPolling = async (
  config: PollingConfig,
  deps: PollDeps<ReportPollingGateway & MoPollingGateway>,
): Promise<PollingRun> => {
  const [reports, inbound] = await Promise.allSettled([
    pollReports(deps, config.reportDelivery),
    config.moPolling ? pollInbound(deps) : Promise.resolve(undefined),
  ]);
  return {
    reports: reports.status === 'fulfilled' ? reports.value : undefined,
    inbound: inbound.status === 'fulfilled' ? inbound.value : undefined,
    errors: [reports, inbound].flatMap((result) =>
      result.status === 'rejected' ? [result.reason] : [],
    ),
  };
};

/** The defaults with `overrides` applied, checked: throws {@link PollTimingError} listing every problem. */
export const resolvePollTiming = (overrides: Partial<PollTiming> | undefined): PollTiming => {
  const timing = { ...DEFAULT_POLL_TIMING, ...overrides };
  const problems: string[] = [];
  if (timing.emptyPollWaitMs < MIN_EMPTY_POLL_INTERVAL_MS)
    problems.push(`emptyPollWaitMs must be at least ${MIN_EMPTY_POLL_INTERVAL_MS}`);
  if (timing.retryWaitMs < MIN_EMPTY_POLL_INTERVAL_MS)
    problems.push(`retryWaitMs must be at least ${MIN_EMPTY_POLL_INTERVAL_MS}`);
  if (timing.pageBudgetMs > timing.confirmWindowMs - timing.confirmMarginMs)
    problems.push('pageBudgetMs must fit in the confirm window less its margin');
  const longestWait = Math.max(timing.emptyPollWaitMs, timing.retryWaitMs);
  if (timing.renewEveryMs + timing.pageBudgetMs + longestWait >= timing.leaseTtlMs)
    problems.push(
      'leaseTtlMs must outlast renewEveryMs + pageBudgetMs + the longest wait, or the lease lapses between renewals',
    );
  if (timing.storeAttempts < 1) problems.push('storeAttempts must be at least 1');
  if (
    !Number.isInteger(timing.pagesInFlight) ||
    timing.pagesInFlight < 1 ||
    timing.pagesInFlight > 50
  )
    problems.push('pagesInFlight must be an integer from 1 to 50');
  if (problems.length > 0) throw new PollTimingError(problems);
  return timing;
};

// --- Internals -----------------------------------------------------------------------------------

type PollAnswer<T> =
  | { readonly kind: 'answered'; readonly data: T }
  | { readonly kind: 'rate-limited' | 'failed' };

/**
 * One poll. `29002` and retryable failures (5xx, timeouts, unreadable answers) are answered with a
 * wait by the caller: a failed poll may still have counted as an empty one at the gateway. Anything
 * else (credentials refused, a rejected request) ends the run.
 */
const pollOnce = async <T>(
  poll: () => Promise<T>,
  logger: PollLogger,
  what: 'report' | 'mo',
): Promise<PollAnswer<T>> => {
  try {
    return { kind: 'answered', data: await poll() };
  } catch (error) {
    if (error instanceof GatewayRateLimitedError) {
      logger.warn('poll refused with 29002; waiting before the next one', { poll: what });
      return { kind: 'rate-limited' };
    }
    if (error instanceof GatewayError && error.retryable) {
      logger.warn('poll failed; waiting before the next one', { poll: what, error });
      return { kind: 'failed' };
    }
    throw error;
  }
};

const NOTHING_REINGESTED: ReingestOutcome = { pages: 0, stored: 0, duplicates: 0, left: null };

/** The counts both pollers keep: polls by how the gateway answered, and items kept raw. */
interface PollCounters {
  polls: number;
  emptyPolls: number;
  rateLimitedPolls: number;
  failedPolls: number;
  itemsQuarantined: number;
}

const newPollCounters = (): PollCounters => ({
  polls: 0,
  emptyPolls: 0,
  rateLimitedPolls: 0,
  failedPolls: 0,
  itemsQuarantined: 0,
});

/**
 * The loop both pollers run: under the poller's lease, re-ingest the pages of its kind kept by
 * earlier runs, then poll while the session allows. A rate-limited or failed poll waits
 * `retryWaitMs`; an answered page goes to `onPage`, which answers when the next poll may start.
 * A full page (`isFull`) starts one more poll beside it, up to `pagesInFlight`; a page that is not
 * full ends the extra polls as they finish. Every wait (after an empty page, a refusal) holds every
 * poll: the gateway's 10 s rule is per account, not per poll.
 */
const pollUnderLease = async <T>(
  deps: PollDeps<unknown>,
  poller: {
    readonly lease: string;
    readonly kind: PolledPageKind;
    readonly what: 'report' | 'mo';
    readonly isFull: (data: T) => boolean;
  },
  counts: PollCounters,
  poll: () => Promise<T>,
  onPage: (data: T, polledAt: number, timing: PollTiming) => Promise<number>,
): Promise<{ stopped: PollStop; reingest: ReingestOutcome }> => {
  let reingest = NOTHING_REINGESTED;
  const timing = resolvePollTiming(deps.timing);
  const stopped = await underLease(deps, poller.lease, timing, async (session) => {
    reingest = await reingestKeptPages(deps, session, poller.kind);
    if (reingest.stopped) return reingest.stopped;
    let notBefore = deps.now();
    let wanted = 1;
    let active = 1;
    /** Set when a poll failed beyond a wait: every other poll ends too. */
    let failed = false;
    const failing = <V>(polls: Promise<V>): Promise<V> =>
      polls.catch((error: unknown) => {
        failed = true;
        throw error;
      });
    const extra: Array<Promise<unknown>> = [];
    /** One poll after another; the first never leaves before the run ends, the others may. */
    const lane = async (first: boolean): Promise<Exclude<PollStop, 'lease-busy'> | undefined> => {
      for (;;) {
        if (failed || (!first && active > wanted)) return undefined;
        const ready = await session.ready(notBefore);
        if (ready !== 'go') return ready;

        const polledAt = deps.now();
        const page = await pollOnce(poll, deps.logger, poller.what);
        if (page.kind !== 'answered') {
          if (page.kind === 'rate-limited') counts.rateLimitedPolls++;
          else counts.failedPolls++;
          wanted = 1;
          notBefore = Math.max(notBefore, deps.now() + timing.retryWaitMs);
          continue;
        }
        counts.polls++;
        if (poller.isFull(page.data)) {
          if (active < timing.pagesInFlight) {
            wanted = active + 1;
            active++;
            extra.push(failing(lane(false)).finally(() => active--));
          }
        } else {
          wanted = 1;
        }
        notBefore = Math.max(notBefore, await onPage(page.data, polledAt, timing));
      }
    };
    const outcome = await Promise.allSettled([failing(lane(true))]);
    // The extra polls end at the same deadline or lease loss; none is left running.
    const rest: Array<PromiseSettledResult<unknown>> = [];
    for (let awaited = 0; awaited < extra.length; ) {
      const started = extra.slice(awaited);
      awaited = extra.length;
      rest.push(...(await Promise.allSettled(started)));
    }
    for (const result of [...outcome, ...rest])
      if (result.status === 'rejected') throw result.reason;
    const [first] = outcome;
    return first?.status === 'fulfilled' && first.value ? first.value : 'deadline';
  });
  return { stopped, reingest };
};

/**
 * Confirms a stored page while the window still has room for the call; a retryable failure is
 * tried once more. False when the page stays unconfirmed (the gateway will deliver it again).
 */
const confirm = async (
  deps: PollDeps<ReportPollingGateway>,
  timing: PollTiming,
  rptKey: string,
  polledAt: number,
): Promise<boolean> => {
  const lastStart = polledAt + timing.confirmWindowMs - timing.confirmMarginMs;
  for (let attempt = 1; ; attempt++) {
    if (deps.now() > lastStart) {
      deps.logger.warn(
        'report page stored too late to confirm safely; the gateway will repeat it',
        {
          rptKey,
          secondsSincePoll: Math.round((deps.now() - polledAt) / 1000),
        },
      );
      return false;
    }
    try {
      await deps.gateway.confirmReports([rptKey]);
      return true;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      if (!error.retryable || attempt >= 2) {
        deps.logger.warn('report page confirm failed; the gateway will repeat it', {
          rptKey,
          error,
        });
        return false;
      }
    }
  }
};

/** Epoch ms of the oldest readable `rptDt` on a page of raw items (odd items are skipped). */
const oldestReportTime = (reports: readonly unknown[]): number | undefined => {
  let oldest: number | undefined;
  for (const report of reports) {
    const rptDt =
      typeof report === 'object' && report !== null && 'rptDt' in report ? report.rptDt : undefined;
    const iso = typeof rptDt === 'string' && rptDt ? parseGatewayDateTime(rptDt) : undefined;
    if (iso === undefined) continue;
    const at = Date.parse(iso);
    oldest = oldest === undefined ? at : Math.min(oldest, at);
  }
  return oldest;
};
