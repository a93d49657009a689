/**
 * The local schedules (local/aws/scheduler.ts) against the EventBridge Scheduler and Lambda
 * developer guides: a rate schedule fires every period, a disabled one never; a function error of
 * the asynchronous invocation is retried by Lambda up to the function's MaximumRetryAttempts, one
 * minute and then two minutes later, and not once the event is older than MaximumEventAgeInSeconds.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  AsyncInvokeDefinition,
  ScheduleDefinition,
} from '../../aws-semantics/cloudformation-template.ts';
import { type ScheduledFunction, startScheduler } from '../../local/aws/scheduler.ts';

const schedule = (overrides: Partial<ScheduleDefinition> = {}): ScheduleDefinition =>
  ({
    logicalId: 'Schedule',
    functionId: 'Fn',
    expression: 'rate(5 minutes)',
    rateMs: 300_000,
    enabled: true,
    retryAttempts: 185,
    maxEventAgeSeconds: 86_400,
    ...overrides,
  }) as ScheduleDefinition;

const scheduled = (
  invoke: () => Promise<unknown>,
  options: {
    schedule?: Partial<ScheduleDefinition>;
    asyncInvoke?: Partial<AsyncInvokeDefinition>;
  } = {},
): ScheduledFunction => ({
  name: 'job',
  schedule: schedule(options.schedule),
  asyncInvoke: options.asyncInvoke
    ? ({
        functionId: 'Fn',
        retryAttempts: 2,
        maxEventAgeSeconds: 21_600,
        ...options.asyncInvoke,
      } as AsyncInvokeDefinition)
    : undefined,
  invoke,
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A function that fails every invocation, after `onCall`. */
const failingInvoke = (onCall: () => void = () => undefined) =>
  vi.fn(async () => {
    onCall();
    throw new Error('function error');
  });

describe('the local schedules', () => {
  it('fire once at start and then every rate period', async () => {
    const invoke = vi.fn(async () => 'ok');
    const scheduler = startScheduler([scheduled(invoke)], () => undefined);

    await vi.advanceTimersByTimeAsync(0);
    expect(invoke).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(299_000);
    expect(invoke).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(invoke).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(invoke).toHaveBeenCalledTimes(4);

    await scheduler.stop();
  });

  it('never fire a disabled schedule', async () => {
    const invoke = vi.fn(async () => 'ok');
    const scheduler = startScheduler(
      [scheduled(invoke, { schedule: { enabled: false } })],
      () => undefined,
    );

    await vi.advanceTimersByTimeAsync(3_600_000);

    expect(invoke).not.toHaveBeenCalled();
    await scheduler.stop();
  });

  it('retry a failed invocation twice by default, one minute and then two minutes later', async () => {
    const calls: number[] = [];
    const errors: unknown[] = [];
    const started = Date.now();
    const invoke = failingInvoke(() => calls.push(Date.now() - started));
    const scheduler = startScheduler(
      [scheduled(invoke, { schedule: { rateMs: 3_600_000 } })],
      (_name, error) => errors.push(error),
    );

    await vi.advanceTimersByTimeAsync(10 * 60_000);

    expect(calls).toEqual([0, 60_000, 180_000]);
    expect(errors).toHaveLength(3);
    await scheduler.stop();
  });

  it('retry as many times as the function’s event invoke config says', async () => {
    const invoke = failingInvoke();
    const scheduler = startScheduler(
      [scheduled(invoke, { schedule: { rateMs: 3_600_000 }, asyncInvoke: { retryAttempts: 0 } })],
      () => undefined,
    );

    await vi.advanceTimersByTimeAsync(10 * 60_000);

    expect(invoke).toHaveBeenCalledTimes(1);
    await scheduler.stop();
  });

  it('drop the event once a retry would come past its maximum age', async () => {
    const invoke = failingInvoke();
    const scheduler = startScheduler(
      [
        scheduled(invoke, {
          schedule: { rateMs: 3_600_000 },
          asyncInvoke: { retryAttempts: 2, maxEventAgeSeconds: 120 },
        }),
      ],
      () => undefined,
    );

    await vi.advanceTimersByTimeAsync(10 * 60_000);

    // The first retry at 60 s is within 120 s; the second, at 180 s, is not.
    expect(invoke).toHaveBeenCalledTimes(2);
    await scheduler.stop();
  });

  it('do not hold a run back while the previous one is still going', async () => {
    let running = 0;
    let most = 0;
    const invoke = vi.fn(async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 400_000));
      running -= 1;
    });
    const scheduler = startScheduler([scheduled(invoke)], () => undefined);

    await vi.advanceTimersByTimeAsync(350_000);

    expect(most).toBe(2);
    // Stopping waits up to 2 s for the runs still going.
    const stopping = scheduler.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await stopping;
  });
});
