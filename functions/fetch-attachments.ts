import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { attachmentDepsFromEnvironment } from './attachments/attachment-environment.ts';
import { createFetchAttachmentsHandler } from './attachments/attachment-handlers.ts';
import { createLogger, createMetrics } from './commons/observability.ts';

const logger = createLogger('fetch-attachments');
const metrics = createMetrics('fetch-attachments');

/**
 * The event table's stream (INSERTs of inbound messages with attachments, filtered by the event
 * source mapping with `ATTACHMENT_RECORD_PATTERN`) → the gateway's files → S3 → "Inbound
 * Attachment Stored" events. Partial batch responses; downloads the gateway refuses become
 * pending markers for `sweep-attachments`. Environment: see `attachmentDepsFromEnvironment`.
 */
export const handler = middy(
  createFetchAttachmentsHandler({ ...attachmentDepsFromEnvironment(logger), logger, metrics }),
)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
