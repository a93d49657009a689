/**
 * EventBridge Scheduler's rate schedules, invoking their functions asynchronously, with the
 * template's settings: a schedule runs every `rate(...)` once started (the local run starts each
 * at once, as a schedule created with the deployment does), never while it is `DISABLED`. The
 * schedule's own retry policy is for an invocation Lambda did not accept (throttled, say), which
 * the local run never refuses; a function error is Lambda's to retry: up to the function's
 * `MaximumRetryAttempts` (its event invoke config, 2 by default), one minute after the first
 * failure and two minutes after the second, dropping an event older than
 * `MaximumEventAgeInSeconds` (Lambda developer guide, "Asynchronous invocation"). As on Lambda, a run still going when the next is due does not hold that one back:
 * the functions that must run alone take a lease in the state table.
 */
import type {
  AsyncInvokeDefinition,
  ScheduleDefinition,
} from '../../aws-semantics/cloudformation-template.ts';

/** Lambda's waits before an asynchronous invocation's second and third attempts. */
const RETRY_DELAYS_MS = [60_000, 120_000];

export interface ScheduledFunction {
  readonly schedule: ScheduleDefinition;
  readonly asyncInvoke: AsyncInvokeDefinition | undefined;
  readonly invoke: (event: unknown) => Promise<unknown>;
  readonly name: string;
}

export interface LocalScheduler {
  stop(): Promise<void>;
  /** Runs `name`'s schedule once now, as its timer would (retries included). */
  runNow(name: string): Promise<void>;
}

export const startScheduler = (
  functions: readonly ScheduledFunction[],
  onError: (name: string, error: unknown) => void,
): LocalScheduler => {
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();

  const attempt = async (fn: ScheduledFunction): Promise<void> => {
    const event = {};
    const firedAt = Date.now();
    const retries = fn.asyncInvoke?.retryAttempts ?? 2;
    const maxAgeMs = (fn.asyncInvoke?.maxEventAgeSeconds ?? 21_600) * 1_000;
    for (let tries = 0; ; tries += 1) {
      try {
        await fn.invoke(event);
        return;
      } catch (error) {
        if (stopped) return;
        onError(fn.name, error);
        const delay = RETRY_DELAYS_MS[tries] ?? RETRY_DELAYS_MS.at(-1) ?? 60_000;
        if (tries >= retries || Date.now() + delay - firedAt > maxAgeMs) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          timers.push(timer);
        });
        if (stopped) return;
      }
    }
  };

  const fire = (fn: ScheduledFunction): Promise<void> => {
    if (stopped) return Promise.resolve();
    const run = attempt(fn).finally(() => running.delete(run));
    running.add(run);
    return run;
  };

  for (const fn of functions) {
    if (!fn.schedule.enabled) continue;
    void fire(fn);
    timers.push(setInterval(() => void fire(fn), fn.schedule.rateMs));
  }

  return {
    runNow: async (name) => {
      const fn = functions.find((each) => each.name === name);
      if (!fn) throw new Error(`no schedule invokes ${name}`);
      await fire(fn);
    },
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      // A run in progress ends on its own as the servers it talks to close.
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => setTimeout(resolve, 2_000)),
      ]);
    },
  };
};
