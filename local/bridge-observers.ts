/**
 * Who is told of each local run started in this process: the test tiers replay every run's AWS
 * calls against the template's IAM policies (test/support/iam-check.setup.ts). A module of its
 * own, without the local run's side effects, so that observing costs a test file nothing.
 */
import type { AwsCallRecorder } from './aws/call-recorder.ts';
import type { LocalDeployment } from './deployment.ts';

/** What an observer of local runs sees of each: its deployment and the AWS calls it made. */
export interface ObservedBridge {
  readonly deployment: LocalDeployment;
  readonly recorder: AwsCallRecorder;
}

const observers = new Set<(bridge: ObservedBridge) => void>();

/** Calls `listener` with every local run started from now on; returns the unsubscribe. */
export const observeBridges = (listener: (bridge: ObservedBridge) => void): (() => void) => {
  observers.add(listener);
  return () => observers.delete(listener);
};

/** Tells every observer of a local run that has started. */
export const notifyBridgeObservers = (bridge: ObservedBridge): void => {
  for (const observe of observers) observe(bridge);
};
