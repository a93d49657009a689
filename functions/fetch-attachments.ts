import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeFetchAttachments } from './attachments/compose.ts';

/**
 * The event table's stream (INSERTs of inbound messages with attachments, filtered by the event
 * source mapping with `ATTACHMENT_RECORD_PATTERN`) → the gateway's files → S3 → "Inbound
 * Attachment Stored" events. Partial batch responses; downloads the gateway refuses become
 * pending markers for `sweep-attachments`. Environment: see `composeFetchAttachments`.
 */
const fetcher = composeFetchAttachments();

export const handler = middy(fetcher.handler)
  .use(injectLambdaContext(fetcher.logger))
  .use(logMetrics(fetcher.metrics, { captureColdStartMetric: true }));
