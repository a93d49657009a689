import {
  type ReceiveDeps,
  type ReceiveOutcome,
  receiveInbound,
  receiveReports,
} from '../received-items/receive-items.ts';
import type { PolledPageKind, PolledPageQuarantine } from './polled-page-quarantine.ts';
import type { LeaseSession, PollRunClock, PollStop } from './poller-lease.ts';

/*
 * How the pollers store a polled page: through the webhook receivers' path (one conditional put
 * per item), again while it asks for a retry, then into durable quarantine; and how later runs
 * store the kept pages from there.
 */

/** Kept pages re-ingested per poller and run at most; the rest wait for the next run. */
export const MAX_REINGESTED_PAGES_PER_RUN = 20;

/** What storing pages takes. */
export interface PageStorePorts extends PollRunClock {
  /** The webhook receivers' dependencies: polled items take the same path (one put per item). */
  readonly receive: ReceiveDeps;
  /** Where a page goes that could not be stored after every attempt (not the event table). */
  readonly quarantine: PolledPageQuarantine;
}

/** The part of `PollTiming` storing a page keeps to. */
export interface StoreTiming {
  readonly storeAttempts: number;
  readonly storeBackoffMs: number;
}

/** An outcome's counts, for the log. */
export const summary = (outcome: ReceiveOutcome) => ({
  stored: outcome.stored,
  duplicates: outcome.duplicates,
  quarantined: outcome.quarantined,
  unrecognised: outcome.unrecognised,
  failed: outcome.failed,
});

const RECEIVE: Record<PolledPageKind, typeof receiveReports> = {
  reports: receiveReports,
  mo: receiveInbound,
};

export interface StoredPage {
  /** The last attempt's outcome. */
  readonly outcome: ReceiveOutcome;
  /** Items newly stored over every attempt. */
  readonly stored: number;
  /** Items another delivery had already stored (not those an earlier attempt of this page wrote). */
  readonly duplicates: number;
}

/**
 * Stores a page's body through the receive path, again while it asks for a retry, up to
 * `storeAttempts` times and never past the deadline. Items already written come back as
 * duplicates on the next attempt.
 */
export const storePage = async (
  deps: PageStorePorts,
  timing: StoreTiming,
  kind: PolledPageKind,
  body: string,
): Promise<StoredPage> => {
  const receive = RECEIVE[kind];
  let outcome = await receive(body, deps.receive, 'polling');
  let stored = outcome.stored;
  for (let attempt = 1; outcome.result === 'retry' && attempt < timing.storeAttempts; attempt++) {
    const backoff = timing.storeBackoffMs * attempt;
    if (deps.now() + backoff > deps.deadline) break;
    await deps.sleep(backoff);
    outcome = await receive(body, deps.receive, 'polling');
    stored += outcome.stored;
  }
  return {
    outcome,
    stored,
    duplicates: Math.max(0, outcome.duplicates - (stored - outcome.stored)),
  };
};

/** Keeps a page in durable quarantine; `undefined` (logged) when even that failed. */
export const keepPage = async (
  deps: PageStorePorts,
  page: Parameters<PolledPageQuarantine['keep']>[0],
): Promise<string | undefined> => {
  try {
    return await deps.quarantine.keep(page, new Date(deps.now()));
  } catch (error) {
    deps.logger.error('could not keep a polled page in durable quarantine', {
      kind: page.kind,
      rptKey: page.rptKey,
      error,
    });
    return undefined;
  }
};

/** What re-ingesting the kept pages of one poller achieved. */
export interface ReingestOutcome {
  readonly pages: number;
  readonly stored: number;
  readonly duplicates: number;
  /** Kept pages still waiting afterwards; `null` when they could not be listed. */
  readonly left: number | null;
  /** Set when the lease or the deadline ended the run during the re-ingest. */
  readonly stopped?: Exclude<PollStop, 'lease-busy'>;
}

/**
 * Stores the pages kept in durable quarantine by earlier runs again, oldest first, through the
 * same receive path and with the same body, so every item already stored (quarantined ones too)
 * is recognised as a duplicate. A page is removed only once every item in it is stored; a page
 * that fails again stays for the next run. Quarantine faults are logged and never stop polling.
 */
export const reingestKeptPages = async (
  deps: PageStorePorts,
  session: LeaseSession,
  kind: PolledPageKind,
): Promise<ReingestOutcome> => {
  let locations: string[];
  try {
    locations = await deps.quarantine.list(kind, MAX_REINGESTED_PAGES_PER_RUN);
  } catch (error) {
    deps.logger.warn('could not list the kept polled pages; trying again next run', {
      kind,
      error,
    });
    return { pages: 0, stored: 0, duplicates: 0, left: null };
  }
  let pages = 0;
  let stored = 0;
  let duplicates = 0;
  for (const location of locations) {
    const ready = await session.ready(deps.now());
    if (ready !== 'go')
      return { pages, stored, duplicates, left: locations.length - pages, stopped: ready };
    try {
      const body = await deps.quarantine.read(location);
      const outcome = await RECEIVE[kind](body, deps.receive, 'polling');
      if (outcome.result === 'retry') {
        deps.logger.warn('kept polled page still not fully stored; it stays for the next run', {
          kind,
          location,
          ...summary(outcome),
        });
        continue;
      }
      await deps.quarantine.remove(location);
      pages++;
      stored += outcome.stored;
      duplicates += outcome.duplicates;
      deps.logger.info('kept polled page stored and removed from quarantine', {
        kind,
        location,
        ...summary(outcome),
        keys: outcome.keys,
      });
    } catch (error) {
      deps.logger.warn('could not re-ingest a kept polled page; it stays for the next run', {
        kind,
        location,
        error,
      });
    }
  }
  return { pages, stored, duplicates, left: locations.length - pages };
};
