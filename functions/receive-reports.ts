import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeReceiver } from './webhooks/compose.ts';

const receiver = composeReceiver('report');

/**
 * `POST /webhooks/{secret}/report`, through API Gateway or the function's URL: stores each delivery report once, then
 * answers 200, 204 or 400.
 */
export const handler = middy(receiver.handler)
  .use(injectLambdaContext(receiver.logger))
  .use(logMetrics(receiver.metrics, { captureColdStartMetric: true }));
