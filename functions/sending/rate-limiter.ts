/**
 * The gateway's TPS quota, shared by every concurrent sender: fixed windows aligned to epoch
 * seconds (the gateway's own rule, so a window can be filled to the quota and never above it),
 * each split over counter shards so that no one DynamoDB item takes more than its share of the
 * writes, with a guard at each window's end and an arrival margin that also counts a late call in
 * the next window. Why windows and not a token bucket, the shard arithmetic, the writes per item
 * and the quota the split can leave unused: docs/performance.md, "The TPS limiter's counter items".
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
   * not a whole number between 1 and the largest request the limiter was set up for (a
   * programming or configuration error).
   */
  acquire(recipients: number, options: AcquireOptions): Promise<Acquisition>;
  /**
   * Tells the limiter the request of `acquisition` was answered (or gave up waiting) now. The
   * time from the reservation to the answer bounds the time the request took to reach the
   * gateway; the limiter widens its arrival margin to the longest of the latest ones.
   */
  answered?(acquisition: Acquisition): void;
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
 * Shared counters per window, the only thing a store has to provide: add `recipients` to one
 * counter's count if, and only if, the count stays within that counter's `capacity`, atomically.
 * `shard` names the counter: `undefined` when the window has a single one (the whole quota), else
 * 0 … N − 1. The limiter keeps the capacities of a window's counters adding up to the quota.
 */
export interface RateWindowStore {
  /** @returns `true` when reserved, `false` when the counter cannot take that many more */
  tryReserve(
    window: number,
    recipients: number,
    capacity: number,
    shard?: number,
  ): Promise<boolean>;
  /**
   * Takes back `recipients` this caller reserved in `window` (in `shard`) and will not send in it.
   * Lowering a count never lets a window exceed the quota: it only lets others use what we did not.
   */
  giveBack(window: number, recipients: number, shard?: number): Promise<void>;
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
   * A request may reach the gateway after the second it was counted in ends (it takes time to
   * travel, a busy process may hold it back). An acquisition that resolves with less than this
   * left in its window therefore also holds its recipients in the next window, so the request
   * is within the quota whichever of the two seconds the gateway counts it in. The limiter widens
   * the margin to the longest time from a reservation to its answer among the latest
   * {@link RateLimiter.answered} ones (an answer comes after the arrival), up to a second.
   * @default 0 (the guard alone, until answers are reported)
   */
  readonly arrivalMarginMs?: number;
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
  /** A number in [0, 1) for the jitter and the first shard tried. @default Math.random */
  readonly random?: () => number;
  /**
   * The most recipients one acquisition asks for: every shard must be able to hold a request
   * this large, since a request is never split. The gateway takes at most 10 recipients per call
   * (spec 01 §8).
   * @default 10
   */
  readonly maxRecipients?: number;
  /**
   * The most recipients one shard holds per second, which sets the shard count:
   * N = ceil(quota / recipientsPerShard). With 1-recipient requests it is also the most
   * successful writes a shard's item takes per second; 400 leaves a DynamoDB partition key (1,000
   * writes/s) room for the refused writes and give-backs of a saturated second, and keeps the
   * quota left unused by the split (≤ N × (maxRecipients − 1)) under 5 % of the quota.
   * @default 400
   */
  readonly recipientsPerShard?: number;
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
  /** Acquisitions that also held their recipients in the next window (the arrival margin). */
  heldAhead: number;
}

const WINDOW_MS = 1000;
const DEFAULT_GUARD_MS = 50;
const DEFAULT_JITTER_MS = 25;
const DEFAULT_MAX_RECIPIENTS = 10;
const DEFAULT_RECIPIENTS_PER_SHARD = 400;
/** Answers whose time from reservation widens the arrival margin: the latest this many. */
const ANSWERS_KEPT = 64;

/**
 * How a second's quota is split: one capacity per shard, adding up to `quota`, N =
 * ceil(quota / recipientsPerShard) of them. Capacities are multiples of `maxRecipients` spread as
 * evenly as they go; the quota's remainder below `maxRecipients` is added to a shard holding the
 * fewest, so no shard holds more than about quota / N + maxRecipients. A quota of at most
 * `recipientsPerShard` stays one shard holding all of it.
 */
export const shardCapacities = (
  quota: number,
  {
    maxRecipients = DEFAULT_MAX_RECIPIENTS,
    recipientsPerShard = DEFAULT_RECIPIENTS_PER_SHARD,
  } = {},
): number[] => {
  const shards = Math.max(1, Math.ceil(quota / recipientsPerShard));
  const blocks = Math.floor(quota / maxRecipients);
  const remainder = quota - blocks * maxRecipients;
  const base = Math.floor(blocks / shards);
  const larger = blocks - base * shards;
  // The first `larger` shards hold one block more; the remainder goes to the last shard, which
  // holds the fewest blocks (or as many as every other shard when they all hold the same).
  return Array.from(
    { length: shards },
    (_, shard) =>
      (base + (shard < larger ? 1 : 0)) * maxRecipients + (shard === shards - 1 ? remainder : 0),
  );
};

const defaultSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What one container knows of a window's shards, shared by its concurrent acquisitions, so that a
 * container refused by a shard does not ask it again for as many recipients:
 * - `smallestRefused`: per shard, the smallest request it refused. Counts only grow within a
 *   second (give-backs aside, and those come at its end), so a request at least that large would
 *   be refused too and is not sent.
 * - `writing`: per shard, the write this container has in flight to it, if any. A second
 *   acquisition tries the other shards first and this one only after that write's answer, so a
 *   container has at most one write in flight per shard.
 *
 * Together: a container's refused writes to one shard in one second have ever smaller requests,
 * so there are at most `maxRecipients` of them, and one when its requests are all of one size.
 */
interface ShardsSeen {
  readonly smallestRefused: number[];
  readonly writing: Array<Promise<void> | undefined>;
}

/**
 * Per-second windows on a {@link RateWindowStore}: the shards, the waiting, the boundary guard and
 * the deadline; the store only counts.
 */
export class WindowedRateLimiter implements RateLimiter {
  readonly stats: RateLimiterStats = {
    attempts: 0,
    reserved: 0,
    recipients: 0,
    waits: 0,
    givenBack: 0,
    abandoned: 0,
    heldAhead: 0,
  };
  readonly quota: number;
  /** Each shard's share of a second's quota (they add up to `quota`); one entry: a single counter. */
  readonly shards: readonly number[];
  /** The largest acquisition accepted: every shard holds at least this many. */
  readonly maxRecipients: number;
  private readonly guardMs: number;
  private readonly jitterMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** What this container knows of the shards of the windows it is trying (split quotas only). */
  private readonly seen = new Map<number, ShardsSeen>();
  private readonly arrivalMarginMs: number;
  /** The latest times from a reservation to its answer (ms), oldest first. */
  private readonly answerTimes: number[] = [];
  /** When each acquisition this limiter handed out resolved, for `answered`. */
  private readonly resolvedAt = new WeakMap<Acquisition, number>();

  constructor(
    private readonly store: RateWindowStore,
    options: WindowedRateLimiterOptions,
  ) {
    const {
      quota,
      guardMs = DEFAULT_GUARD_MS,
      jitterMs = DEFAULT_JITTER_MS,
      maxRecipients = DEFAULT_MAX_RECIPIENTS,
      recipientsPerShard = DEFAULT_RECIPIENTS_PER_SHARD,
      arrivalMarginMs = 0,
    } = options;
    const problems = [
      ...(Number.isInteger(quota) && quota > 0 ? [] : [`quota ${quota} is not a positive integer`]),
      ...(guardMs >= 0 && guardMs < WINDOW_MS / 2 ? [] : [`guardMs ${guardMs} is not in [0, 500)`]),
      ...(jitterMs >= 0 && guardMs + jitterMs < WINDOW_MS
        ? []
        : [`jitterMs ${jitterMs} is negative or leaves no time in the window`]),
      ...(arrivalMarginMs >= 0 && arrivalMarginMs <= WINDOW_MS
        ? []
        : [`arrivalMarginMs ${arrivalMarginMs} is not in [0, 1000]`]),
      ...(Number.isInteger(maxRecipients) && maxRecipients > 0
        ? []
        : [`maxRecipients ${maxRecipients} is not a positive integer`]),
      ...(Number.isInteger(recipientsPerShard) && recipientsPerShard >= maxRecipients
        ? []
        : [
            `recipientsPerShard ${recipientsPerShard} is not a whole number of at least maxRecipients (${maxRecipients})`,
          ]),
    ];
    const shards = problems.length === 0 ? shardCapacities(quota, options) : [];
    const smallest = Math.min(...shards);
    if (problems.length === 0 && smallest < maxRecipients) {
      // A request is never split over shards, so each must hold the largest one whole.
      problems.push(
        shards.length === 1
          ? `quota ${quota} cannot hold one request of maxRecipients (${maxRecipients}) recipients`
          : `quota ${quota} split over ${shards.length} shards of at most ${recipientsPerShard} leaves a shard of ${smallest}, less than one request of maxRecipients (${maxRecipients}) recipients`,
      );
    }
    if (problems.length > 0) throw new RangeError(`rate limiter: ${problems.join('; ')}`);
    this.quota = quota;
    this.shards = shards;
    this.maxRecipients = maxRecipients;
    this.guardMs = guardMs;
    this.jitterMs = jitterMs;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.arrivalMarginMs = arrivalMarginMs;
  }

  answered(acquisition: Acquisition): void {
    // One acquisition may carry several requests (`coalescingRateLimiter`): each answer counts.
    const resolvedAt = this.resolvedAt.get(acquisition);
    if (resolvedAt === undefined) return;
    this.answerTimes.push(Math.max(0, this.now() - resolvedAt));
    if (this.answerTimes.length > ANSWERS_KEPT) this.answerTimes.shift();
  }

  /** The margin before a window's end within which an acquisition holds the next window too. */
  arrivalMargin(): number {
    return Math.min(WINDOW_MS, Math.max(this.arrivalMarginMs, ...this.answerTimes));
  }

  async acquire(recipients: number, { deadline }: AcquireOptions): Promise<Acquisition> {
    if (!Number.isInteger(recipients) || recipients < 1 || recipients > this.quota) {
      throw new RangeError(
        `rate limiter: ${recipients} recipients can never fit a quota of ${this.quota} per second`,
      );
    }
    if (recipients > this.maxRecipients) {
      throw new RangeError(
        `rate limiter: ${recipients} recipients are more than the largest request of ${this.maxRecipients} ` +
          `(maxRecipients): a request is counted in one of the second's ${this.shards.length} shard(s), whole`,
      );
    }
    const startedAt = this.now();
    // This call's own counts (`stats` is shared by every concurrent call of the container).
    const call = { startedAt, fullWindows: 0, reserved: 0 };
    for (;;) {
      const window = this.usableWindow(this.now());
      const opensAt = window * WINDOW_MS;
      if (opensAt > deadline) throw this.waitExceeded(recipients, deadline, call, window);

      const answer = await this.reserveIn(window, recipients);
      // The window reached its guard while its shards were tried: go on in the next one.
      if (answer === 'closing') continue;
      if (answer !== 'full') {
        this.stats.reserved += 1;
        this.stats.recipients += recipients;
        call.reserved += recipients;
        // Reserved ahead by the guard: wait until the window opens (timers may fire early).
        for (let now = this.now(); now < opensAt; now = this.now()) await this.sleep(opensAt - now);
        const now = this.now();
        const left = this.leftIn(window, now);
        if (left >= this.guardMs && left >= this.arrivalMargin()) {
          return this.resolved(now, {
            waitedMs: now - startedAt,
            window,
            fullWindows: call.fullWindows,
            reserved: call.reserved,
          });
        }
        if (left >= this.guardMs) {
          // Let go this close to the window's end, the request may be counted in the next second:
          // hold it there too. The next window full, the request waits for the one after.
          const ahead = await this.reserveIn(window + 1, recipients, { ahead: true });
          if (ahead !== 'full' && ahead !== 'closing') {
            this.stats.heldAhead += 1;
            this.stats.recipients += recipients;
            call.reserved += recipients;
            const at = this.now();
            return this.resolved(at, {
              waitedMs: at - startedAt,
              window,
              fullWindows: call.fullWindows,
              reserved: call.reserved,
            });
          }
          await this.giveBackOrAbandon(window, recipients, answer.shard, call);
          call.fullWindows += 1;
          const afterNext = opensAt + 2 * WINDOW_MS;
          if (afterNext > deadline) throw this.waitExceeded(recipients, deadline, call, window + 2);
          this.stats.waits += 1;
          const wakeAt = Math.min(afterNext + this.random() * this.jitterMs, deadline);
          await this.sleep(Math.max(0, wakeAt - this.now()));
          continue;
        }
        // The write itself took us into the guard: a call now could land in the next second,
        // which holds no reservation of ours. Give the recipients back (they may still serve a
        // sender that reaches this window in time) and try the next window. Only a failed give-back
        // leaves them counted and unused.
        await this.giveBackOrAbandon(window, recipients, answer.shard, call);
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

  private resolved(at: number, acquisition: Acquisition): Acquisition {
    this.resolvedAt.set(acquisition, at);
    return acquisition;
  }

  /** Gives back a reservation this call will not use; one that cannot be given back stays counted. */
  private async giveBackOrAbandon(
    window: number,
    recipients: number,
    shard: number | undefined,
    call: { reserved: number },
  ): Promise<void> {
    try {
      await this.store.giveBack(window, recipients, shard);
      this.stats.givenBack += 1;
      call.reserved -= recipients;
    } catch {
      this.stats.abandoned += 1;
    }
  }

  /**
   * Tries the window's shards, from a random one on, skipping those known to refuse this many.
   * @returns the shard that took the recipients, by the store's name for it (`undefined` for a
   *   single counter); `'full'` when none could; `'closing'` when the window reached its guard
   *   before every shard was tried. `ahead`: the next window, held beside the current one, which
   *   has no guard of its own to reach.
   */
  private async reserveIn(
    window: number,
    recipients: number,
    { ahead = false } = {},
  ): Promise<{ readonly shard: number | undefined } | 'full' | 'closing'> {
    const count = this.shards.length;
    // A single counter keeps its unsharded store name and its behaviour before shards: one write,
    // no random number drawn.
    if (count === 1) {
      this.stats.attempts += 1;
      const reserved = await this.store.tryReserve(window, recipients, this.quota);
      return reserved ? { shard: undefined } : 'full';
    }
    const seen = this.shardsSeen(window);
    const first = Math.floor(this.random() * count);
    const attempt = async (shard: number): Promise<'reserved' | 'refused' | 'closing'> => {
      if ((seen.smallestRefused[shard] ?? Number.POSITIVE_INFINITY) <= recipients) return 'refused';
      // Tries take time: a reservation that answers inside the guard would only be given back.
      if (!ahead && this.usableWindow(this.now()) !== window) return 'closing';
      this.stats.attempts += 1;
      const write = this.store.tryReserve(window, recipients, this.shards[shard] ?? 0, shard);
      const answered = write.then(
        () => undefined,
        () => undefined,
      );
      seen.writing[shard] = answered;
      try {
        if (await write) return 'reserved';
      } finally {
        if (seen.writing[shard] === answered) seen.writing[shard] = undefined;
      }
      seen.smallestRefused[shard] = Math.min(
        seen.smallestRefused[shard] ?? Number.POSITIVE_INFINITY,
        recipients,
      );
      return 'refused';
    };
    // Shards this container is writing to already come last, after their answer: if it is a
    // refusal, they need no second write.
    const busy: number[] = [];
    for (let step = 0; step < count; step += 1) {
      const shard = (first + step) % count;
      if (seen.writing[shard] !== undefined) {
        busy.push(shard);
        continue;
      }
      const answer = await attempt(shard);
      if (answer === 'reserved') return { shard };
      if (answer === 'closing') return 'closing';
    }
    for (const shard of busy) {
      for (let writing = seen.writing[shard]; writing !== undefined; writing = seen.writing[shard])
        await writing;
      const answer = await attempt(shard);
      if (answer === 'reserved') return { shard };
      if (answer === 'closing') return 'closing';
    }
    return 'full';
  }

  /** What this container knows of `window`'s shards; kept for that window and the one before. */
  private shardsSeen(window: number): ShardsSeen {
    let seen = this.seen.get(window);
    if (seen === undefined) {
      seen = {
        smallestRefused: Array.from(this.shards, () => Number.POSITIVE_INFINITY),
        writing: Array.from(this.shards, () => undefined),
      };
      this.seen.set(window, seen);
      for (const earlier of this.seen.keys()) if (earlier < window - 1) this.seen.delete(earlier);
    }
    return seen;
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
