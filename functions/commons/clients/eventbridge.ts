import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

// One client per container, created on first use. In Lambda its PutEvents carries the invocation's
// trace header (the SDK's own), which EventBridge passes on to the rules' targets.
let shared: EventBridgeClient | undefined;

/** The EventBridge client of the publisher and the replay tooling. */
export const eventBridgeClient = (): EventBridgeClient => {
  shared ??= new EventBridgeClient({});
  return shared;
};
