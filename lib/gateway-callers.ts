import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { GatewayPlacement } from './gateway-egress.ts';
import { type GatewaySettingsProps, gatewaySettingsProblems } from './gateway-settings.ts';
import { inboundAlarmsProblems, metricsNamespaceProblems } from './inbound-alarms.ts';
import { integerProblem } from './props-validation.ts';

/**
 * What every construct with gateway callers (`SendPipeline`, `ScheduledJobs`,
 * `InboundAttachments`, `StatisticsExport`) takes alike from the stack: the two tables, the
 * gateway and its credentials, where the callers run, and the shared monitoring and encryption
 * settings. Each construct's own props add what only it needs.
 */
export interface GatewayCallersProps {
  /** Where the functions store what they send and receive; its stream feeds the publisher. */
  readonly eventTable: ITableV2;
  /** The shared gateway token, plus each construct's own state (TPS bucket, leases, markers). */
  readonly stateTable: ITableV2;
  /** Gateway API key and password, `{"apiKey": "...", "apiPassword": "..."}`. */
  readonly credentials: ISecret;
  /** The customer's gateway hosts, TPS quota and call timeout. */
  readonly gateway: GatewaySettingsProps;
  /**
   * Where the gateway callers run: the fixed-egress VPC's private subnets and security group.
   * @default - outside a VPC
   */
  readonly egress?: GatewayPlacement;
  /**
   * Days what the functions store in the event table is kept (DynamoDB TTL).
   * @default 35
   */
  readonly eventRetentionDays?: number;
  /**
   * CloudWatch namespace of the functions' metrics (and of the alarms on them).
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
  /**
   * SNS topic that receives every alarm and its return to OK.
   * @default - alarms without actions
   */
  readonly alarmTopicArn?: string;
  /**
   * Customer managed key of the functions' log groups and of the construct's queues and buckets.
   * @default - the services' own encryption (SQS-managed, S3-managed, CloudWatch Logs')
   */
  readonly encryptionKey?: IKey;
}

/** The problems with `GatewayCallersProps`, for a constructor that reports every problem at once. */
export const gatewayCallersProblems = (props: GatewayCallersProps): string[] => [
  ...gatewaySettingsProblems(props.gateway),
  ...integerProblem('eventRetentionDays', props.eventRetentionDays, { min: 8, max: 3_650 }),
  ...metricsNamespaceProblems(props.metricsNamespace),
  ...inboundAlarmsProblems(props),
];
