/**
 * A function of the stack run as Lambda runs it: composed once, as a cold start does, on exactly
 * the environment the template sets; each invocation with a Lambda context whose remaining time
 * counts down from the function's timeout; an invocation still running at its timeout fails with
 * Lambda's "Task timed out" error, whatever the handler does afterwards (the local run cannot
 * freeze it as Lambda freezes the sandbox, so its late work is ignored rather than stopped).
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
  readonly composed: ComposedFunction;
  /** Every variable the composition read from its environment. */
  readonly variablesRead: ReadonlySet<string>;
  /** Invokes the handler as Lambda does, synchronously: its result, or its error. */
  invoke(event: unknown): Promise<unknown>;
  /** Invocations so far, and how many ended in an error (a timeout included). */
  readonly stats: { invocations: number; errors: number; timeouts: number };
}

/** A local function from its definition and composition. */
export const localFunction = (
  definition: LocalFunctionDefinition,
  composed: ComposedFunction,
  variablesRead: ReadonlySet<string>,
  wrap?: InvocationWrapper,
): LocalFunction => {
  const stats = { invocations: 0, errors: 0, timeouts: 0 };
  const timeoutMs = definition.timeoutSeconds * 1_000;
  const run = async (event: unknown): Promise<unknown> => {
    const deadline = Date.now() + timeoutMs;
    const context = lambdaContext(definition, deadline);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stats.timeouts += 1;
        reject(new LambdaTimeoutError(definition.timeoutSeconds));
      }, timeoutMs);
    });
    try {
      return await Promise.race([
        composed.handler(structuredClone(event) as never, context),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  const wrapped = wrap ? wrap(definition.name, run) : run;
  return {
    ...definition,
    composed,
    variablesRead,
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
