import type { SQSClient } from '@aws-sdk/client-sqs';
import * as z from '../../gateway/schemas/zod.ts';
import { documentClient } from '../commons/clients/dynamodb.ts';
import { sqsClient } from '../commons/clients/sqs.ts';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { DynamoDbLease } from '../commons/dynamodb-lease.ts';
import { booleanEnv, type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { gatewayFromEnvironment } from '../gateway-access/gateway-from-environment.ts';
import { receiveDepsFromEnvironment } from '../received-items/receive-environment.ts';
import type { ReceiveDeps } from '../received-items/receive-items.ts';
import { DynamoDbSendStore } from '../send-records/adapters/dynamodb-send-store.ts';
import { SqsReportChecks } from '../send-records/adapters/sqs-report-checks.ts';
import { DynamoDbAwaitingReports } from './adapters/dynamodb-awaiting-reports.ts';
import { createReconcileStatusHandler } from './handler.ts';
import {
  RECONCILE_DEFAULTS,
  type ReconcileDeps,
  ReconcileSettingsSchema,
} from './reconcile-ports.ts';
import type { StatusGateway } from './status-query.ts';

export interface ReconcileStatusOverrides extends CompositionOverrides {
  /** The client of the report-check queue (the local run's). */
  readonly sqs?: SQSClient;
  /** The gateway and its per-call time limit; the `GATEWAY_*` variables are then not read. */
  readonly gateway?: { readonly client: StatusGateway; readonly timeoutMs: number };
  /** Where reconciled reports are stored: the receivers' own dependencies (the local run's). */
  readonly receive?: ReceiveDeps;
  /** The clock that says which checks are due (the local run's may run ahead). @default the system's */
  readonly now?: () => Date;
}

/**
 * Composes `reconcile-status` (asks the gateway for the status of sends whose outcome is unknown
 * and of accepted recipients whose report is late, one run at a time) from its environment, read
 * once, at cold start: EVENT_TABLE_NAME, STATE_TABLE_NAME (the lease), REPORT_CHECK_QUEUE_URL
 * (the report checks the sender queues; checks are put back there), RECONCILE_AFTER_MINUTES (default 30),
 * RECONCILE_HORIZON_HOURS (default 96), RECONCILE_MAX_RECIPIENTS (per run, default 5000),
 * ACCEPTED_EVENTS (`on` or `off`, default `off`: the sender's), the receivers' PAYLOAD_BUCKET,
 * EVENT_RETENTION_DAYS, STORE_CONCURRENCY, and the gateway's
 * GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS,
 * GATEWAY_CREDENTIALS_SECRET_ARN.
 *
 * Its handler (the Lambda entry's and the local run's) is `createReconcileStatusHandler`'s, with
 * its two triggers: the schedule and the report-check queue.
 */
export const composeReconcileStatus = (
  env: Environment = process.env,
  overrides: ReconcileStatusOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('reconcile-status', overrides);
  const { documents } = overrides;
  const gateway =
    overrides.gateway ??
    gatewayFromEnvironment(logger, { env, documents, secrets: overrides.secrets });
  const eventTableName = requiredEnv('EVENT_TABLE_NAME', env);
  const stateTableName = requiredEnv('STATE_TABLE_NAME', env);
  const settings = parseSettings({
    afterMinutes: integerEnv(
      'RECONCILE_AFTER_MINUTES',
      RECONCILE_DEFAULTS.afterMinutes,
      { min: 1, max: 24 * 60 },
      env,
    ),
    horizonHours: integerEnv(
      'RECONCILE_HORIZON_HOURS',
      RECONCILE_DEFAULTS.horizonHours,
      { min: 1, max: 90 * 24 },
      env,
    ),
    maxRecipients: integerEnv(
      'RECONCILE_MAX_RECIPIENTS',
      RECONCILE_DEFAULTS.maxRecipients,
      { min: 10, max: 100_000 },
      env,
    ),
  });
  // Only the send store's claims are used: a claim item lives a day at most (the sender's own
  // outlives it).
  const sends = new DynamoDbSendStore(eventTableName, 1, documents);
  const table = new DynamoDbAwaitingReports(eventTableName, documents ?? documentClient(), sends);
  // The sender's choice: an acceptance the status query finds is published only if theirs are.
  const acceptedEvents = booleanEnv('ACCEPTED_EVENTS', false, env);
  const checkQueue = new SqsReportChecks(
    overrides.sqs ?? sqsClient(),
    requiredEnv('REPORT_CHECK_QUEUE_URL', env),
  );
  const lease = new DynamoDbLease(stateTableName, documents);
  const receive = overrides.receive ?? receiveDepsFromEnvironment(logger, env, overrides);
  const deps: Omit<ReconcileDeps, 'owner' | 'now' | 'hasTimeLeft' | 'checks'> = {
    awaiting: checkQueue,
    onInvalidCheck: (check) =>
      logger.error('a report check could not be read; it stays on the queue until its DLQ', {
        ...check,
      }),
    ledger: table,
    unknown: table,
    guards: table,
    gateway: gateway.client,
    receive,
    ...(acceptedEvents ? {} : { unpublishedAcceptances: sends }),
    settings,
  };
  // A status query batch needs one gateway call and its writes; none starts later than that.
  const batchBudgetMs = 2 * gateway.timeoutMs + 5_000;
  const handler = createReconcileStatusHandler({
    deps,
    checkQueue,
    lease,
    now: overrides.now ?? (() => new Date()),
    batchBudgetMs,
    logger,
    metrics,
  });
  return { logger, metrics, deps, lease, batchBudgetMs, handler };
};

const parseSettings = (input: unknown) => {
  const parsed = ReconcileSettingsSchema.safeParse(input);
  if (!parsed.success)
    throw new Error(`reconcile-status configuration: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
};
