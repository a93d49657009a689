import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { integerEnv, requiredEnv } from './commons/environment.ts';
import { GatewayManagementClient } from './commons/gateway/management-client.ts';
import { gatewayFromEnvironment } from './commons/gateway-environment.ts';
import { createLogger, createMetrics } from './commons/observability.ts';
import { DynamoDbEventStore } from './events/dynamodb-event-store.ts';
import { exportStatistics, throwIfIncomplete } from './statistics/export-statistics.ts';
import { S3StatisticsSink } from './statistics/s3-statistics-sink.ts';
import {
  statisticsBucketFromEnvironment,
  statisticsSettingsFromEnvironment,
} from './statistics/statistics-environment.ts';

/**
 * `export-statistics`, on a daily schedule: collects the previous KST day's tracking-URL and
 * messenger read/click statistics and stores each as an event (see `exportStatistics`), and as
 * JSON lines in S3 when a bucket is set. A subject that failed does not stop the others; the run
 * then fails at the end (metric `StatisticsSubjectsFailed`), so the schedule's retries and the
 * dead-letter queue see it.
 * Environment (read once): EVENT_TABLE_NAME, EVENT_RETENTION_DAYS (default 35),
 * STATISTICS_SETTINGS (JSON), STATISTICS_BUCKET (optional), STATE_TABLE_NAME, GATEWAY_API_URL,
 * GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS, GATEWAY_CREDENTIALS_SECRET_ARN.
 */
const logger = createLogger('export-statistics');
const metrics = createMetrics('export-statistics');
const { client: trackingUrls, hosts, tokens, timeoutMs } = gatewayFromEnvironment(logger);
const messenger = new GatewayManagementClient({ hosts, tokens, timeoutMs });
const store = new DynamoDbEventStore(requiredEnv('EVENT_TABLE_NAME'));
const retentionDays = integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 });
const settings = statisticsSettingsFromEnvironment();
const bucket = statisticsBucketFromEnvironment();
const sink = bucket === undefined ? undefined : new S3StatisticsSink(bucket);

export const handler = middy(async () => {
  const result = await exportStatistics({
    trackingUrls,
    messenger,
    store,
    ...(sink ? { sink } : {}),
    now: () => new Date(),
    retentionDays,
    settings,
  });
  metrics.addMetric('StatisticsSubjectsCollected', MetricUnit.Count, result.subjectsCollected);
  metrics.addMetric('StatisticsEventsStored', MetricUnit.Count, result.eventsStored);
  metrics.addMetric('StatisticsSubjectsFailed', MetricUnit.Count, result.failures.length);
  const { failures, ...summary } = result;
  if (failures.length === 0) logger.info('statistics export ended', { run: summary });
  else logger.error('statistics export ended with failed subjects', { run: summary, failures });
  throwIfIncomplete(result);
  return summary;
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
