import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeSweepAttachments } from './attachments/compose.ts';

/**
 * On a schedule (every 15 minutes): retries the pending attachments that are due, and reports
 * those past the gateway's 7-day window as "Inbound Attachment Lost" (metric `AttachmentsLost`).
 * Environment: see `composeSweepAttachments` (the fetcher's, plus SWEEP_MARGIN_MS).
 */
const sweep = composeSweepAttachments();

export const handler = middy(sweep.handler)
  .use(injectLambdaContext(sweep.logger))
  .use(logMetrics(sweep.metrics, { captureColdStartMetric: true }));
