import { setTimeout as sleep } from 'node:timers/promises';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv, requiredEnv } from '../commons/environment.ts';
import { type Backoff, backoffDelay } from '../commons/helpers/backoff.ts';
import { DynamoDbPublishLedger } from './adapters/dynamodb-publish-ledger.ts';
import { EventBridgeBus } from './adapters/eventbridge-bus.ts';
import { storedMessageStatus } from './adapters/stored-message-status.ts';
import { createPublishHandler } from './handler.ts';
import type { EventBus } from './ports.ts';
import { PUT_EVENTS_MAX_BYTES } from './publish.ts';

/** What the local run supplies instead of the Lambda's own (its bus among them). */
export interface PublisherOverrides extends Omit<CompositionOverrides, 's3'> {
  /** The bus to put events on; `EVENT_BUS_NAME` is then not read. */
  readonly bus?: EventBus;
  /** The wait before the n-th put of the entries still failing. @default 100 ms doubling, capped at 2 s, with jitter */
  readonly backoffMs?: (attempt: number) => number;
}

/** The waits before the entries still failing are put again: 100 ms doubling to 2 s. */
const PUT_EVENTS_BACKOFF: Backoff = { firstMs: 100, maxMs: 2_000, jitter: 0.5 };

/**
 * Composes `publish-events` (the event table's stream, INSERTs of event items only, filtered by
 * the event source mapping → EventBridge) from its environment, read once, at cold start:
 * `EVENT_BUS_NAME`, `EVENT_TABLE_NAME` (each report's message status, read from its stored
 * reports: message-status-at-publication.ts), `STATE_TABLE_NAME` (the publish markers, see
 * publish.ts), `EVENT_SOURCE`
 * (default `msgbridge`), `PUBLISH_MAX_ATTEMPTS` (default 4). The Lambda entry wraps the handler in
 * middy; the local run feeds it from its stream poller.
 */
export const composePublisher = (
  env: Environment = process.env,
  overrides: PublisherOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('publish-events', overrides);
  const handler = createPublishHandler({
    bus:
      overrides.bus ??
      new EventBridgeBus(requiredEnv('EVENT_BUS_NAME', env), overrides.eventBridge),
    ledger: new DynamoDbPublishLedger(requiredEnv('STATE_TABLE_NAME', env), overrides.documents),
    source: env.EVENT_SOURCE ?? 'msgbridge',
    messageStatus: storedMessageStatus(requiredEnv('EVENT_TABLE_NAME', env), overrides.documents),
    maxAttempts: integerEnv('PUBLISH_MAX_ATTEMPTS', 4, { min: 1, max: 10 }, env),
    backoffMs: overrides.backoffMs ?? ((attempt) => backoffDelay(PUT_EVENTS_BACKOFF, attempt - 1)),
    sleep: (ms) => sleep(ms),
    maxBatchBytes: PUT_EVENTS_MAX_BYTES,
    logger,
    metrics,
  });
  return { handler, logger, metrics };
};
