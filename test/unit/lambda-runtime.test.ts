/**
 * The local Lambda runtime (local/aws/lambda-runtime.ts) against what the Lambda developer guide
 * says of execution environments: one invocation at a time per environment, a new environment
 * (a cold start) when none is idle, warm state kept between one environment's invocations, and a
 * timed-out invocation's environment not reused.
 */
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ComposedEnvironment,
  LambdaTimeoutError,
  localFunction,
} from '../../local/aws/lambda-runtime.ts';
import type { ComposedFunction } from '../../local/stack/compositions.ts';

const DEFINITION = {
  name: 'probe',
  functionName: 'stack-probe',
  functionArn: 'arn:aws:lambda:ap-northeast-2:000000000000:function:stack-probe',
  timeoutSeconds: 1,
  memoryMb: 256,
};

type Probe = (event: { wait?: number; fail?: boolean }, context: Context) => Promise<unknown>;

/** A function whose environments count their own invocations (module state, as a batch processor's). */
const probeFunction = (handle?: Probe) => {
  let environments = 0;
  const compose = (): ComposedEnvironment => {
    environments += 1;
    const id = environments;
    let invocations = 0;
    let busy = false;
    const handler: Probe = async (event, context) => {
      // An environment serves one invocation at a time: a second one inside is a runtime bug.
      if (busy) throw new Error(`environment ${id} entered twice`);
      busy = true;
      try {
        invocations += 1;
        if (handle) return await handle(event, context);
        await new Promise((resolve) => setTimeout(resolve, event.wait ?? 0));
        if (event.fail) throw new Error('handler failed');
        return { environment: id, invocations };
      } finally {
        busy = false;
      }
    };
    return { composed: { handler } as unknown as ComposedFunction, read: new Set([`VAR_${id}`]) };
  };
  return { fn: localFunction(DEFINITION, compose), environments: () => environments };
};

describe('the local Lambda runtime', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('composes one environment when the function is deployed and reuses it, warm, for invocations one after another', async () => {
    const { fn, environments } = probeFunction();
    expect(environments()).toBe(1);

    const first = await fn.invoke({});
    const second = await fn.invoke({});

    expect(first).toEqual({ environment: 1, invocations: 1 });
    expect(second).toEqual({ environment: 1, invocations: 2 });
    expect(fn.stats).toMatchObject({ invocations: 2, environments: 1 });
  });

  it('gives concurrent invocations an environment each, never one environment twice at once', async () => {
    const { fn, environments } = probeFunction();

    const results = (await Promise.all(
      Array.from({ length: 4 }, () => fn.invoke({ wait: 50 })),
    )) as Array<{ environment: number }>;

    expect(new Set(results.map((result) => result.environment)).size).toBe(4);
    expect(environments()).toBe(4);
    // Then the four are idle, and the next invocations reuse them rather than cold-starting.
    await Promise.all(Array.from({ length: 4 }, () => fn.invoke({ wait: 10 })));
    expect(environments()).toBe(4);
    expect(fn.variablesRead).toEqual(new Set(['VAR_1', 'VAR_2', 'VAR_3', 'VAR_4']));
  });

  it('keeps an environment whose handler threw: the error is the invocation’s, not the sandbox’s', async () => {
    const { fn, environments } = probeFunction();

    await expect(fn.invoke({ fail: true })).rejects.toThrow('handler failed');
    const after = await fn.invoke({});

    expect(after).toEqual({ environment: 1, invocations: 2 });
    expect(environments()).toBe(1);
    expect(fn.stats).toMatchObject({ invocations: 2, errors: 1, timeouts: 0 });
  });

  it('fails an invocation at its timeout with Sandbox.Timedout and never reuses that environment', async () => {
    // The clock is virtual: the test says what happens at 1 s, whatever the machine's load.
    vi.useFakeTimers();
    const { fn, environments } = probeFunction();

    const pending = fn.invoke({ wait: 1_400 }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    const timedOut = await pending;

    expect(timedOut).toBeInstanceOf(LambdaTimeoutError);
    expect((timedOut as Error).name).toBe('Sandbox.Timedout');
    expect((timedOut as Error).message).toBe('Task timed out after 1.00 seconds');
    // The late handler is still running: the next invocation gets a new environment.
    const nextInvocation = fn.invoke({});
    await vi.advanceTimersByTimeAsync(0);
    const next = (await nextInvocation) as { environment: number };
    expect(next.environment).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    // Even once the late handler has finished, its environment stays discarded.
    const both = Promise.all([fn.invoke({ wait: 20 }), fn.invoke({ wait: 20 })]);
    await vi.advanceTimersByTimeAsync(20);
    await both;
    expect(environments()).toBe(3);
    expect(fn.stats.timeouts).toBe(1);
  });

  it('hands the handler a context whose remaining time counts down from the timeout', async () => {
    const seen: number[] = [];
    const { fn } = probeFunction(async (_event, context) => {
      seen.push(context.getRemainingTimeInMillis());
      await new Promise((resolve) => setTimeout(resolve, 200));
      seen.push(context.getRemainingTimeInMillis());
      return {
        functionName: context.functionName,
        arn: context.invokedFunctionArn,
        memory: context.memoryLimitInMB,
      };
    });

    vi.useFakeTimers();

    const pending = fn.invoke({});
    await vi.advanceTimersByTimeAsync(200);
    const result = await pending;

    expect(result).toEqual({
      functionName: 'stack-probe',
      arn: DEFINITION.functionArn,
      memory: '256',
    });
    expect(seen).toEqual([1_000, 800]);
  });

  it('hands the handler its own copy of the event, as Lambda hands it JSON', async () => {
    const { fn } = probeFunction(async (event) => {
      (event as { touched?: boolean }).touched = true;
      return 'ok';
    });
    const event = { wait: 0 };

    await fn.invoke(event);

    expect(event).toEqual({ wait: 0 });
  });

  it('never reuses an environment whose handler a wrapper ended early (a killed invocation)', async () => {
    let environments = 0;
    const compose = (): ComposedEnvironment => {
      environments += 1;
      return {
        composed: {
          handler: () => new Promise(() => undefined),
        } as unknown as ComposedFunction,
        read: new Set(),
      };
    };
    const fn = localFunction(
      DEFINITION,
      compose,
      (_name, handler) => (event) =>
        Promise.race([
          handler(event),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('killed')), 20)),
        ]),
    );

    await expect(fn.invoke({})).rejects.toThrow('killed');
    await expect(fn.invoke({})).rejects.toThrow('killed');

    expect(environments).toBe(2);
  });
});
