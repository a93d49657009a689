import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composeSender } from './sending/compose.ts';

const sender = composeSender();

/** The send queue → the gateway; the environment it reads is on `composeSender`. */
export const handler = middy(sender.handler)
  .use(injectLambdaContext(sender.logger))
  .use(logMetrics(sender.metrics, { captureColdStartMetric: true }));
