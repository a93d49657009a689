/**
 * The `msgbridge` package's main entry: the `MsgBridge` construct for a CDK app of your own, its
 * props and the constructs it exposes, and this repository's own `MsgbridgeStack`.
 * `msgbridge/send` holds the producer side (the send-message type and the validating producer).
 */

export type { ReportDelivery } from '../functions/polling/poll-use-case.ts';
export { AlarmTopic } from './alarm-actions.ts';
export { CONTEXT_KEY, type ContextStackProps, stackPropsFromContext } from './context-props.ts';
export { MsgbridgeDashboard } from './dashboard.ts';
export { DataKey, type DataKeyProps } from './data-key.ts';
export {
  dataStackPolicy,
  STATEFUL_RESOURCE_TYPES,
  type StackPolicy,
  statefulResources,
} from './data-protection.ts';
export { EventBusDeadLetterQueue } from './event-bus-dlq.ts';
export { EventPublisher, type EventPublisherOptions } from './event-publisher.ts';
export {
  EGRESS_MODES,
  type EgressMode,
  GatewayEgress,
  type GatewayEgressOptions,
  type GatewayEgressSettings,
  type GatewayPlacement,
  NAT_INSTANCE_TYPE,
} from './gateway-egress.ts';
export type { GatewayHostsProps, GatewaySettingsProps } from './gateway-settings.ts';
export { InboundAlarms } from './inbound-alarms.ts';
export { InboundAttachments, type InboundAttachmentsOptions } from './inbound-attachments.ts';
export { MsgBridge } from './msgbridge.ts';
export type { FunctionObservabilityOptions } from './msgbridge-function.ts';
export {
  type ImportedSecretProps,
  type MsgBridgeProps,
  msgBridgeProblems,
  type TablesOptions,
} from './msgbridge-props.ts';
export { MsgbridgeStack, type MsgbridgeStackProps } from './msgbridge-stack.ts';
export { InvalidPropsError } from './props-validation.ts';
export { RateAlarms, type RateAlarmsOptions } from './rate-alarms.ts';
export { ReportCheckQueue } from './report-check-queue.ts';
export { type ReconcileOptions, ScheduledJobs } from './scheduled-jobs.ts';
export { SendPipeline, type SendPipelineOptions } from './send-pipeline.ts';
export { StatisticsExport, type StatisticsExportOptions } from './statistics-export.ts';
export { WebhookApi, type WebhookApiOptions, type WebhookFront } from './webhook-api.ts';
export { WebhookSecret, type WebhookSecretProps } from './webhook-secret.ts';
