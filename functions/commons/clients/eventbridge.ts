import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { traceAwsClient } from '../tracing.ts';

// One client per container, created on first use; traced as `traceAwsClient` says.
let shared: EventBridgeClient | undefined;

/** The EventBridge client of the publisher and the replay tooling. */
export const eventBridgeClient = (): EventBridgeClient => {
  shared ??= traceAwsClient(new EventBridgeClient({}));
  return shared;
};
