/**
 * What the stack deploys, read from the stack itself rather than assumed: the cost model prices
 * the front door, the log lines and the traces of this configuration. The stack is built (not
 * bundled, which `cdk synth` would do) from the `msgbridge` context of `cdk.json`, the settings a
 * `npx cdk deploy` of this repository uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CONTEXT_KEY, stackPropsFromContext } from '../lib/context-props.ts';
import { MsgbridgeStack } from '../lib/msgbridge-stack.ts';
import type { WebhookFront } from '../lib/webhook-api.ts';
import type { Front } from './cost-model.ts';
import type { Retentions } from './regional-cost.ts';

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
  /** How long what grows with every message is kept (the storage the cost model prices). */
  readonly retentions: Retentions;
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
    retentions: retentionsOf(stack),
  };
};

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The retentions the template sets: read from its resources, never assumed. */
const retentionsOf = (stack: MsgbridgeStack): Retentions => {
  const resources = Template.fromStack(stack).toJSON().Resources as Resources;
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    Stack.of(stack).getLogicalId(construct.node.defaultChild as never);
  const ofType = (type: string) =>
    Object.values(resources).filter((resource) => resource.Type === type);
  const table = resources[idOf(stack.eventTable)]?.Properties as
    | {
        Replicas?: Array<{
          PointInTimeRecoverySpecification?: { PointInTimeRecoveryEnabled?: boolean };
        }>;
      }
    | undefined;
  const eventDays = ofType('AWS::Lambda::Function')
    .map(
      (fn) =>
        (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables?.EVENT_RETENTION_DAYS,
    )
    .find((days) => typeof days === 'string');
  const bucket = resources[idOf(stack.inboundAttachments.bucket)]?.Properties as
    | { LifecycleConfiguration?: { Rules?: Array<{ ExpirationInDays?: number }> } }
    | undefined;
  const attachmentDays = bucket?.LifecycleConfiguration?.Rules?.find(
    (rule) => rule.ExpirationInDays !== undefined,
  )?.ExpirationInDays;
  const archiveDays = ofType('AWS::Events::Archive')[0]?.Properties?.RetentionDays;
  // The functions' log groups: the retention most of them have (the access logs' aside).
  const logDays = ofType('AWS::Logs::LogGroup')
    .map((group) => group.Properties?.RetentionInDays)
    .filter((days): days is number => typeof days === 'number')
    .sort((a, b) => a - b)[0];
  if (
    eventDays === undefined ||
    attachmentDays === undefined ||
    typeof archiveDays !== 'number' ||
    logDays === undefined
  )
    throw new Error('the cost model could not read the retentions from the template');
  return {
    eventDays: Number(eventDays),
    pointInTimeRecovery:
      table?.Replicas?.some(
        (replica) => replica.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled === true,
      ) ?? false,
    attachmentDays,
    archiveDays,
    logDays,
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
