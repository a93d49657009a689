import * as z from '../../gateway/schemas/zod.ts';
import { GatewayStatisticsClient } from '../../gateway/statistics-client.ts';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv, optionalEnv, requiredEnv } from '../commons/environment.ts';
import { DynamoDbEventStore } from '../event-table/dynamodb-event-store.ts';
import type { EventStore } from '../event-table/ports.ts';
import { gatewayAccessFromEnvironment } from '../gateway-access/gateway-access.ts';
import {
  type ExportStatisticsDeps,
  type MessengerStatisticsGateway,
  type StatisticsSettings,
  StatisticsSettingsSchema,
  type TrackingUrlStatisticsGateway,
} from './export-use-case.ts';
import { createExportStatisticsHandler } from './handler.ts';
import { S3StatisticsSink } from './s3-statistics-sink.ts';

export interface ExportStatisticsOverrides extends CompositionOverrides {
  /**
   * The gateway's tracking-URL and (when messenger channels are exported) messenger calls; the
   * `GATEWAY_*` variables are then not read.
   */
  readonly gateway?: {
    readonly trackingUrls: TrackingUrlStatisticsGateway;
    readonly messenger?: MessengerStatisticsGateway;
  };
  /** The event store the statistics go to; EVENT_TABLE_NAME is then not read. */
  readonly store?: EventStore;
}

/**
 * Composes `export-statistics` (the previous KST day's tracking-URL and messenger statistics, as
 * events and optionally as JSON lines in S3) from its environment, read once, at cold start:
 * EVENT_TABLE_NAME, EVENT_RETENTION_DAYS (default 35), STATISTICS_SETTINGS (JSON),
 * STATISTICS_BUCKET (optional), STATE_TABLE_NAME, GATEWAY_API_URL, GATEWAY_SEND_URL,
 * GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS, GATEWAY_CREDENTIALS_SECRET_ARN.
 *
 * Its handler (the Lambda entry's and the local run's) is `createExportStatisticsHandler`'s.
 */
export const composeExportStatistics = (
  env: Environment = process.env,
  overrides: ExportStatisticsOverrides = {},
) => {
  const { logger, metrics } = observabilityOf('export-statistics', overrides);
  const { documents, s3 } = overrides;
  const gateway = overrides.gateway ?? gatewayClientsOf(env, overrides, logger);
  const store =
    overrides.store ?? new DynamoDbEventStore(requiredEnv('EVENT_TABLE_NAME', env), documents);
  const retentionDays = integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }, env);
  const settings = statisticsSettingsFromEnvironment(env);
  const bucket = optionalEnv('STATISTICS_BUCKET', env);
  const sink = bucket === undefined ? undefined : new S3StatisticsSink(bucket, s3);
  const deps: ExportStatisticsDeps = {
    trackingUrls: gateway.trackingUrls,
    ...(gateway.messenger ? { messenger: gateway.messenger } : {}),
    store,
    ...(sink ? { sink } : {}),
    now: () => new Date(),
    retentionDays,
    settings,
  };
  const handler = createExportStatisticsHandler({ deps, logger, metrics });
  return { logger, metrics, deps, handler };
};

/**
 * The deployed gateway: one client of the statistics calls, both the tracking-URL ones (spec 01)
 * and the messenger ones (spec 02), without the clients of every endpoint.
 */
const gatewayClientsOf = (
  env: Environment,
  overrides: ExportStatisticsOverrides,
  logger: Parameters<typeof gatewayAccessFromEnvironment>[0],
) => {
  const { hosts, tokens, timeoutMs } = gatewayAccessFromEnvironment(logger, {
    env,
    documents: overrides.documents,
    secrets: overrides.secrets,
  });
  const statistics = new GatewayStatisticsClient({ hosts, tokens, timeoutMs });
  return { trackingUrls: statistics, messenger: statistics };
};

/**
 * The export's settings from `STATISTICS_SETTINGS` (JSON of `StatisticsSettingsSchema`, written
 * by the `StatisticsExport` construct); a malformed value stops the function with every problem
 * named.
 */
export const statisticsSettingsFromEnvironment = (
  env: Environment = process.env,
): StatisticsSettings => {
  const raw = requiredEnv('STATISTICS_SETTINGS', env);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error('environment variable STATISTICS_SETTINGS is not JSON', { cause: error });
  }
  const parsed = StatisticsSettingsSchema.safeParse(json);
  if (!parsed.success) throw new Error(`STATISTICS_SETTINGS: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
};
