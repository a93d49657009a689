import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { composePublisher } from './publishing/compose.ts';

const publisher = composePublisher();

/** The event table's stream → EventBridge; the environment it reads is on `composePublisher`. */
export const handler = middy(publisher.handler)
  .use(injectLambdaContext(publisher.logger))
  .use(logMetrics(publisher.metrics, { captureColdStartMetric: true }));
