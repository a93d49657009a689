import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composePollReports } from './polling/compose.ts';

/**
 * `poll-reports`, run every minute: polls delivery reports (and, with MO_POLLING=on, inbound
 * messages) until its timeout less a margin, one poller at a time (leases in the state table). In
 * REPORT_DELIVERY=webhook it returns at once. Environment and metrics: see `composePollReports`.
 */
const poller = composePollReports();

export const handler = middy(poller.handler)
  .use(injectLambdaContext(poller.logger))
  .use(logMetrics(poller.metrics, { captureColdStartMetric: true }));
