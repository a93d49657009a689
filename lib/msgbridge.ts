import {
  Annotations,
  CfnOutput,
  type CfnOutputProps,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, Billing, StreamViewType, type TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { EVENT_TABLE, STATE_TABLE, type TableDefinition } from '../functions/commons/tables.ts';
import { AlarmTopic } from './alarm-actions.ts';
import { CustomerKeyTable } from './customer-key-table.ts';
import { MsgbridgeDashboard } from './dashboard.ts';
import { DataKey } from './data-key.ts';
import { dataStackPolicy, type StackPolicy } from './data-protection.ts';
import { EventBusDeadLetterQueue } from './event-bus-dlq.ts';
import { EventPublisher } from './event-publisher.ts';
import { EventSchemaRegistry } from './event-schema-registry.ts';
import type { GatewayCallersProps } from './gateway-callers.ts';
import { GatewayEgress, gatewayEgressPorts } from './gateway-egress.ts';
import { placeholderHosts } from './gateway-settings.ts';
import { InboundAlarms } from './inbound-alarms.ts';
import { InboundAttachments } from './inbound-attachments.ts';
import { DEFAULT_METRICS_NAMESPACE } from './monitored-construct.ts';
import { setFunctionObservability } from './msgbridge-function.ts';
import { type MsgBridgeProps, msgBridgeProblems } from './msgbridge-props.ts';
import { grantPayloadWrites } from './payload-bucket-access.ts';
import { throwIfInvalid } from './props-validation.ts';
import { RateAlarms } from './rate-alarms.ts';
import { regionProblems } from './regions.ts';
import { ReportCheckQueue } from './report-check-queue.ts';
import { ScheduledJobs } from './scheduled-jobs.ts';
import { SendPipeline } from './send-pipeline.ts';
import { StatisticsExport } from './statistics-export.ts';
import { DEFAULT_WEBHOOK_FRONT, WebhookApi } from './webhook-api.ts';
import { WebhookSecret } from './webhook-secret.ts';

/**
 * msgbridge as one construct, for a stack of your own: the webhooks, the event store and its
 * publisher, the send pipeline, the scheduled gateway jobs, the attachment store, their alarms and
 * dashboard, and the outputs to register in the gateway console.
 *
 * ```ts
 * import { MsgBridge } from 'msgbridge';
 *
 * const bridge = new MsgBridge(stack, 'msgbridge', {
 *   gateway: { hosts: { api, send, mnt }, tpsQuota: 100 },
 * });
 * bridge.sendPipeline.grantSendMessages(producerRole);
 * ```
 *
 * Props are checked all at once: one `InvalidPropsError` lists every problem, each by its path.
 * The construct grants its functions what they need itself; producers and subscribers are
 * granted with `sendPipeline.grantSendMessages` and the `eventBus`.
 *
 * Everything that holds data is retained when the stack is deleted, so removing the functions can
 * never drop it: both tables, the attachment bucket and its access log bucket, both secrets, the
 * API access logs, and the KMS key all of them are encrypted with (data under a deleted key is
 * lost). The send queue and its DLQ are retained as well: they hold send requests nobody else has
 * a copy of. Not retained:
 * - the on-failure queues: they hold pointers into the table's stream, which are worthless after
 *   its 24 hours (and the statistics export's dead-letter queue, whose runs can be repeated).
 * - the event bus's dead-letter queue: every event in it is also an item of the retained event
 *   table.
 * - the bus and its archive: the bus stores nothing, and every archived event is also an item of
 *   the retained event table; an archive can only replay into its own bus, so it would be of no
 *   use once the bus is gone (and a retained bus keeps its name, so the next deployment of the
 *   same stack could not create it).
 * - the functions' and flow logs' log groups: operational logs, kept for their retention only.
 */
export class MsgBridge extends Construct {
  /** Reports, inbound messages, send records, attachments and quarantined bodies; stream on. */
  public readonly eventTable: TableV2;
  /** Gateway token, rate-limit bucket and leases; never streamed to subscribers. */
  public readonly stateTable: TableV2;
  /** The customer's events: delivery reports, inbound messages, send results. */
  public readonly eventBus: EventBus;
  /** The events the bus could not encrypt or decrypt with the data key, and its alarm. */
  public readonly eventBusDeadLetters: EventBusDeadLetterQueue;
  /** Gateway API key and password (`{"apiKey": "...", "apiPassword": "..."}`), set by the operator. */
  public readonly credentials: ISecret;
  public readonly eventSource: string;
  /** The EventBridge schema registry of the events, one schema per detail-type. */
  public readonly eventSchemas: EventSchemaRegistry;
  /** `{"current": "...", "previous": "..."}`: the path segment that authenticates the webhooks. */
  public readonly webhookSecret: WebhookSecret;
  public readonly webhookApi: WebhookApi;
  public readonly eventPublisher: EventPublisher;
  public readonly inboundAlarms: InboundAlarms;
  /** The send queue (producers' entry point), its DLQ, `send-messages` and their alarms. */
  public readonly sendPipeline: SendPipeline;
  /** Accepted recipients waiting for their delivery report, read by reconcile-status. */
  public readonly reportChecks: ReportCheckQueue;
  /** `refresh-token`, `poll-reports` (when polling), `reconcile-status`: schedules and alarms. */
  public readonly scheduledJobs: ScheduledJobs;
  /** The attachment bucket, `fetch-attachments`, `sweep-attachments` and their alarms. */
  public readonly inboundAttachments: InboundAttachments;
  /** The VPC, NAT gateways and Elastic IPs every gateway caller sends from (unless `none`). */
  public readonly gatewayEgress: GatewayEgress;
  /** Webhook 4XX/5XX rates and the send rejection rate. */
  public readonly rateAlarms: RateAlarms;
  /** `export-statistics`, its schedule and alarm; present when `statisticsExport` is set. */
  public readonly statisticsExport?: StatisticsExport;
  /** The flow dashboard: webhooks in, events out, sends, tokens and jobs, every alarm's state. */
  public readonly dashboard: MsgbridgeDashboard;
  /** The customer managed key of msgbridge's data. */
  public readonly dataKey: DataKey;
  /** The alarm topic created for `alarmEmails`. */
  public readonly alarmTopic: AlarmTopic | undefined;
  /** Where every alarm and its return to OK go: `alarmTopicArn` or the topic of `alarmEmails`. */
  public readonly alarmTopicArn: string | undefined;

  constructor(scope: Construct, id: string, props: MsgBridgeProps) {
    super(scope, id);
    throwIfInvalid('MsgBridge', [
      ...msgBridgeProblems(props),
      ...regionProblems(Stack.of(this).region, props.webhooks?.front ?? DEFAULT_WEBHOOK_FRONT),
    ]);
    // Before any function is created: each reads its log levels and tracing mode from here.
    setFunctionObservability(this, props.observability);
    this.eventSource = props.eventSource ?? 'msgbridge';
    const metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const placeholders = placeholderHosts(props.gateway);
    if (placeholders.length > 0) {
      // A warning, not an error, so that synth and tests work offline; `cdk deploy --strict` fails.
      // On the stack: it is the deployment that is not ready.
      Annotations.of(Stack.of(this)).addWarning(
        `The gateway hosts ${placeholders.join(', ')} are placeholders on the reserved .invalid domain, which never resolves: set gateway.hosts (and gateway.tpsQuota) to the real values from the gateway contract, in the "msgbridge" context of cdk.json, before deploying. Nothing can be sent until then.`,
      );
    }

    this.dataKey = new DataKey(this, 'data-key', props.encryption);
    const encryptionKey = this.dataKey.key;

    this.eventTable = this.table(EVENT_TABLE, props.tables?.eventTableWarmWritesPerSecond);
    this.stateTable = this.table(STATE_TABLE);

    if (props.alarmEmails !== undefined) {
      this.dataKey.allowCloudWatchAlarms();
      this.alarmTopic = new AlarmTopic(this, 'alarm-topic', {
        emails: props.alarmEmails,
        encryptionKey,
      });
    }
    this.alarmTopicArn = props.alarmTopicArn ?? this.alarmTopic?.topic.topicArn;
    const alarmTopic = this.alarmTopicArn ? { alarmTopicArn: this.alarmTopicArn } : {};

    // EventBus adds the key policy statement EventBridge needs (scoped to this bus); the archive
    // adds its own. Publishers need no key permission. An event the bus cannot encrypt or decrypt
    // with the key goes to its DLQ, which would otherwise lose it after PutEvents succeeded.
    this.eventBusDeadLetters = new EventBusDeadLetterQueue(this, 'event-bus-dlq', alarmTopic);
    this.eventBus = new EventBus(this, 'event-bus', {
      description: 'msgbridge delivery reports, inbound messages and send results',
      kmsKey: encryptionKey,
      deadLetterQueue: this.eventBusDeadLetters.queue,
    });
    this.eventBusDeadLetters.acceptFrom(this.eventBus);

    this.credentials = props.gatewayCredentials
      ? Secret.fromSecretAttributes(this, 'gateway-credentials', {
          secretCompleteArn: props.gatewayCredentials.secretArn,
          ...(props.gatewayCredentials.keyArn
            ? {
                encryptionKey: Key.fromKeyArn(
                  this,
                  'gateway-credentials-key',
                  props.gatewayCredentials.keyArn,
                ),
              }
            : {}),
        })
      : this.createCredentialsSecret(encryptionKey);

    this.webhookSecret = new WebhookSecret(this, 'webhook-secret', {
      ...props.webhookSecret,
      encryptionKey,
    });
    this.webhookApi = new WebhookApi(this, 'webhook-api', {
      ...props.webhooks,
      eventTable: this.eventTable,
      webhookSecret: this.webhookSecret.secret,
      metricsNamespace,
      encryptionKey,
    });
    this.eventPublisher = new EventPublisher(this, 'event-publisher', {
      ...props.publisher,
      eventTable: this.eventTable,
      stateTable: this.stateTable,
      eventBus: this.eventBus,
      eventSource: this.eventSource,
      metricsNamespace,
      encryptionKey,
    });
    // One schema per detail-type, for subscribers to browse and generate code bindings from.
    this.eventSchemas = new EventSchemaRegistry(this, 'event-schemas', {
      eventSource: this.eventSource,
    });
    this.inboundAlarms = new InboundAlarms(this, 'inbound-alarms', {
      onFailureQueue: this.eventPublisher.onFailureQueue,
      receiverServices: WebhookApi.RECEIVER_SERVICES,
      publisherService: EventPublisher.SERVICE,
      metricsNamespace,
      ...alarmTopic,
    });

    const { api, send, mnt } = props.gateway.hosts;
    this.gatewayEgress = new GatewayEgress(this, 'gateway-egress', props.egress, {
      encryptionKey,
      // A gateway URL with a port of its own (https://host:8443) is reached on that port.
      ports: gatewayEgressPorts([api, send, mnt], props.attachments?.contentHosts),
      ...alarmTopic,
    });
    const egress = this.gatewayEgress.placement;

    // What every construct with gateway callers takes alike. Everything they store goes to the
    // event table under the webhooks' retention: send records, polled and reconciled reports,
    // attachments, statistics.
    const gatewayCallers: GatewayCallersProps = {
      eventTable: this.eventTable,
      stateTable: this.stateTable,
      credentials: this.credentials,
      gateway: props.gateway,
      egress,
      eventRetentionDays: props.webhooks?.eventRetentionDays,
      metricsNamespace,
      encryptionKey,
      ...alarmTopic,
    };

    this.reportChecks = new ReportCheckQueue(this, 'report-checks', {
      afterMinutes: props.reconcile?.afterMinutes,
      horizonHours: props.reconcile?.horizonHours,
      encryptionKey,
      alarmTopicArn: gatewayCallers.alarmTopicArn,
    });
    this.sendPipeline = new SendPipeline(this, 'send-pipeline', {
      ...props.sending,
      ...gatewayCallers,
      reportChecks: this.reportChecks,
    });

    this.scheduledJobs = new ScheduledJobs(this, 'scheduled-jobs', {
      ...gatewayCallers,
      reportDelivery: props.reportDelivery,
      moPolling: props.moPolling,
      reconcile: props.reconcile,
      // Polled and reconciled reports are stored exactly as the webhook stores them.
      storeConcurrency: props.webhooks?.storeConcurrency,
      // A send resolved by the status query is published like the sender's own acceptances.
      acceptedEvents: props.sending?.acceptedEvents,
      reportChecks: this.reportChecks,
    });

    this.inboundAttachments = new InboundAttachments(this, 'inbound-attachments', {
      ...props.attachments,
      ...gatewayCallers,
    });
    // Every function that stores received items keeps bodies too large for one item or one event
    // below `payloads/` of the attachment bucket (claim check; the bucket's lifecycle applies),
    // and so does the sender with a rejected queue message too large for its item.
    grantPayloadWrites(this.inboundAttachments.bucket, [
      this.webhookApi.receiveReports,
      this.webhookApi.receiveInbound,
      this.sendPipeline.sendMessages,
      ...(this.scheduledJobs.pollReports ? [this.scheduledJobs.pollReports] : []),
      this.scheduledJobs.reconcileStatus,
    ]);
    // Polled pages that could not be stored are kept below quarantine/polled/ of that bucket.
    this.scheduledJobs.keepPolledPagesIn(this.inboundAttachments.bucket);

    this.rateAlarms = new RateAlarms(this, 'rate-alarms', {
      ...props.rateAlarms,
      webhookStage: this.webhookApi.requestMetrics,
      sendService: SendPipeline.SERVICE,
      metricsNamespace,
      ...alarmTopic,
    });

    if (props.statisticsExport)
      this.statisticsExport = new StatisticsExport(this, 'statistics-export', {
        ...props.statisticsExport,
        ...gatewayCallers,
        // Below `statistics/`; the bucket's lifecycle (attachments.expireAfterDays) applies.
        bucket: this.inboundAttachments.bucket,
      });

    // Created last, so that the status widget lists every alarm of the construct.
    this.dashboard = new MsgbridgeDashboard(this, 'dashboard', {
      webhookApi: this.webhookApi,
      eventPublisher: this.eventPublisher,
      eventBusDeadLetterQueue: this.eventBusDeadLetters.queue,
      sendPipeline: this.sendPipeline,
      reportChecks: this.reportChecks,
      scheduledJobs: this.scheduledJobs,
      inboundAttachments: this.inboundAttachments,
      alarms: this.node.findAll().filter((construct) => construct instanceof Alarm),
      tpsQuota: props.gateway.tpsQuota,
      metricsNamespace,
    });

    // URLs to register in the gateway console, with the secret as a placeholder: the value itself
    // never leaves Secrets Manager (`aws secretsmanager get-secret-value --secret-id <arn>`).
    // The function-URL front has two base URLs and no stage: only the two webhook URLs then.
    if (this.webhookApi.restApi)
      this.output('WebhookStageUrl', {
        description: 'Base URL of the webhook API stage',
        value: this.webhookApi.restApi.url,
      });
    this.output('ReportWebhookUrl', {
      description: 'Report webhook URL for the gateway console; replace <secret> with "current"',
      value: this.webhookApi.reportUrlTemplate,
    });
    this.output('InboundWebhookUrl', {
      description: 'MO webhook URL for the gateway console; replace <secret> with "current"',
      value: this.webhookApi.inboundUrlTemplate,
    });
    this.output('WebhookSecretArn', {
      description:
        'Secrets Manager secret holding the webhook path secret (see docs/operations.md)',
      value: this.webhookSecret.secret.secretArn,
    });
    const egressIps = this.gatewayEgress.egressIpList;
    if (egressIps !== undefined) {
      this.output('GatewayEgressIps', {
        description:
          'Source IPs of every gateway call: register each of these (comma-separated) in the gateway console before the first send',
        value: egressIps,
      });
    }
    this.output('EventBusName', {
      description: 'Bus to subscribe EventBridge rules to',
      value: this.eventBus.eventBusName,
    });
    // Producers need the queue and its key: in this app `bridge.sendPipeline.grantSendMessages`,
    // in this account the managed policy, in another account `sending.producers` (operations.md).
    this.output('SendQueueUrl', {
      description: 'Send queue: one gateway send request per message (docs/operations.md)',
      value: this.sendPipeline.queue.queueUrl,
    });
    this.output('SendQueueArn', {
      description:
        'Send queue ARN; sqs:SendMessage alone cannot send to it (its key is needed too): see SendProducerPolicyArn',
      value: this.sendPipeline.queue.queueArn,
    });
    this.output('SendDlqUrl', {
      description: 'Send requests that failed on every delivery; redrive after fixing the cause',
      value: this.sendPipeline.deadLetterQueue.queueUrl,
    });
    this.output('EventBusDlqUrl', {
      description:
        'Events the bus could not encrypt or decrypt with the data key; subscribers never got them (docs/operations.md)',
      value: this.eventBusDeadLetters.queue.queueUrl,
    });
    this.output('ReportCheckQueueUrl', {
      description: 'Accepted recipients waiting for their delivery report (reconcile-status)',
      value: this.reportChecks.queue.queueUrl,
    });
    this.output('ReportCheckDlqUrl', {
      description: 'Report checks that could not be read or stayed undecided past the horizon',
      value: this.reportChecks.deadLetterQueue.queueUrl,
    });
    this.output('SendProducerPolicyArn', {
      description:
        "Managed policy to attach to a producer's role in this account: the send queue and its key, nothing else",
      value: this.sendPipeline.producerPolicy.managedPolicyArn,
    });
    this.output('AttachmentBucketName', {
      description: `Inbound attachments, below ${InboundAttachments.KEY_PREFIX}; each "Inbound Attachment Stored" event names its object`,
      value: this.inboundAttachments.bucket.bucketName,
    });
    // What the msgbridge CLI reads with DescribeStacks.
    this.output('StateTableName', {
      description: 'State table: gateway token, rate-limit bucket, leases',
      value: this.stateTable.tableName,
    });
    this.output('EventTableName', {
      description: 'Event table: reports, inbound messages, send records, quarantine',
      value: this.eventTable.tableName,
    });
    this.output('GatewayCredentialsArn', {
      description: 'Secrets Manager secret for the gateway API key and password',
      value: this.credentials.secretArn,
    });
    this.output('GatewayHosts', {
      description: 'The gateway base URLs, as JSON {"api","send","mnt"}',
      value: Stack.of(this).toJsonString({ api, send, mnt }),
    });
    this.output('EventBusArn', {
      description: 'ARN of the bus the events are put on',
      value: this.eventBus.eventBusArn,
    });
    this.output('EventArchiveArn', {
      description: 'Archive of every published event, for replay (docs/operations.md)',
      value: this.eventPublisher.archive.archiveArn,
    });
    this.output('DataKeyArn', {
      description: 'KMS key of the tables, queues, bucket, logs, secrets, bus and alarm topic',
      value: encryptionKey.keyArn,
    });
    if (this.alarmTopicArn !== undefined) {
      this.output('AlarmTopicArn', {
        description: 'SNS topic that receives every alarm and its return to OK',
        value: this.alarmTopicArn,
      });
    }
  }

  /**
   * The stack policy that lets a deployment update everything of this construct but never replace
   * or delete its stateful resources (tables, buckets, queues, key, bus, archive, secrets, Elastic
   * IPs, alarm topic): set it once on the deployed stack (docs/deploy.md, "Redeploying without
   * touching data").
   */
  public dataStackPolicy(): StackPolicy {
    return dataStackPolicy(this);
  }

  /**
   * A stack output whose logical id is `name`, whatever the construct's id: the `msgbridge`
   * command finds a deployment by these names (`DescribeStacks`), so a stack holds one `MsgBridge`.
   */
  private output(name: string, props: CfnOutputProps): void {
    new CfnOutput(this, name, props).overrideLogicalId(name);
  }

  /** The empty credentials secret the operator fills in (docs/operations.md). */
  private createCredentialsSecret(encryptionKey: IKey): Secret {
    const secret = new Secret(this, 'gateway-credentials', {
      description:
        'msgbridge gateway credentials: put {"apiKey":"...","apiPassword":"..."} here before use',
      removalPolicy: RemovalPolicy.RETAIN,
      encryptionKey,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The gateway issues the API key and password in its own console; there is no API to rotate them, so rotation is an operator task.',
    });
    return secret;
  }

  private table(definition: TableDefinition, warmWritesPerSecond?: number): TableV2 {
    return new CustomerKeyTable(this, definition.name, {
      ...(warmWritesPerSecond === undefined
        ? {}
        : { warmThroughput: { writeUnitsPerSecond: warmWritesPerSecond } }),
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      ...(definition.sortKey
        ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } }
        : {}),
      billing: Billing.onDemand(),
      ...(definition.stream ? { dynamoStream: StreamViewType.NEW_IMAGE } : {}),
      globalSecondaryIndexes: (definition.indexes ?? []).map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      })),
      timeToLiveAttribute: definition.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryptionKey: this.dataKey.key,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
