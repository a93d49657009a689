import { isRequestXRaySampled } from '@aws-lambda-powertools/commons/utils/env';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj, Request } from '@middy/core';
import { type HttpSpan, recordHttpExchanges } from '../../gateway/transport.ts';
import type { Environment } from './environment.ts';
import { maskingReplacer } from './observability.ts';

/**
 * X-Ray subsegments through Powertools Tracer, loaded by the first sampled invocation of a
 * container rather than at cold start (≈ 125 KiB and tens of milliseconds a never-traced function
 * does not pay). What a trace holds and never holds (paths, queries, payloads), and how sampling
 * is decided: docs/operations.md, "Tracing".
 */

/** The part of an AWS SDK v3 client the Tracer instruments. */
type AwsClient = Parameters<Tracer['captureAWSv3Client']>[0];

/** The process's Tracer once a traced invocation loaded it; every function of a container shares it. */
let active: Tracer | undefined;
/** Clients created before the Tracer was loaded; they are instrumented when it is. */
const waiting = new Set<AwsClient>();

/** True where traces can be recorded: in Lambda, not SAM's local emulation, not switched off. */
const tracingAllowed = (env: Environment): boolean =>
  (env.AWS_EXECUTION_ENV ?? '') !== '' &&
  (env.AWS_SAM_LOCAL ?? '') === '' &&
  (env.POWERTOOLS_TRACE_ENABLED ?? '').toLowerCase() !== 'false';

/**
 * Records the SDK calls of `client` as subsegments once tracing is loaded (at once, if it is).
 * Called on each shared client of `commons/clients/` when it is created.
 */
export const traceAwsClient = <C extends AwsClient>(client: C): C => {
  if (active) active.captureAWSv3Client(client);
  else waiting.add(client);
  return client;
};

const NO_SPAN: HttpSpan = { end: () => {}, fail: () => {}, abandon: () => {} };

/**
 * Starts a subsegment for one HTTP exchange with `url`'s host, below the current (sub)segment.
 * It holds the method, the scheme and host, and the status; a 429 is flagged as throttled, 4xx as
 * an error, 5xx and no answer as a fault. A no-op when the invocation is not traced.
 */
const startHttpSpan = (method: string, url: URL): HttpSpan => {
  const parent = active?.getSegment();
  if (parent === undefined) return NO_SPAN;
  const subsegment = parent.addNewSubsegment(url.hostname);
  subsegment.addAttribute('namespace', 'remote');
  const request = { method, url: `${url.protocol}//${url.host}/` };
  subsegment.addAttribute('http', { request });
  let open = true;
  const close = (apply: () => void) => {
    if (!open) return;
    open = false;
    apply();
    subsegment.close();
  };
  return {
    end: (status) =>
      close(() => {
        subsegment.addAttribute('http', { request, response: { status } });
        if (status === 429) subsegment.addThrottleFlag();
        if (status >= 400 && status < 500) subsegment.addErrorFlag();
        else if (status >= 500) subsegment.addFaultFlag();
      }),
    fail: (error) => close(() => subsegment.addError(maskedError(error), true)),
    abandon: () => close(() => {}),
  };
};

/** `error` as X-Ray records it (name, message, stack), with phone numbers and secrets masked. */
const maskedError = (error: unknown): Error => {
  const source = error instanceof Error ? error : new Error(String(error));
  const mask = (text: string) => String(maskingReplacer('message', text));
  const masked = new Error(mask(source.message));
  masked.name = source.name;
  if (source.stack !== undefined) masked.stack = mask(source.stack);
  return masked;
};

type LambdaRequest = Request<unknown, unknown, Error>;

/**
 * A middy middleware that traces the function's invocations with Powertools Tracer's
 * `captureLambdaHandler` (the handler's subsegment, `ColdStart` and `Service` annotations, the
 * error of a failed invocation with phone numbers masked, no response), loading the Tracer at the
 * first sampled invocation. Use it first, so that its subsegment spans the other middlewares.
 */
export const traceInvocations = (
  serviceName: string,
  env: Environment = process.env,
): MiddlewareObj<unknown, unknown, Error> => {
  let loading: Promise<MiddlewareObj | undefined> | undefined;
  let invocations = 0;
  // The handler middleware each invocation began with, so that its end goes to the same one.
  const began = new WeakMap<LambdaRequest, MiddlewareObj>();
  const end = async (request: LambdaRequest, phase: 'after' | 'onError') => {
    await began.get(request)?.[phase]?.(request as never);
  };
  return {
    before: async (request) => {
      invocations += 1;
      if (loading === undefined && tracingAllowed(env) && isRequestXRaySampled())
        loading = loadTracer(serviceName, invocations > 1);
      const handlerMiddleware = await loading;
      if (handlerMiddleware === undefined) return;
      began.set(request, handlerMiddleware);
      await handlerMiddleware.before?.(request as never);
    },
    after: (request) => end(request, 'after'),
    onError: (request) => end(request, 'onError'),
  };
};

/**
 * Imports the Tracer, makes this process's instance, instruments the clients waiting for it and
 * answers the handler middleware; `undefined` when the Tracer finds tracing off or cannot load
 * (tracing never fails an invocation).
 */
const loadTracer = async (
  serviceName: string,
  coldStartPassed: boolean,
): Promise<MiddlewareObj | undefined> => {
  try {
    const [{ Tracer: TracerClass }, { captureLambdaHandler }] = await Promise.all([
      import('@aws-lambda-powertools/tracer'),
      import('@aws-lambda-powertools/tracer/middleware'),
    ]);
    class MaskingTracer extends TracerClass {
      override addErrorAsMetadata(error: Error, remote?: boolean): void {
        super.addErrorAsMetadata(maskedError(error), remote);
      }
      /** Marks the container's cold start as past: the next `ColdStart` annotation says false. */
      passColdStart(): void {
        this.getColdStart();
      }
    }
    // Gateway calls are recorded by `startHttpSpan`: the Tracer's own HTTP capture would record
    // their paths (the webhook secret, phone numbers in a status query) and every SDK call twice.
    const tracer = new MaskingTracer({ serviceName, captureHTTPsRequests: false });
    if (!tracer.isTracingEnabled()) return undefined;
    // Loaded after the first invocation, the container's cold start is past.
    if (coldStartPassed) tracer.passColdStart();
    active ??= tracer;
    recordHttpExchanges(startHttpSpan);
    for (const client of waiting) active.captureAWSv3Client(client);
    waiting.clear();
    return captureLambdaHandler(tracer, { captureResponse: false }) as MiddlewareObj;
  } catch (error) {
    console.warn('X-Ray tracing could not be loaded; this container records no subsegments', error);
    return undefined;
  }
};
