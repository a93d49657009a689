import { join } from 'node:path';
import { CfnOutput, Duration, Stack, Token } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Archive, CfnArchive, CfnEventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { KEY_PREFIX } from '../functions/commons/table-keys.ts';
import { PUBLISH_KEY_PREFIX } from '../functions/commons/tables.ts';
import { PUBLISHABLE_RECORD_PATTERN } from '../functions/event-table/stream-filter.ts';
import { DEFAULT_METRICS_NAMESPACE } from './monitored-construct.ts';
import { MsgbridgeFunction } from './msgbridge-function.ts';
import { consumeTableStream } from './on-failure-queue.ts';
import { integerProblem, throwIfInvalid } from './props-validation.ts';

/** The settings of the stream → EventBridge path that a deployment may choose. */
export interface EventPublisherOptions {
  /**
   * Stream records per invocation; `publish-events` sends them in `PutEvents` calls of at most 10.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * Batches of one stream shard published at once (Lambda's `ParallelizationFactor`, 1 to 10);
   * records of one item key stay in order. A shard carries at most one table partition's 1,000
   * writes a second; see docs/performance.md for what one batch at a time keeps up with.
   * @default 2
   */
  readonly parallelizationFactor?: number;
  /**
   * Times Lambda retries a failing batch (bisecting it each time) before the failing records go
   * to the on-failure queue.
   * @default 5
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this go to the on-failure queue unprocessed. DynamoDB keeps stream records
   * for 24 hours, so one day means "while they exist".
   * @default Duration.days(1)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Attempts `publish-events` makes for a failing `PutEvents` entry within one invocation.
   * @default 4
   */
  readonly publishMaxAttempts?: number;
  /**
   * Days the bus archive keeps published events for replay.
   * @default 30
   */
  readonly archiveRetentionDays?: number;
}

export interface EventPublisherProps extends EventPublisherOptions {
  /** The event table; its stream (new images) is the outbox. */
  readonly eventTable: ITableV2;
  /**
   * The state table: the publisher marks there, under keys starting `PUBLISH#`, the records it
   * could not publish (for `msgbridge events republish`) and, after a failure, the ones it did.
   */
  readonly stateTable: ITableV2;
  /** The bus the events are put on. */
  readonly eventBus: IEventBus;
  /** `source` of every event put on the bus, and of the archive's event pattern. */
  readonly eventSource: string;
  /**
   * CloudWatch namespace of the publisher's metrics.
   * @default 'msgbridge'
   */
  readonly metricsNamespace?: string;
  /**
   * Customer managed key of the on-failure queue, the function's log group and the archive. The
   * bus should use it too (EventBridge recommends a customer managed key for the archives of a
   * bus that has one).
   * @default - AWS-managed and AWS-owned keys
   */
  readonly encryptionKey?: IKey;
}

/** The problems with `EventPublisherOptions`, for a caller that reports every problem at once. */
export const eventPublisherProblems = (options: EventPublisherOptions): string[] => {
  const problems = [
    // Lambda's limit for DynamoDB streams.
    ...integerProblem('batchSize', options.batchSize, { min: 1, max: 10_000 }),
    ...integerProblem('parallelizationFactor', options.parallelizationFactor, { min: 1, max: 10 }),
    ...integerProblem('retryAttempts', options.retryAttempts, { min: 0, max: 10_000 }),
    ...integerProblem('publishMaxAttempts', options.publishMaxAttempts, { min: 1, max: 10 }),
    ...integerProblem('archiveRetentionDays', options.archiveRetentionDays, {
      min: 1,
      max: 3_650,
    }),
  ];
  const age = options.maxRecordAge;
  if (age !== undefined && !Token.isUnresolved(age.toSeconds())) {
    const seconds = age.toSeconds();
    if (seconds < 60 || seconds > 604_800)
      problems.push(`maxRecordAge must be from 60 seconds to 7 days, got ${age.toHumanString()}`);
  }
  return problems;
};

/** The problem with an event source, if any: EventBridge refuses `aws.` sources from PutEvents. */
export const eventSourceProblems = (eventSource: string): string[] =>
  Token.isUnresolved(eventSource) ||
  (/^[A-Za-z0-9._/-]{1,256}$/.test(eventSource) && !eventSource.startsWith('aws.'))
    ? []
    : [
        `eventSource must be 1-256 letters, digits, ".", "_", "-" or "/" and must not start with "aws.", got "${eventSource}"`,
      ];

/**
 * The transactional outbox's second half: `publish-events` reads the INSERTs of event items from
 * the event table's stream and puts them on the bus. Failed records are retried with bisecting
 * and then land, as stream pointers, in an on-failure queue; nothing is dropped silently. The
 * bus archive keeps every event of `eventSource` for replay.
 */
export class EventPublisher extends Construct {
  /** Powertools service name of the publisher: the `service` dimension of its metrics. */
  static readonly SERVICE = 'publish-events';

  public readonly publishEvents: MsgbridgeFunction;
  /** Receives a pointer (shard, sequence numbers) to every stream batch that could not be published. */
  public readonly onFailureQueue: Queue;
  public readonly archive: Archive;

  constructor(scope: Construct, id: string, props: EventPublisherProps) {
    super(scope, id);
    throwIfInvalid('EventPublisher', [
      ...eventSourceProblems(props.eventSource),
      ...eventPublisherProblems(props),
    ]);

    this.publishEvents = new MsgbridgeFunction(this, EventPublisher.SERVICE, {
      entry: join(import.meta.dirname, '../functions/publish-events.ts'),
      description: 'msgbridge: event table stream (INSERTs of events) → EventBridge',
      // Up to 10 PutEvents calls per batch, each retried with backoff of up to 2 s.
      timeout: Duration.seconds(60),
      environment: {
        EVENT_BUS_NAME: props.eventBus.eventBusName,
        EVENT_SOURCE: props.eventSource,
        EVENT_TABLE_NAME: props.eventTable.tableName,
        STATE_TABLE_NAME: props.stateTable.tableName,
        PUBLISH_MAX_ATTEMPTS: String(props.publishMaxAttempts ?? 4),
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
      },
      logEncryptionKey: props.encryptionKey,
    });
    // PutEvents needs no key permission: EventBridge encrypts with the key under its own key
    // policy statement (added by `EventBus`), never with the caller's.
    props.eventBus.grantPutEventsTo(this.publishEvents);
    this.grantPublishMarkers(props.stateTable);
    this.grantReportQueries(props.eventTable);

    // Lambda reads the stream, and decrypts it with the table's key, with the function's role.
    this.onFailureQueue = consumeTableStream(this, this.publishEvents, props.eventTable, {
      eventSourceName: 'the stream event source',
      encryptionKey: props.encryptionKey,
      // Only new items that carry an event (`eventName` INSERT, `detailType` in the new image):
      // send records, leases and later updates of an item are not events, and filtering here
      // costs no invocation. The local stream poller applies the same shared pattern.
      pattern: PUBLISHABLE_RECORD_PATTERN,
      batchSize: props.batchSize ?? 100,
      parallelizationFactor: props.parallelizationFactor ?? 2,
      retryAttempts: props.retryAttempts ?? 5,
      maxRecordAge: props.maxRecordAge ?? Duration.days(1),
    });

    this.archive = new Archive(this, 'archive', {
      sourceEventBus: props.eventBus,
      description: `msgbridge: every event of source ${props.eventSource}, for replay`,
      eventPattern: { source: [props.eventSource] },
      retention: Duration.days(props.archiveRetentionDays ?? 30),
    });
    if (props.encryptionKey) this.encryptArchive(props.eventBus, props.encryptionKey);

    // What `msgbridge events republish` reads with DescribeStacks; fixed logical ids, as the
    // stack's own outputs have.
    new CfnOutput(this, 'on-failure-queue-url', {
      description:
        'Pointers to stream records publish-events gave up on; `msgbridge events republish` publishes them',
      value: this.onFailureQueue.queueUrl,
    }).overrideLogicalId('PublisherOnFailureQueueUrl');
    new CfnOutput(this, 'event-source', {
      description: 'The source of every event msgbridge puts on the bus',
      value: props.eventSource,
    }).overrideLogicalId('EventSource');
  }

  /**
   * The publisher reads and writes its markers and nothing else of the state table: item reads and
   * puts (single and batched) on keys starting `PUBLISH#` only (`dynamodb:LeadingKeys`), no
   * update, delete, query or scan. Under a customer managed key, the key actions every table
   * caller needs (see grants.ts).
   */
  private grantPublishMarkers(stateTable: ITableV2): void {
    this.publishEvents.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:PutItem',
          'dynamodb:BatchWriteItem',
        ],
        resources: [stateTable.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PUBLISH_KEY_PREFIX}*`] },
        },
      }),
    );
    stateTable.encryptionKey?.grant(this.publishEvents, 'kms:Decrypt', 'kms:DescribeKey');
  }

  /**
   * Each delivery report goes out with its message's status, read from the message's stored
   * reports (functions/publishing/message-status-at-publication.ts): `dynamodb:Query` on the
   * event table, on partitions starting `REPORT#` only (`dynamodb:LeadingKeys`), no item read or
   * write; under a customer managed key, the key actions every table caller needs.
   */
  private grantReportQueries(eventTable: ITableV2): void {
    this.publishEvents.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [eventTable.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${KEY_PREFIX.report}*`] },
        },
      }),
    );
    eventTable.encryptionKey?.grant(this.publishEvents, 'kms:Decrypt', 'kms:DescribeKey');
  }

  /**
   * Encrypts the archive with the key, and lets EventBridge use the key for it: the statements
   * `Archive`'s own `kmsKey` adds, with one difference. `Archive` names the bus in the key policy by
   * its `Fn::GetAtt` ARN, so the key would depend on the bus while the bus (encrypted with the key)
   * depends on the key: a cycle CloudFormation cannot deploy. The ARN built from the bus's name
   * (known at synth, no reference) is the same value without the cycle. For a key the stack does
   * not own, the statements must already be in its policy (docs/deploy.md).
   */
  private encryptArchive(eventBus: IEventBus, key: IKey): void {
    const archive = this.archive.node.defaultChild;
    if (!(archive instanceof CfnArchive)) throw new Error('the archive has no CfnArchive');
    archive.kmsKeyIdentifier = key.keyArn;
    const bus = eventBus.node.defaultChild;
    const busArn = Stack.of(this).formatArn({
      service: 'events',
      resource: 'event-bus',
      resourceName: bus instanceof CfnEventBus ? bus.name : eventBus.eventBusName,
    });
    const events = new ServicePrincipal('events.amazonaws.com');
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowEventBridgeArchiveOfTheBus',
        principals: [events],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey', 'kms:ReEncrypt*'],
        resources: ['*'],
        conditions: { StringEquals: { 'kms:EncryptionContext:aws:events:event-bus:arn': busArn } },
      }),
    );
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowEventBridgeToDescribeTheKey',
        principals: [events],
        actions: ['kms:DescribeKey'],
        resources: ['*'],
      }),
    );
  }
}
