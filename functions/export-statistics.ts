import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { traceInvocations } from './commons/tracing.ts';
import { composeExportStatistics } from './statistics/compose-export-statistics.ts';
import { exportStatistics, throwIfIncomplete } from './statistics/export-statistics.ts';

/**
 * `export-statistics`, on a daily schedule: collects the previous KST day's tracking-URL and
 * messenger read/click statistics and stores each as an event (see `exportStatistics`), and as
 * JSON lines in S3 when a bucket is set. A subject that failed does not stop the others; the run
 * then fails at the end (metric `StatisticsSubjectsFailed`), so the schedule's retries and the
 * dead-letter queue see it. Environment: see `composeExportStatistics`.
 */
const { logger, metrics, deps } = composeExportStatistics();

export const handler = middy(async () => {
  const result = await exportStatistics(deps);
  metrics.addMetric('StatisticsSubjectsCollected', MetricUnit.Count, result.subjectsCollected);
  metrics.addMetric('StatisticsEventsStored', MetricUnit.Count, result.eventsStored);
  metrics.addMetric('StatisticsSubjectsFailed', MetricUnit.Count, result.failures.length);
  const { failures, ...summary } = result;
  if (failures.length === 0) logger.info('statistics export ended', { run: summary });
  else logger.error('statistics export ended with failed subjects', { run: summary, failures });
  throwIfIncomplete(result);
  return summary;
})
  .use(traceInvocations('export-statistics'))
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
