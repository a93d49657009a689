import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

// One client per container, created on first use.
let shared: EventBridgeClient | undefined;

/** The EventBridge client of the publisher and the replay tooling. */
export const eventBridgeClient = (): EventBridgeClient => {
  shared ??= new EventBridgeClient({});
  return shared;
};
