/**
 * Each function of the stack, by the construct id the template names it with, and the composition
 * its Lambda entry calls (`functions/<name>.ts`): the local run, the e2e and chaos tiers and the
 * template rules build a function exactly as its Lambda does, from the environment the template
 * sets, with their own clients and logger where they need to.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import {
  type AttachmentOverrides,
  composeFetchAttachments,
  composeSweepAttachments,
} from '../../functions/attachments/compose.ts';
import type { Environment } from '../../functions/commons/environment.ts';
import { composePollReports, type PollReportsOverrides } from '../../functions/polling/compose.ts';
import { composePublisher, type PublisherOverrides } from '../../functions/publishing/compose.ts';
import {
  composeReconcileStatus,
  type ReconcileStatusOverrides,
} from '../../functions/reconcile/compose.ts';
import { composeSender, type SenderOverrides } from '../../functions/sending/compose.ts';
import {
  composeExportStatistics,
  type ExportStatisticsOverrides,
} from '../../functions/statistics/compose.ts';
import { composeRefreshToken, type RefreshTokenOverrides } from '../../functions/tokens/compose.ts';
import { composeReceiver, type ReceiverOverrides } from '../../functions/webhooks/compose.ts';

/** What a composition gives the Lambda entry: the handler it wraps, its logger and metrics. */
export interface ComposedFunction {
  readonly handler: (event: never, context: Context) => Promise<unknown>;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** Every override any composition takes; each reads its own. */
export type FunctionOverrides = AttachmentOverrides &
  PublisherOverrides &
  ReceiverOverrides &
  PollReportsOverrides &
  ReconcileStatusOverrides &
  SenderOverrides &
  ExportStatisticsOverrides &
  RefreshTokenOverrides;

type Compose = (env: Environment, overrides: FunctionOverrides) => ComposedFunction;

const composition = <T extends { readonly handler: unknown }>(
  compose: (env: Environment, overrides: FunctionOverrides) => T,
): Compose => compose as unknown as Compose;

/** The composition of each function, by its name (the construct id, the entry's basename). */
export const COMPOSITIONS: Readonly<Record<string, Compose>> = {
  'receive-reports': composition((env, overrides) => composeReceiver('report', env, overrides)),
  'receive-inbound': composition((env, overrides) => composeReceiver('mo', env, overrides)),
  'publish-events': composition(composePublisher),
  'send-messages': composition(composeSender),
  'refresh-token': composition(composeRefreshToken),
  'poll-reports': composition(composePollReports),
  'reconcile-status': composition(composeReconcileStatus),
  'fetch-attachments': composition(composeFetchAttachments),
  'sweep-attachments': composition(composeSweepAttachments),
  'export-statistics': composition(composeExportStatistics),
};

/**
 * Functions CloudFormation runs only while it deploys (aws-cdk-lib's custom resource providers):
 * they have no composition of msgbridge's and never run in the local run.
 */
export const isDeployTimeFunction = (path: string | undefined): boolean =>
  path !== undefined && /CustomResourceProvider|Custom::/.test(path);

/** The composition of `name`; throws for a function msgbridge does not know. */
export const compositionOf = (name: string): Compose => {
  const compose = COMPOSITIONS[name];
  if (!compose)
    throw new Error(
      `the template has a function "${name}" with no composition in local/stack/compositions.ts`,
    );
  return compose;
};

/**
 * An environment that records every variable read from it. The local run composes each function
 * on one, so what a composition reads can be checked against what the template sets.
 */
export const recordingEnvironment = (
  variables: Readonly<Record<string, string>>,
): { readonly env: Environment; readonly read: ReadonlySet<string> } => {
  const read = new Set<string>();
  const env = new Proxy(variables, {
    get: (target, name) => {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
    has: (target, name) => {
      if (typeof name === 'string') read.add(name);
      return Reflect.has(target, name);
    },
  }) as Environment;
  return { env, read };
};
