/**
 * What the stack deploys, read from the stack itself rather than assumed: the cost model prices
 * the front door, the log lines and the traces of this configuration. The stack is built (not
 * bundled, which `cdk synth` would do) from the `msgbridge` context of `cdk.json`, the settings a
 * `npx cdk deploy` of this repository uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CONTEXT_KEY, stackPropsFromContext } from '../lib/context-props.ts';
import { MsgbridgeStack } from '../lib/msgbridge-stack.ts';
import type { WebhookFront } from '../lib/webhook-api.ts';
import type { Front } from './cost-model.ts';

/** Lambda's application log levels, most detailed first (advanced logging controls). */
export const APPLICATION_LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
export type ApplicationLogLevel = (typeof APPLICATION_LOG_LEVELS)[number];
/** Lambda's system (platform) log levels, most detailed first. */
export const SYSTEM_LOG_LEVELS = ['DEBUG', 'INFO', 'WARN'] as const;
export type SystemLogLevel = (typeof SYSTEM_LOG_LEVELS)[number];
export type TracingMode = 'Active' | 'PassThrough';

/** What one function's configuration decides of its logs and traces. */
export interface DeployedFunction {
  /** Lines below it are dropped by Lambda (and never written by Powertools, which reads it). */
  readonly applicationLogLevel: ApplicationLogLevel;
  /** Lambda's own lines below it (`platform.start`, `platform.report`, …) are not written. */
  readonly systemLogLevel: SystemLogLevel;
  /** `Active`: Lambda samples invocations itself; `PassThrough`: only upstream-sampled ones. */
  readonly tracing: TracingMode;
}

export interface Deployment {
  /** The webhook front door. */
  readonly front: WebhookFront;
  /** X-Ray on the REST API stage (which then makes the sampling decision for the receivers). */
  readonly stageTracing: boolean;
  /** By function name (`receive-inbound`, …). */
  readonly functions: Readonly<Record<string, DeployedFunction>>;
}

/** `level` lets through lines of `line`'s level (both from the same ordered list). */
export const lets = <L extends string>(order: readonly L[], level: L, line: L): boolean =>
  order.indexOf(line) >= order.indexOf(level);

/** The function's configuration as Lambda applies it, its absent settings at Lambda's defaults. */
const deployedFunction = (fn: CfnFunction): DeployedFunction => {
  const logging = fn.loggingConfig as CfnFunction.LoggingConfigProperty | undefined;
  // The text format has no levels and other platform lines: the model is for JSON only.
  if (logging?.logFormat !== 'JSON')
    throw new Error(`${fn.node.path}: the cost model needs the JSON log format`);
  const tracing = (fn.tracingConfig as CfnFunction.TracingConfigProperty | undefined)?.mode;
  return {
    // Lambda's defaults with the JSON format: INFO for both (docs: log-level filtering).
    applicationLogLevel: (logging.applicationLogLevel ?? 'INFO') as ApplicationLogLevel,
    systemLogLevel: (logging.systemLogLevel ?? 'INFO') as SystemLogLevel,
    // Without a tracing configuration Lambda's mode is PassThrough.
    tracing: tracing === 'Active' ? 'Active' : 'PassThrough',
  };
};

/** The cost model's name of a deployed front door. */
export const frontKey = (front: WebhookFront): Front =>
  front === 'rest-api' ? 'restApi' : 'functionUrl';

/** The `msgbridge` context of the repository's `cdk.json`. */
const repositoryContext = (): unknown =>
  (
    JSON.parse(readFileSync(join(import.meta.dirname, '..', 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    }
  ).context[CONTEXT_KEY];

/** The deployment `context` (default: `cdk.json`'s) describes, as the stack builds it. */
export const deploymentOf = (context: unknown = repositoryContext()): Deployment => {
  // No bundling: only the resources' settings are read, never the functions' code.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MsgbridgeStack(app, 'msgbridge-bench', stackPropsFromContext(context));
  const functions = stack.node
    .findAll()
    .filter((construct): construct is CfnFunction => construct instanceof CfnFunction)
    // `<stack>/<construct>/<function name>/Resource`
    .map((fn) => [fn.node.path.split('/').at(-2) ?? fn.node.path, deployedFunction(fn)] as const);
  const stage = stack.webhookApi.restApi?.deploymentStage.node.defaultChild as CfnStage | undefined;
  return {
    front: stack.webhookApi.front,
    stageTracing: stage?.tracingEnabled === true,
    functions: Object.fromEntries(functions),
  };
};

/** The receivers: behind a REST API stage, the stage's X-Ray sampling decides for them. */
const RECEIVERS = ['receive-reports', 'receive-inbound'];

/**
 * Whether traces are started for `name`'s invocations in this deployment, and so billed as traces
 * of its own: with `Active` tracing Lambda samples every invocation that arrives without a
 * sampling decision (Lambda's fixed rule: 1 a second and 5% of the rest, per function; it cannot
 * be configured); with `PassThrough` only upstream-sampled ones are traced, and the only upstream
 * that samples here is a REST API stage with `stageTracing` (for the receivers). Function URLs,
 * DynamoDB Streams and the scheduler start no trace; an SQS message carries its producer's
 * decision, and a trace its producer started is the producer's, not a new one.
 */
export const tracesOwnInvocations = (deployment: Deployment, name: string): boolean => {
  const tracing = deployment.functions[name]?.tracing;
  if (tracing === 'Active') return true;
  return (
    tracing === 'PassThrough' &&
    RECEIVERS.includes(name) &&
    deployment.front === 'rest-api' &&
    deployment.stageTracing
  );
};
