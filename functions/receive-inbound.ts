import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeReceiver } from './webhooks/compose.ts';

const receiver = composeReceiver('mo');

/**
 * `POST /webhooks/{secret}/mo`, through API Gateway or the function's URL: stores each inbound
 * message once, then answers code 10000.
 */
export const handler = middy(receiver.handler)
  .use(injectLambdaContext(receiver.logger))
  .use(logMetrics(receiver.metrics, { captureColdStartMetric: true }));
