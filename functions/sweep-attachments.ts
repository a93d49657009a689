import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { attachmentDepsFromEnvironment } from './attachments/attachment-environment.ts';
import { createSweepHandler } from './attachments/attachment-handlers.ts';
import { integerEnv } from './commons/environment.ts';
import { createLogger, createMetrics } from './commons/observability.ts';

const logger = createLogger('sweep-attachments');
const metrics = createMetrics('sweep-attachments');

/**
 * On a schedule (every 15 minutes): retries the pending attachments that are due, and reports
 * those past the gateway's 7-day window as "Inbound Attachment Lost" (metric `AttachmentsLost`).
 * Environment: see `attachmentDepsFromEnvironment`, plus SWEEP_MARGIN_MS (default 60 000): no new
 * attachment is started with less than this left of the invocation.
 */
export const handler = middy(
  createSweepHandler({
    ...attachmentDepsFromEnvironment(logger),
    marginMs: integerEnv('SWEEP_MARGIN_MS', 60_000, { min: 1_000, max: 600_000 }),
    logger,
    metrics,
  }),
)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
