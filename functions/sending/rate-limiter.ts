/**
 * The gateway's TPS quota, shared by every concurrent sender.
 *
 * The gateway counts recipients per second (field notes: `29002` rejects the whole call; budget per
 * recipient, the stricter reading). The limiter therefore hands out fixed windows aligned to epoch
 * seconds, each holding `quota` recipients, rather than running a classic refilling token bucket.
 * A bucket of capacity R refilled continuously at R/s can be emptied at x.05 s and, having
 * refilled 0.9 R by x.95 s, be emptied again: 1.9 R inside one calendar second, and up to 2 R in
 * a sliding one. Shrinking the capacity to prevent that wastes quota and still relies on timing.
 * A counter per epoch second is the gateway's own rule, so it can be filled to 100 % and never
 * exceeded.
 *
 * What the windows cannot see is the gateway's clock. The guard (below) covers the time a call
 * takes to arrive; a gateway clock that differs from ours by more than that could still count two
 * of our windows' calls in one of its seconds, and would show as `29002` answers, which the sender
 * retries.
 *
 * Costs: one conditional atomic write per acquisition, for all recipients of a request at once
 * (0.1 writes per recipient for 10-recipient requests), plus at most one refused write per waiting
 * sender per window when the quota is the bottleneck.
 */

/** What an acquisition got: the window (epoch second) the recipients were counted in. */
export interface Acquisition {
  /** Milliseconds between the call and the moment the recipients may go out. */
  readonly waitedMs: number;
  /** The epoch second (`Math.floor(ms / 1000)`) the recipients were reserved in. */
  readonly window: number;
  /** Windows found full before this one: 0 when the quota was not what held the call back. */
  readonly fullWindows: number;
  /**
   * Recipients this call counted against the quota: its own, plus those of any reservation it
   * had to abandon at a window's end and could not give back (they stay counted, so they used
   * quota too).
   */
  readonly reserved: number;
}

export interface AcquireOptions {
  /**
   * Epoch milliseconds: give up rather than wait for a window that opens after this. Leave the
   * gateway call its time: e.g. the Lambda's remaining time minus the call's timeout.
   */
  readonly deadline: number;
}

/**
 * The port the sender uses before each gateway call. Call it immediately before the call: when
 * it resolves, the recipients are counted in the current window and at least the guard time is
 * left in it, so the call reaches the gateway in the second it was counted in.
 */
export interface RateLimiter {
  /**
   * Waits until `recipients` may go out without exceeding the quota, reserves them and resolves.
   * Rejects with {@link RateLimitWaitExceededError} when they cannot be had before `deadline`
   * (the caller returns the message to the queue), and with a `RangeError` when `recipients` is
   * not a whole number between 1 and the quota (a programming or configuration error).
   */
  acquire(recipients: number, options: AcquireOptions): Promise<Acquisition>;
}

/** The quota could not be had before the deadline; nothing was reserved for this call. */
export class RateLimitWaitExceededError extends Error {
  override readonly name = 'RateLimitWaitExceededError';
  constructor(
    readonly recipients: number,
    /** Epoch milliseconds the caller was willing to wait until. */
    readonly deadline: number,
    readonly waitedMs: number,
    /** The window that would have been tried next (it opens after the deadline). */
    readonly nextWindow: number,
    /** Windows found full before giving up. */
    readonly fullWindows = 0,
    /** Recipients counted against the quota by abandoned reservations of this call. */
    readonly reserved = 0,
    options?: ErrorOptions,
  ) {
    super(
      `rate limit: ${recipients} recipients could not be reserved before ${new Date(deadline).toISOString()} ` +
        `(waited ${waitedMs} ms; the next window opens at ${new Date(nextWindow * 1000).toISOString()})`,
      options,
    );
  }
}

/**
 * A shared counter per window, the only thing a store has to provide: add `recipients` to the
 * window's count if, and only if, the count stays within `quota`, atomically.
 */
export interface RateWindowStore {
  /** @returns `true` when reserved, `false` when the window cannot take that many more */
  tryReserve(window: number, recipients: number, quota: number): Promise<boolean>;
  /**
   * Takes back `recipients` this caller reserved in `window` and will not send in it. Lowering a
   * count never lets a window exceed the quota: it only lets others use what we did not.
   */
  giveBack(window: number, recipients: number): Promise<void>;
}

export interface WindowedRateLimiterOptions {
  /** Recipients per second the gateway accepts (its TPS quota, per recipient). */
  readonly quota: number;
  /**
   * An acquisition never resolves with less than this left in its window; closer to the end it
   * reserves in the next window and waits for it. This is the time the gateway call may take to
   * arrive (network, TLS, token lookup), so a call counted at x.999 s does not land in x+1.
   * @default 50
   */
  readonly guardMs?: number;
  /**
   * A sender that found its window full waits for the next one plus up to this much, so that
   * concurrent senders do not all retry in the same millisecond.
   * @default 25
   */
  readonly jitterMs?: number;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** @default a timer */
  readonly sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
}

/** What the limiter has done so far, for benchmarks and metrics. */
export interface RateLimiterStats {
  /** Conditional writes sent to the store (successful or refused). */
  attempts: number;
  /** Writes that reserved recipients. */
  reserved: number;
  /** Recipients reserved by those writes. */
  recipients: number;
  /** Waits for a later window because the tried one was full. */
  waits: number;
  /** Reservations that came back too close to their window's end and were given back. */
  givenBack: number;
  /** Such reservations that could not be given back either: counted, never sent (wasted). */
  abandoned: number;
}

const WINDOW_MS = 1000;
const DEFAULT_GUARD_MS = 50;
const DEFAULT_JITTER_MS = 25;

const defaultSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Per-second windows on a {@link RateWindowStore}: the waiting, the boundary guard and the
 * deadline; the store only counts.
 */
export class WindowedRateLimiter implements RateLimiter {
  readonly stats: RateLimiterStats = {
    attempts: 0,
    reserved: 0,
    recipients: 0,
    waits: 0,
    givenBack: 0,
    abandoned: 0,
  };
  readonly quota: number;
  private readonly guardMs: number;
  private readonly jitterMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly store: RateWindowStore,
    options: WindowedRateLimiterOptions,
  ) {
    const { quota, guardMs = DEFAULT_GUARD_MS, jitterMs = DEFAULT_JITTER_MS } = options;
    const problems = [
      ...(Number.isInteger(quota) && quota > 0 ? [] : [`quota ${quota} is not a positive integer`]),
      ...(guardMs >= 0 && guardMs < WINDOW_MS / 2 ? [] : [`guardMs ${guardMs} is not in [0, 500)`]),
      ...(jitterMs >= 0 && guardMs + jitterMs < WINDOW_MS
        ? []
        : [`jitterMs ${jitterMs} is negative or leaves no time in the window`]),
    ];
    if (problems.length > 0) throw new RangeError(`rate limiter: ${problems.join('; ')}`);
    this.quota = quota;
    this.guardMs = guardMs;
    this.jitterMs = jitterMs;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
  }

  async acquire(recipients: number, { deadline }: AcquireOptions): Promise<Acquisition> {
    if (!Number.isInteger(recipients) || recipients < 1 || recipients > this.quota) {
      throw new RangeError(
        `rate limiter: ${recipients} recipients can never fit a quota of ${this.quota} per second`,
      );
    }
    const startedAt = this.now();
    // This call's own counts (`stats` is shared by every concurrent call of the container).
    const call = { startedAt, fullWindows: 0, reserved: 0 };
    for (;;) {
      const window = this.usableWindow(this.now());
      const opensAt = window * WINDOW_MS;
      if (opensAt > deadline) throw this.waitExceeded(recipients, deadline, call, window);

      this.stats.attempts += 1;
      if (await this.store.tryReserve(window, recipients, this.quota)) {
        this.stats.reserved += 1;
        this.stats.recipients += recipients;
        call.reserved += recipients;
        // Reserved ahead by the guard: wait until the window opens (timers may fire early).
        for (let now = this.now(); now < opensAt; now = this.now()) await this.sleep(opensAt - now);
        const now = this.now();
        if (this.leftIn(window, now) >= this.guardMs) {
          return {
            waitedMs: now - startedAt,
            window,
            fullWindows: call.fullWindows,
            reserved: call.reserved,
          };
        }
        // The write itself took us into the guard: a call now could land in the next second,
        // which holds no reservation of ours. Give the recipients back (they may still serve a
        // sender that reaches this window in time) and try the next window. Only a failed give-back
        // leaves them counted and unused.
        try {
          await this.store.giveBack(window, recipients);
          this.stats.givenBack += 1;
          call.reserved -= recipients;
        } catch {
          this.stats.abandoned += 1;
        }
        continue;
      }

      call.fullWindows += 1;
      const nextOpensAt = opensAt + WINDOW_MS;
      if (nextOpensAt > deadline) throw this.waitExceeded(recipients, deadline, call, window + 1);
      this.stats.waits += 1;
      // Jittered, but never past the deadline: a window that opens before it is still ours to try.
      const wakeAt = Math.min(nextOpensAt + this.random() * this.jitterMs, deadline);
      await this.sleep(Math.max(0, wakeAt - this.now()));
    }
  }

  /** The current window, or the next one when less than the guard is left of the current. */
  private usableWindow(now: number): number {
    const current = Math.floor(now / WINDOW_MS);
    return this.leftIn(current, now) < this.guardMs ? current + 1 : current;
  }

  private leftIn(window: number, now: number): number {
    return (window + 1) * WINDOW_MS - now;
  }

  private waitExceeded(
    recipients: number,
    deadline: number,
    call: { readonly startedAt: number; readonly fullWindows: number; readonly reserved: number },
    nextWindow: number,
  ): RateLimitWaitExceededError {
    return new RateLimitWaitExceededError(
      recipients,
      deadline,
      this.now() - call.startedAt,
      nextWindow,
      call.fullWindows,
      call.reserved,
    );
  }
}
