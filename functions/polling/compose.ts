import { setTimeout as sleep } from 'node:timers/promises';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { DynamoDbLease } from '../commons/dynamodb-lease.ts';
import { booleanEnv, type Environment, enumEnv, requiredEnv } from '../commons/environment.ts';
import { gatewayFromEnvironment } from '../gateway-access/gateway-from-environment.ts';
import { receiveDepsFromEnvironment } from '../received-items/receive-environment.ts';
import type { ReceiveDeps } from '../received-items/receive-items.ts';
import { createPollReportsHandler } from './handler.ts';
import {
  type PollDeps,
  type PollingConfig,
  type PollingGateway,
  type PollTiming,
  ReportDeliverySchema,
  resolvePollTiming,
} from './poll-use-case.ts';
import { S3PolledPageQuarantine } from './s3-polled-page-quarantine.ts';

export interface PollReportsOverrides extends CompositionOverrides {
  /** The gateway and its per-call time limit; the `GATEWAY_*` variables are then not read. */
  readonly gateway?: { readonly client: PollingGateway; readonly timeoutMs: number };
  /** Where polled items are stored: the receivers' own dependencies (the local run's). */
  readonly receive?: ReceiveDeps;
  /** The time rules, instead of those derived from the gateway's time limit. */
  readonly timing?: Partial<PollTiming>;
  /** Wraps the gateway the polls go through (the local run loses confirmations on request). */
  readonly wrapPollingGateway?: (gateway: PollingGateway) => PollingGateway;
}

/**
 * Composes `poll-reports` (polls delivery reports and, with MO_POLLING=on, inbound messages, one
 * poller at a time) from its environment, read once, at cold start: REPORT_DELIVERY (webhook |
 * polling | both), MO_POLLING (on | off, default off), STATE_TABLE_NAME (the leases),
 * QUARANTINE_BUCKET (where a page that could not be stored is kept, below `quarantine/polled/`),
 * the receivers' EVENT_TABLE_NAME, PAYLOAD_BUCKET, EVENT_RETENTION_DAYS, STORE_CONCURRENCY, and
 * the gateway's GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (at most
 * 30 s), GATEWAY_CREDENTIALS_SECRET_ARN. A bad combination of timings fails here, at cold start.
 *
 * Its handler (the Lambda entry's and the local run's) is `createPollReportsHandler`'s.
 */
export const composePollReports = (
  env: Environment = process.env,
  overrides: PollReportsOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('poll-reports', overrides);
  const { documents, s3 } = overrides;
  const config: PollingConfig = {
    reportDelivery: enumEnv('REPORT_DELIVERY', ReportDeliverySchema.options, undefined, env),
    moPolling: booleanEnv('MO_POLLING', false, env),
  };
  // Each page must fit its poll, puts and confirm into the 120 s window (see `pageBudgetMs`).
  const gateway =
    overrides.gateway ??
    gatewayFromEnvironment(logger, {
      maxTimeoutMs: 30_000,
      env,
      documents,
      secrets: overrides.secrets,
    });
  const lease = new DynamoDbLease(requiredEnv('STATE_TABLE_NAME', env), documents);
  const receive = overrides.receive ?? receiveDepsFromEnvironment(logger, env, overrides);
  const quarantine = new S3PolledPageQuarantine(requiredEnv('QUARANTINE_BUCKET', env), s3);
  // After a poll starts, its page needs the poll call, the puts and the confirm call: no poll
  // starts later than that before the deadline, and a confirm only starts while the 120 s window
  // still has room for the whole call. Checked here, so a bad combination fails at cold start.
  const pageBudgetMs = 2 * gateway.timeoutMs + 5_000;
  const timing = resolvePollTiming(
    overrides.timing ?? {
      pageBudgetMs,
      confirmMarginMs: gateway.timeoutMs + 5_000,
      leaseTtlMs: pageBudgetMs + 30_000,
    },
  );
  const deps: Omit<PollDeps<PollingGateway>, 'owner' | 'deadline'> = {
    gateway: overrides.wrapPollingGateway?.(gateway.client) ?? gateway.client,
    receive,
    quarantine,
    lease,
    now: Date.now,
    sleep: (ms) => sleep(ms),
    logger,
    timing,
  };
  const handler = createPollReportsHandler({ config, deps, logger, metrics });
  return { logger, metrics, config, deps, handler };
};
