import { GatewayError } from '../../gateway/errors.ts';
import type { StatusQueryItem } from '../../gateway/schemas/index.ts';
import { STATUS_QUERY_MAX_KEYS } from '../../gateway/schemas/reports.ts';
import type { ReceiveDeps } from '../received-items/receive-items.ts';
import {
  resolvedAcceptanceUnpublished,
  resolvedUnknownRecord,
} from '../send-records/outcome-records.ts';
import type {
  AwaitingReports,
  ClaimResult,
  SendRecordKey,
  SendStore,
  UnknownOutcome,
} from '../send-records/ports.ts';
import { kstDate, type StatusGateway } from './status-query.ts';

/*
 * The first step of a reconcile-status run: the sends that got no answer, decided by the status
 * query ("Message Accepted" or "Message Rejected" as not sent) under the recipient's send claim.
 */

/** Unreadable index items a run names in its result (all are counted). */
const UNREADABLE_NAMED = 20;
/**
 * Recipients whose last send got no answer ({@link UnknownOutcome}), kept by the sender until the
 * status query says what became of them.
 */
export interface UnknownOutcomeIndex {
  /**
   * One page of the entries attempted within `range` (UTC ISO 8601), oldest first, and the keys
   * of the page's items that are no readable entry (with why), which are left where they are.
   */
  unknownPage(
    range: { readonly from: string; readonly to: string },
    limit: number,
    start?: string,
  ): Promise<{
    readonly entries: readonly UnknownOutcome[];
    readonly unreadable?: readonly string[];
    readonly next?: string;
  }>;
  /**
   * True when an outcome of `cliKey` is stored (a later send or run decided it): an `OUTCOME`
   * item, or an acceptance its message's send record lists.
   */
  hasOutcome(cliKey: string, record: SendRecordKey): Promise<boolean>;
  /** Takes an entry off the index once its outcome is stored. */
  resolve(cliKey: string): Promise<void>;
  /** The claim on the message's send record (see `SendStore.claim`): no send of it while held. */
  claim(record: SendRecordKey, owner: string, until: number): Promise<ClaimResult>;
  /** Gives the claim back, marked as maybe sent with `maybeSent` (see `SendStore.release`). */
  release(record: SendRecordKey, owner: string, maybeSent?: boolean): Promise<void>;
}

/** What resolving unknown outcomes takes; `ReconcileDeps` fit. */
export interface UnknownOutcomePorts {
  readonly unknown: UnknownOutcomeIndex;
  /** Where an acceptance is queued for the report check, as the sender queues its own. */
  readonly awaiting?: AwaitingReports;
  readonly gateway: StatusGateway;
  /** Where the outcomes go: the receivers' store, clock and retention. */
  readonly receive: ReceiveDeps;
  /**
   * Where an acceptance goes when acceptances are not published (`acceptedEvents` false): the
   * send store, which writes it without an event. Absent: every outcome is an event.
   */
  readonly unpublishedAcceptances?: Pick<SendStore, 'putEvent'>;
  readonly now: () => Date;
  readonly settings: UnknownOutcomeSettings;
}

/** The reconcile settings this step reads (see `ReconcileSettingsSchema`). */
export interface UnknownOutcomeSettings {
  readonly horizonHours: number;
  readonly pageSize: number;
  readonly unknownAfterMinutes: number;
  readonly notSentAfterMinutes: number;
}

/** The run's counters this step adds to (see `ReconcileCounts`). */
export interface UnknownOutcomeCounts {
  statusQueries: number;
  keysQueried: number;
  unknownExamined: number;
  unknownAccepted: number;
  unknownNotSent: number;
  unknownAlreadyDecided: number;
  unknownPending: number;
  /** Items of the index that are no readable entry: left as they are, named in `unreadableUnknown`. */
  unknownUnreadable: number;
  unreadableUnknown?: readonly string[];
  gatewayError?: string;
}

export interface UnknownOutcomeRun {
  readonly deps: UnknownOutcomePorts;
  readonly counts: UnknownOutcomeCounts;
}

/** Why the step ended the run early. */
export type UnknownOutcomeStop = 'time' | 'gateway-unavailable';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** A send that crossed KST midnight may be dated the next day by the gateway. */
const LATE_ARRIVAL_MS = 2 * MINUTE_MS;
/** How long this run's claim on an unknown outcome holds: one or two status calls. */
const UNKNOWN_CLAIM_MS = 5 * MINUTE_MS;

/**
 * Asks the gateway about recipients whose last send got no answer, and stores what it knows:
 * "Message Accepted" when it has the cliKey (REG, ING or DONE; the report comes as usual), or
 * "Message Rejected" (category `not-sent`) when it still does not know it `notSentAfterMinutes`
 * after the attempt. While asking, the run holds the recipient's send claim, and a sender reads
 * outcomes again after claiming: the cliKey is never sent while its outcome is being decided.
 */
export const resolveUnknownOutcomes = async (
  run: UnknownOutcomeRun,
  hasTimeLeft: () => boolean,
  claimOwner: string,
): Promise<UnknownOutcomeStop | undefined> => {
  const { deps, counts } = run;
  const { settings } = deps;
  const now = deps.now().getTime();
  const range = {
    from: new Date(now - settings.horizonHours * HOUR_MS).toISOString(),
    to: new Date(now - settings.unknownAfterMinutes * MINUTE_MS).toISOString(),
  };
  let start: string | undefined;
  do {
    const page = await deps.unknown.unknownPage(range, settings.pageSize, start);
    start = page.next;
    if (page.unreadable !== undefined && page.unreadable.length > 0) {
      counts.unknownUnreadable += page.unreadable.length;
      counts.unreadableUnknown = [...(counts.unreadableUnknown ?? []), ...page.unreadable].slice(
        0,
        UNREADABLE_NAMED,
      );
    }
    const byDate = new Map<string, UnknownOutcome[]>();
    for (const entry of page.entries) {
      const reqDt = kstDate(entry.attemptedAt, 0);
      byDate.set(reqDt, [...(byDate.get(reqDt) ?? []), entry]);
    }
    for (const [reqDt, entries] of byDate) {
      for (let i = 0; i < entries.length; i += STATUS_QUERY_MAX_KEYS) {
        if (!hasTimeLeft()) return 'time';
        const stop = await resolveUnknownBatch(
          run,
          entries.slice(i, i + STATUS_QUERY_MAX_KEYS),
          reqDt,
          claimOwner,
        );
        if (stop) return stop;
      }
    }
  } while (start !== undefined);
  return undefined;
};

const resolveUnknownBatch = async (
  run: UnknownOutcomeRun,
  entries: readonly UnknownOutcome[],
  reqDt: string,
  claimOwner: string,
): Promise<UnknownOutcomeStop | undefined> => {
  const { deps, counts } = run;
  const now = deps.now().getTime();
  const claimed: UnknownOutcome[] = [];
  const held = new Map<string, SendRecordKey>();
  for (const entry of entries) {
    counts.unknownExamined += 1;
    const { record } = entry;
    if (await deps.unknown.hasOutcome(entry.cliKey, record)) {
      await deps.unknown.resolve(entry.cliKey);
      counts.unknownAlreadyDecided += 1;
    } else if (
      held.has(record.pk) ||
      // Taken over from a sender that died undecided: exactly the case the status query settles.
      (await deps.unknown.claim(record, claimOwner, now + UNKNOWN_CLAIM_MS)) !== 'busy'
    ) {
      held.set(record.pk, record);
      claimed.push(entry);
    } else counts.unknownPending += 1;
  }
  if (claimed.length === 0) return undefined;
  try {
    // Decided between the look above and the claim (a sender that held an older claim).
    const open: UnknownOutcome[] = [];
    for (const entry of claimed) {
      if (await deps.unknown.hasOutcome(entry.cliKey, entry.record)) {
        await deps.unknown.resolve(entry.cliKey);
        counts.unknownAlreadyDecided += 1;
      } else open.push(entry);
    }
    if (open.length === 0) return undefined;
    const answers = await queryUnknown(run, open, reqDt);
    if (answers === undefined) return 'gateway-unavailable';
    for (const entry of open) {
      let item = answers.get(entry.cliKey);
      const laterDay = kstDate(
        new Date(Date.parse(entry.attemptedAt) + LATE_ARRIVAL_MS).toISOString(),
        0,
      );
      if (item?.status === 'INVALID_KEY' && laterDay !== reqDt) {
        const later = await queryUnknown(run, [entry], laterDay);
        if (later === undefined) return 'gateway-unavailable';
        item = later.get(entry.cliKey);
      }
      const resolution = unknownResolution(entry, item, now, deps.settings);
      if (resolution === undefined) {
        counts.unknownPending += 1;
        continue;
      }
      const at = deps.receive.now();
      const retentionDays = deps.receive.retentionDays;
      // Queued before the outcome is stored: a stored acceptance always has its report check.
      // A scheduled recipient's report comes when the schedule is due, days later: no check, and
      // its acceptance is published whatever `acceptedEvents` says (UnknownOutcome.scheduled).
      if (resolution.kind === 'accepted' && !entry.scheduled)
        await deps.awaiting?.expect({
          channel: entry.channel,
          acceptedAt: entry.attemptedAt,
          recipients: [
            resolution.msgKey
              ? { cliKey: entry.cliKey, msgKey: resolution.msgKey }
              : { cliKey: entry.cliKey },
          ],
        });
      if (resolution.kind === 'accepted' && !entry.scheduled && deps.unpublishedAcceptances)
        await deps.unpublishedAcceptances.putEvent(
          resolvedAcceptanceUnpublished(entry, resolution, at, retentionDays),
        );
      else
        await deps.receive.store.putIfAbsent(
          resolvedUnknownRecord(entry, resolution, at, retentionDays),
        );
      await deps.unknown.resolve(entry.cliKey);
      if (resolution.kind === 'accepted') counts.unknownAccepted += 1;
      else counts.unknownNotSent += 1;
    }
    return undefined;
  } finally {
    // A record with unknown outcomes has recipients the gateway may have: given back marked so,
    // a sender's later claim of it (a redrive of the DLQ) still distrusts a refusal of a resend.
    for (const record of held.values()) await deps.unknown.release(record, claimOwner, true);
  }
};

/** One status query for unknown outcomes; `undefined` when the gateway is unavailable. */
const queryUnknown = async (
  run: UnknownOutcomeRun,
  entries: readonly UnknownOutcome[],
  reqDt: string,
): Promise<Map<string, StatusQueryItem> | undefined> => {
  const { deps, counts } = run;
  try {
    const answer = await deps.gateway.queryStatus(
      entries.map((entry) => ({ cliKey: entry.cliKey, reqDt })),
    );
    counts.statusQueries += 1;
    counts.keysQueried += entries.length;
    return new Map(answer.cliKeyLst.map((item) => [item.cliKey, item]));
  } catch (error) {
    if (!(error instanceof GatewayError && error.retryable)) throw error;
    counts.gatewayError = `${error.name}: ${error.message}`;
    return undefined;
  }
};

/** What a status answer means for an unknown outcome; `undefined` to ask again next run. */
const unknownResolution = (
  entry: UnknownOutcome,
  item: StatusQueryItem | undefined,
  now: number,
  settings: UnknownOutcomeSettings,
):
  | { readonly kind: 'accepted'; readonly msgKey: string | null }
  | { readonly kind: 'not-sent'; readonly status: string }
  | undefined => {
  switch (item?.status) {
    case 'REG':
    case 'ING':
    case 'DONE':
      return { kind: 'accepted', msgKey: item.msgKey ?? null };
    case 'INVALID_KEY':
      return now - Date.parse(entry.attemptedAt) >= settings.notSentAfterMinutes * MINUTE_MS
        ? { kind: 'not-sent', status: 'INVALID_KEY' }
        : undefined;
    default:
      // No item, OVER_DATE (cannot be within the horizon), or a status the spec does not list.
      return undefined;
  }
};
