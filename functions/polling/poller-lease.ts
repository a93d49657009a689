import type { Lease } from '../commons/lease.ts';

/*
 * The lease a poller holds while it runs (one report poller and one MO poller at a time): taken
 * at the start, renewed between pages, given back at the end, and the deadline checked before
 * each page.
 */

/** The logger of a polling run. */
export interface PollLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/** Why a run ended. */
export type PollStop = 'deadline' | 'lease-lost' | 'lease-busy';

/** The clock and logger of a polling run; tests pass a fake clock. */
export interface PollRunClock {
  /** Epoch ms. */
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Epoch ms by which the run has ended (the invocation's deadline less a margin). */
  readonly deadline: number;
  readonly logger: PollLogger;
}

/** What holding a poller lease takes. */
export interface LeaseHolder extends PollRunClock {
  readonly lease: Lease;
  /** This run's identity as lease holder (the Lambda's request id). */
  readonly owner: string;
}

/** The part of `PollTiming` the lease keeps to. */
export interface LeaseTiming {
  readonly pageBudgetMs: number;
  readonly leaseTtlMs: number;
  readonly renewEveryMs: number;
}

/** A run's hold on its lease, asked before each page. */
export interface LeaseSession {
  /**
   * Waits until `notBefore` (never less), then makes sure the lease is still ours and that a page
   * started now can be stored and confirmed before the deadline.
   */
  ready(notBefore: number): Promise<'go' | Exclude<PollStop, 'lease-busy'>>;
}

/** Runs `loop` while holding the lease `name`; gives the lease back however the loop ends. */
export const underLease = async (
  deps: LeaseHolder,
  name: string,
  timing: LeaseTiming,
  loop: (session: LeaseSession) => Promise<Exclude<PollStop, 'lease-busy'>>,
): Promise<PollStop> => {
  const { lease, owner, logger } = deps;
  if (deps.now() + timing.pageBudgetMs > deps.deadline) return 'deadline';
  if (!(await lease.acquire(name, owner, timing.leaseTtlMs))) {
    logger.info('another poller holds the lease; not polling', { lease: name });
    return 'lease-busy';
  }
  let renewedAt = deps.now();
  const session: LeaseSession = {
    async ready(notBefore) {
      // A sleep may end early (timers round); wait until the time has really come.
      for (let now = deps.now(); now < notBefore; now = deps.now()) {
        if (notBefore + timing.pageBudgetMs > deps.deadline) return 'deadline';
        await deps.sleep(notBefore - now);
      }
      const now = deps.now();
      if (now + timing.pageBudgetMs > deps.deadline) return 'deadline';
      if (now - renewedAt >= timing.renewEveryMs) {
        if (!(await lease.renew(name, owner, timing.leaseTtlMs))) {
          logger.warn('poller lease lost; stopping', { lease: name });
          return 'lease-lost';
        }
        renewedAt = now;
      }
      return 'go';
    },
  };
  try {
    return await loop(session);
  } finally {
    // Releasing early only lets the next run start sooner; if it fails, the lease expires.
    await lease.release(name, owner).catch((error: unknown) => {
      logger.warn('could not release the poller lease; it will expire', { lease: name, error });
    });
  }
};
