import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { MsgBridge } from './msgbridge.ts';
import {
  MSGBRIDGE_PROP_NAMES,
  type MsgBridgeProps,
  msgBridgeProblems,
  unknownPropProblems,
} from './msgbridge-props.ts';
import { InvalidPropsError } from './props-validation.ts';

export interface MsgbridgeStackProps extends StackProps, MsgBridgeProps {}

/** Every prop of the CDK's `StackProps`, kept complete by the type checker. */
const STACK_PROP_NAMES: readonly string[] = Object.keys({
  description: true,
  env: true,
  stackName: true,
  tags: true,
  notificationArns: true,
  synthesizer: true,
  terminationProtection: true,
  analyticsReporting: true,
  crossRegionReferences: true,
  permissionsBoundary: true,
  suppressTemplateIndentation: true,
  propertyInjectors: true,
} satisfies Record<keyof StackProps, true>);

/**
 * This repository's stack (`bin/msgbridge.ts`): one `MsgBridge` and nothing else.
 *
 * The construct's id is `Default`, which CDK leaves out of logical ids: every resource keeps the
 * logical id it had when the stack built the resources itself, so updating an existing deployment
 * replaces nothing (a new logical id would make CloudFormation create a new table, bucket or
 * queue and abandon the retained one). The construct's resources are also exposed here, as before.
 */
export class MsgbridgeStack extends Stack {
  /** Everything the stack deploys. */
  public readonly bridge: MsgBridge;
  public readonly eventTable: MsgBridge['eventTable'];
  public readonly stateTable: MsgBridge['stateTable'];
  public readonly eventBus: MsgBridge['eventBus'];
  public readonly credentials: MsgBridge['credentials'];
  public readonly eventSource: string;
  public readonly webhookSecret: MsgBridge['webhookSecret'];
  public readonly webhookApi: MsgBridge['webhookApi'];
  public readonly eventPublisher: MsgBridge['eventPublisher'];
  public readonly inboundAlarms: MsgBridge['inboundAlarms'];
  public readonly sendPipeline: MsgBridge['sendPipeline'];
  public readonly reportChecks: MsgBridge['reportChecks'];
  public readonly scheduledJobs: MsgBridge['scheduledJobs'];
  public readonly inboundAttachments: MsgBridge['inboundAttachments'];
  public readonly gatewayEgress: MsgBridge['gatewayEgress'];
  public readonly rateAlarms: MsgBridge['rateAlarms'];
  public readonly statisticsExport?: MsgBridge['statisticsExport'];
  public readonly dashboard: MsgBridge['dashboard'];
  public readonly dataKey: MsgBridge['dataKey'];
  public readonly alarmTopic: MsgBridge['alarmTopic'];
  public readonly alarmTopicArn: string | undefined;

  constructor(scope: Construct, id: string, props: MsgbridgeStackProps) {
    super(scope, id, props);
    // Stack props are not the construct's: it is given only its own. A key that is neither (a
    // misspelt prop of a JavaScript app) is reported with the construct's other problems.
    const own = Object.fromEntries(
      Object.entries(props).filter(([key]) => MSGBRIDGE_PROP_NAMES.includes(key)),
    ) as unknown as MsgBridgeProps;
    const unknown = unknownPropProblems(props, [...MSGBRIDGE_PROP_NAMES, ...STACK_PROP_NAMES]);
    if (unknown.length > 0)
      throw new InvalidPropsError('MsgBridge', [...unknown, ...msgBridgeProblems(own)]);
    const bridge = new MsgBridge(this, 'Default', own);
    this.bridge = bridge;
    this.eventTable = bridge.eventTable;
    this.stateTable = bridge.stateTable;
    this.eventBus = bridge.eventBus;
    this.credentials = bridge.credentials;
    this.eventSource = bridge.eventSource;
    this.webhookSecret = bridge.webhookSecret;
    this.webhookApi = bridge.webhookApi;
    this.eventPublisher = bridge.eventPublisher;
    this.inboundAlarms = bridge.inboundAlarms;
    this.sendPipeline = bridge.sendPipeline;
    this.reportChecks = bridge.reportChecks;
    this.scheduledJobs = bridge.scheduledJobs;
    this.inboundAttachments = bridge.inboundAttachments;
    this.gatewayEgress = bridge.gatewayEgress;
    this.rateAlarms = bridge.rateAlarms;
    if (bridge.statisticsExport) this.statisticsExport = bridge.statisticsExport;
    this.dashboard = bridge.dashboard;
    this.dataKey = bridge.dataKey;
    this.alarmTopic = bridge.alarmTopic;
    this.alarmTopicArn = bridge.alarmTopicArn;
  }
}
