/**
 * A function of the stack run as Lambda runs it: in execution environments that each handle one
 * invocation at a time, as Lambda's do. An invocation takes an idle environment, or a new one is
 * composed (a cold start) on exactly the environment variables the template sets; so concurrent
 * invocations never share a module's state (a batch processor, a cache), and one environment's
 * warm state carries over to its next invocation. Each invocation gets a Lambda context whose
 * remaining time counts down from the function's timeout; one still running at its timeout fails
 * with Lambda's "Task timed out" error, whatever the handler does afterwards. Lambda freezes and
 * resets that environment; the local run cannot freeze it, so it discards it: its late work is
 * ignored and it never serves another invocation. An environment whose handler never finished
 * (the fault-injection run kills some) is never reused either.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { ComposedFunction } from '../stack/compositions.ts';

/** The invocation ran past the function's timeout. */
export class LambdaTimeoutError extends Error {
  override readonly name = 'Sandbox.Timedout';
  constructor(readonly timeoutSeconds: number) {
    super(`Task timed out after ${timeoutSeconds.toFixed(2)} seconds`);
  }
}

export interface LocalFunctionDefinition {
  /** The construct id (`send-messages`). */
  readonly name: string;
  /** The function's physical name and ARN in the local deployment. */
  readonly functionName: string;
  readonly functionArn: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

/** Wraps one invocation (the fault-injection run ends some early, as a killed Lambda ends). */
export type InvocationWrapper = <E, R>(
  name: string,
  handler: (event: E) => Promise<R>,
) => (event: E) => Promise<R>;

export interface LocalFunction extends LocalFunctionDefinition {
  /** The composition of the first execution environment, made when the function is deployed. */
  readonly composed: ComposedFunction;
  /** Every variable a composition read from its environment. */
  readonly variablesRead: ReadonlySet<string>;
  /** Invokes the handler as Lambda does, synchronously: its result, or its error. */
  invoke(event: unknown): Promise<unknown>;
  /**
   * Invocations so far, how many ended in an error (a timeout included), and the execution
   * environments composed (cold starts).
   */
  readonly stats: { invocations: number; errors: number; timeouts: number; environments: number };
}

/** One execution environment's composition, and the variables it read. */
export interface ComposedEnvironment {
  readonly composed: ComposedFunction;
  readonly read: ReadonlySet<string>;
}

/** A local function from its definition and how to compose one execution environment. */
export const localFunction = (
  definition: LocalFunctionDefinition,
  compose: () => ComposedEnvironment,
  wrap?: InvocationWrapper,
): LocalFunction => {
  const stats = { invocations: 0, errors: 0, timeouts: 0, environments: 0 };
  const timeoutMs = definition.timeoutSeconds * 1_000;
  const variablesRead = new Set<string>();
  const environments: Array<ReadonlySet<string>> = [];
  const coldStart = (): ComposedFunction => {
    const made = compose();
    stats.environments += 1;
    // The proxy records reads as they happen, so the set is read when asked, not copied now.
    environments.push(made.read);
    return made.composed;
  };
  const first = coldStart();
  const idle: ComposedFunction[] = [first];

  const run = async (event: unknown): Promise<unknown> => {
    const composed = idle.pop() ?? coldStart();
    const deadline = Date.now() + timeoutMs;
    const context = lambdaContext(definition, deadline);
    let timer: NodeJS.Timeout | undefined;
    let timedOutFlag = false;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOutFlag = true;
        stats.timeouts += 1;
        reject(new LambdaTimeoutError(definition.timeoutSeconds));
      }, timeoutMs);
    });
    // The environment is free again once its handler has finished, unless it ran out of time.
    const handled = Promise.resolve()
      .then(() => composed.handler(structuredClone(event) as never, context))
      .finally(() => {
        if (!timedOutFlag) idle.push(composed);
      });
    try {
      return await Promise.race([handled, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
  const wrapped = wrap ? wrap(definition.name, run) : run;
  return {
    ...definition,
    composed: first,
    get variablesRead() {
      for (const read of environments) for (const name of read) variablesRead.add(name);
      return variablesRead;
    },
    stats,
    invoke: async (event) => {
      stats.invocations += 1;
      try {
        return await wrapped(event);
      } catch (error) {
        stats.errors += 1;
        throw error;
      }
    },
  };
};

/** The context Lambda hands a Node.js handler. */
const lambdaContext = (definition: LocalFunctionDefinition, deadline: number): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: definition.functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: definition.functionArn,
  memoryLimitInMB: String(definition.memoryMb),
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${definition.functionName}`,
  logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});
