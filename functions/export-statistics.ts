import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeExportStatistics } from './statistics/compose.ts';

/**
 * `export-statistics`, on a daily schedule: collects the previous KST day's tracking-URL and
 * messenger read/click statistics and stores each as an event, and as JSON lines in S3 when a
 * bucket is set. Environment, metrics and failures: see `composeExportStatistics`.
 */
const exporter = composeExportStatistics();

export const handler = middy(exporter.handler)
  .use(injectLambdaContext(exporter.logger))
  .use(logMetrics(exporter.metrics, { captureColdStartMetric: true }));
