import * as z from '../../gateway/schemas/zod.ts';
import type { ReceiveDeps } from '../received-items/receive-items.ts';
import type { AwaitingReports } from '../send-records/ports.ts';
import type { ReportCheckQueue } from '../send-records/report-checks.ts';
import type { UnknownOutcomeIndex, UnknownOutcomePorts } from './resolve-unknown-outcomes.ts';
import type { StatusGateway } from './status-query.ts';

/*
 * reconcile-status's ports, settings and counts (`reconcile-use-case.ts` runs the reconciliation).
 */

/** A recipient the gateway accepted, as its report check lists it. */
export interface AwaitingRecipient {
  readonly cliKey: string;
  /** Absent when the gateway answered "already accepted" without one. */
  readonly msgKey?: string;
  /** When the acceptance was recorded, UTC ISO 8601. */
  readonly acceptedAt: string;
}

/** What is already recorded for a recipient. */
export interface ReportLedger {
  /** True when at least one delivery report of `msgKey` is stored. */
  hasReport(msgKey: string): Promise<boolean>;
  /** True when a "Message Status Unavailable" event of `cliKey` is stored. */
  hasStatusUnavailable(cliKey: string): Promise<boolean>;
}

/**
 * Keeps a report built from a status answer from becoming a second item when the same delivery
 * arrives (or arrived) by webhook or poll with another `ch`: the receivers key a report on
 * `RESULT#<resultCode>#<ch>`, and the status query may answer another channel (the original
 * instead of the fallback that delivered) or none.
 */
export interface ReportGuards {
  /**
   * Writes a guard item (no event) at each of `sortKeys` under `REPORT#<msgKey>` where nothing is
   * stored, so that a receiver's conditional put there finds a duplicate. `reported` when one of
   * them already holds a report (then no guard matters and none need be kept).
   */
  guard(
    msgKey: string,
    sortKeys: readonly string[],
    guardOf: string,
    expiresAt: number,
  ): Promise<'clear' | 'reported'>;
}

/** The status query's range (spec 01 §8). */
const QUERY_RANGE_HOURS = 90 * 24;
export const RECONCILE_DEFAULTS = {
  afterMinutes: 30,
  // `32114` messenger results may arrive up to 3 days late (field notes): look a day longer.
  horizonHours: 96,
  maxRecipients: 5_000,
  pageSize: 100,
  unknownAfterMinutes: 2,
  notSentAfterMinutes: 10,
} as const;

export const ReconcileSettingsSchema = z
  .strictObject({
    /** Recipients accepted less than this long ago are left alone: their report may still come. */
    afterMinutes: z._default(z.int().check(z.minimum(1)), RECONCILE_DEFAULTS.afterMinutes),
    /** Recipients accepted longer ago than this are no longer looked for. */
    horizonHours: z._default(
      z
        .int()
        .check(
          z.minimum(1),
          z.maximum(QUERY_RANGE_HOURS, 'the status query reaches 90 days back at most'),
        ),
      RECONCILE_DEFAULTS.horizonHours,
    ),
    /**
     * Recipients without a stored report or status read per run at most, each a status query's
     * key (report checks are read whole, so the last one may pass it by up to 9); the rest wait
     * for the next run. Recipients whose report is stored do not count.
     */
    maxRecipients: z._default(z.int().check(z.minimum(1)), RECONCILE_DEFAULTS.maxRecipients),
    /** Unknown outcomes read per page of their index. */
    pageSize: z._default(
      z.int().check(z.minimum(1), z.maximum(1_000)),
      RECONCILE_DEFAULTS.pageSize,
    ),
    /** Unknown outcomes are first asked about this long after the attempt. */
    unknownAfterMinutes: z._default(
      z.int().check(z.minimum(0)),
      RECONCILE_DEFAULTS.unknownAfterMinutes,
    ),
    /**
     * An unknown outcome the gateway does not know (`INVALID_KEY`) is believed "not sent" only
     * this long after the attempt: a request still in the gateway's intake is not yet queryable.
     */
    notSentAfterMinutes: z._default(
      z.int().check(z.minimum(1)),
      RECONCILE_DEFAULTS.notSentAfterMinutes,
    ),
  })
  .check(
    z.refine((s) => s.horizonHours * 60 > s.afterMinutes, {
      path: ['horizonHours'],
      message: 'the horizon must be longer than the wait before reconciling',
    }),
  );
export type ReconcileSettings = z.output<typeof ReconcileSettingsSchema>;

export interface ReconcileDeps {
  /** Where an acceptance found by the status query is queued for its report check. */
  readonly awaiting?: AwaitingReports;
  /**
   * The report-check queue: accepted recipients waiting for their report, as the sender queued
   * them (read by `checkReports`; the scheduled run resolves unknown outcomes only).
   */
  readonly checks?: ReportCheckQueue;
  /** Told about a check that cannot be read (it stays on the queue, and so reaches its DLQ). */
  readonly onInvalidCheck?: (check: {
    readonly receiveCount: number;
    readonly problem: string;
    readonly body: string;
  }) => void;
  readonly ledger: ReportLedger;
  readonly unknown: UnknownOutcomeIndex;
  readonly guards: ReportGuards;
  /** Owner of the claims this run takes on unknown outcomes. @default a random UUID per run */
  readonly owner?: string;
  readonly gateway: StatusGateway;
  /** Where reports and events go: the receivers' store, clock, retention and concurrency. */
  readonly receive: ReceiveDeps;
  /** Where resolved acceptances go when they are not published (see `UnknownOutcomePorts`). */
  readonly unpublishedAcceptances?: UnknownOutcomePorts['unpublishedAcceptances'];
  readonly now: () => Date;
  readonly settings: ReconcileSettings;
  /** False once the run must start no more work (its deadline is near). */
  readonly hasTimeLeft?: () => boolean;
}

/** Why a run ended. */
export type ReconcileStop = 'complete' | 'budget' | 'time' | 'gateway-unavailable';

export interface ReconcileCounts {
  /** Recipients of report checks examined. */
  readonly examined: number;
  /** Report checks received from the queue. */
  readonly checksReceived: number;
  /** Checks finished and deleted: every recipient's report or unavailable status is stored. */
  readonly checksFinished: number;
  /** Checks received before they were due (`afterMinutes`): put back, delayed until they are. */
  readonly checksNotDue: number;
  /**
   * Checks put back on the queue with a delay: not yet due, or with recipients still pending or
   * not queried (put back with only those).
   */
  readonly checksPostponed: number;
  /** Checks older than `horizonHours`: deleted without asking. */
  readonly checksExpired: number;
  /** Checks that could not be read: left on the queue for its DLQ. */
  readonly checksInvalid: number;
  /** Recipients whose report or unavailable status was already stored: not queried, settled. */
  readonly alreadyRecorded: number;
  /** Status query calls. */
  readonly statusQueries: number;
  /** Keys sent in those calls (a key retried with the previous day counts twice). */
  readonly keysQueried: number;
  /** Reports stored from a finished status (new items, so new events). */
  readonly reportsReconciled: number;
  /** Finished statuses whose report had been stored meanwhile (no second event). */
  readonly reportsDuplicate: number;
  /** "Message Status Unavailable" events stored. */
  readonly statusUnavailable: number;
  /** REG, ING, or an answer without a result: left for the next run. */
  readonly stillPending: number;
  /** Finished statuses that could not be stored this run (the next run tries again). */
  readonly storeFailures: number;
  /** Finished statuses the report contract refused, kept in quarantine. */
  readonly quarantined: number;
  /** Entries found but not queried because the run stopped early. */
  readonly notQueried: number;
  /** Unknown outcomes read from their index. */
  readonly unknownExamined: number;
  /** Unknown outcomes the gateway knew: "Message Accepted" stored. */
  readonly unknownAccepted: number;
  /** Unknown outcomes the gateway did not know after `notSentAfterMinutes`: "Message Rejected" (not-sent). */
  readonly unknownNotSent: number;
  /** Unknown outcomes decided meanwhile by another send: taken off their index. */
  readonly unknownAlreadyDecided: number;
  /** Unknown outcomes left for the next run (too recent to believe, claimed by a sender, no answer). */
  readonly unknownPending: number;
  /** Items of the unknown-outcome index that are no readable entry: never decided, until mended. */
  readonly unknownUnreadable: number;
  /** Their keys and why (the first 20). */
  readonly unreadableUnknown?: readonly string[];
  readonly stoppedBy: ReconcileStop;
  /** The gateway error that stopped the run, when one did. */
  readonly gatewayError?: string;
}
