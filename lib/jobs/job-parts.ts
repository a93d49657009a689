import type { Duration } from 'aws-cdk-lib';
import type { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { GatewayFunctionProps } from '../gateway-function.ts';

/**
 * What each scheduled job of `ScheduledJobs` is built from. Every job creates its resources in the
 * construct's own scope, so their logical ids are those the jobs had when one file built them all.
 */
export interface JobParts {
  readonly scope: Construct;
  /** What every job's function shares: the gateway, its egress and credentials, the state table. */
  readonly common: Pick<
    GatewayFunctionProps,
    'gateway' | 'egress' | 'credentials' | 'stateTable' | 'metricsNamespace' | 'logEncryptionKey'
  >;
  /** The environment of a function that stores received items (the event table, retention, puts in flight). */
  readonly stored: Readonly<Record<string, string>>;
  /** The gateway's per-call time limit (a token when the deployment sets it so). */
  readonly gatewayTimeoutMs: number;
  /** One of a job's metrics, by its Powertools service. */
  readonly metric: (
    service: string,
    metricName: string,
    statistic: string,
    period: Duration,
  ) => Metric;
  /** An alarm when `watched` is above 0, with its runbook anchor in docs/operations.md. */
  readonly above: (
    alarmId: string,
    description: string,
    anchor: string,
    watched: Metric,
    periods?: { readonly evaluation: number; readonly toAlarm: number },
  ) => Alarm;
}

/** Powertools service names: the `service` dimension of each job's metrics. */
export const JOB_SERVICES = {
  refreshToken: 'refresh-token',
  pollReports: 'poll-reports',
  reconcileStatus: 'reconcile-status',
} as const;
