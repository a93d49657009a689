import { join } from 'node:path';
import {
  Annotations,
  ArnFormat,
  Duration,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import { type Alarm, type IMetric, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import {
  AccountPrincipal,
  ArnPrincipal,
  type Grant,
  type IGrantable,
  ManagedPolicy,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmAbove } from './alarm-actions.ts';
import { type GatewayCallersProps, gatewayCallersProblems } from './gateway-callers.ts';
import { GatewayFunction, TOKEN_PROVIDER_STATE_ACTIONS } from './gateway-function.ts';
import { DEFAULT_GATEWAY_TIMEOUT_MS } from './gateway-settings.ts';
import { grantTableItemActions } from './grants.ts';
import { DEFAULT_METRICS_NAMESPACE } from './monitored-construct.ts';
import { createRetainedDeadLetterQueue, grantQueueSend } from './on-failure-queue.ts';
import { integerProblem, throwIfInvalid } from './props-validation.ts';
import { queueEncryption } from './queue-encryption.ts';
import type { ReportCheckQueue } from './report-check-queue.ts';
import {
  defaultSendConcurrency,
  MIN_SEND_CONCURRENCY,
  SENDER_RECIPIENTS_PER_SECOND,
} from './send-concurrency.ts';

/** The settings of the send queue and its consumer that a deployment may choose. */
export interface SendPipelineOptions {
  /**
   * Timeout of `send-messages`. The queue's visibility timeout is six times this, so a message is
   * never delivered again while an invocation (and Lambda's own retries of it) may still hold it.
   * @default Duration.seconds(60)
   */
  readonly functionTimeout?: Duration;
  /**
   * Deliveries of a message before the queue moves it to the DLQ. The sender retries with
   * backoff through the queue's visibility and gives up on the last delivery, so this is also
   * its retry budget (the function's `MAX_RECEIVE_COUNT`). At least 5.
   * @default 6
   */
  readonly maxReceiveCount?: number;
  /**
   * Queue messages per invocation (each up to 10 recipients).
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * Concurrent invocations the event source may run (Lambda's minimum is 2). The TPS quota itself
   * is enforced by the shared limiter, whatever this is; this sets how many recipients a second
   * the sender can offer it. One invocation of 1-recipient messages is counted on for 34
   * recipients a second (about 43 measured against a gateway answering in 50–150 ms;
   * docs/sending.md says why not fewer), so the default follows `gateway.tpsQuota`: enough
   * invocations to fill the quota with 1-recipient messages, up to 250 (which a default account's
   * 1,000 executions hold with the other consumers). A quota not known before deployment (a
   * token) gets 2.
   * @default max(2, min(250, ceil(gateway.tpsQuota / 34))): 3 at a quota of 100
   */
  readonly maxConcurrency?: number;
  /**
   * Time the event source waits to fill a batch.
   * @default Duration.seconds(1)
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Names of the S3 buckets MMS attachments may be read from (`s3:GetObject` on their objects).
   * Buckets encrypted with a customer managed KMS key must also let the function's role decrypt.
   * @default - none: MMS messages cannot reference S3 objects
   */
  readonly attachmentBuckets?: readonly string[];
  /**
   * Whether each accepted recipient is also published as a "Message Accepted" event (one more
   * item and one more EventBridge event per recipient: about $1.70 per million recipients). Off,
   * the acceptance is still stored on the message's send record (a resend of its cliKey is still
   * refused, `reconcile-status` still looks for its report, `msgbridge trace` still shows it) but
   * never reaches the bus; the delivery report, rejected and scheduled recipients are always
   * published. The function's `ACCEPTED_EVENTS` (`on` or `off`).
   * @default false
   */
  readonly acceptedEvents?: boolean;
  /**
   * Producers outside this CDK app that put messages on the send queue: IAM role ARNs
   * (`arn:aws:iam::<account>:role/<name>`) or account ids (12 digits, every principal of that
   * account its own IAM policies allow). Each is named in the queue policy and in the queue key's
   * policy (SQS asks KMS for `kms:GenerateDataKey` and `kms:Decrypt` with the sender's
   * permissions), which is all a producer of this account needs; a producer of another account
   * also needs the same statements in an IAM policy of its own account (docs/operations.md). A
   * named role must exist before the deployment: KMS refuses a key policy naming a principal it
   * cannot find. Producers of this account may instead attach the managed policy
   * `producerPolicy` (output `SendProducerPolicyArn`), and those of this CDK app be granted with
   * `grantSendMessages`.
   * @default - none
   */
  readonly producers?: readonly string[];
}

export interface SendPipelineProps extends SendPipelineOptions, GatewayCallersProps {
  /** Where the sender queues the accepted recipients whose report reconcile-status checks. */
  readonly reportChecks: ReportCheckQueue;
  /**
   * Customer managed key of both queues and the function's log group.
   * @default - SQS-managed encryption and CloudWatch Logs' own
   */
  readonly encryptionKey?: IKey;
}

const DEFAULTS = {
  functionTimeout: Duration.seconds(60),
  maxReceiveCount: 6,
  batchSize: 10,
  maxBatchingWindow: Duration.seconds(1),
  eventRetentionDays: 35,
} as const;

/** Seconds of a duration, or undefined when only the deployment knows them. */
const secondsOf = (duration: Duration | undefined): number | undefined =>
  duration === undefined || Token.isUnresolved(duration.toSeconds())
    ? undefined
    : duration.toSeconds();

/**
 * The problems with `SendPipelineOptions`, for a caller that reports every problem at once.
 * `gatewayTimeoutMs` is checked against the function timeout.
 */
export const sendPipelineProblems = (
  options: SendPipelineOptions,
  gatewayTimeoutMs?: number,
): string[] => {
  const problems = [
    // At least 5 deliveries before the DLQ, so a short gateway outage never fills it.
    ...integerProblem('maxReceiveCount', options.maxReceiveCount, { min: 5, max: 1_000 }),
    // Lambda's limits for a standard queue.
    ...integerProblem('batchSize', options.batchSize, { min: 1, max: 10_000 }),
    ...integerProblem('maxConcurrency', options.maxConcurrency, { min: 2, max: 1_000 }),
  ];
  const timeout = secondsOf(options.functionTimeout);
  if (timeout !== undefined) {
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 900)
      problems.push(`functionTimeout must be whole seconds from 1 to 900, got ${timeout} s`);
    // A cold container authenticates and then sends, each call up to the gateway timeout, and
    // the sender keeps 2 s to record the outcome.
    const callMs = gatewayTimeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
    const needed = Math.ceil((2 * callMs) / 1_000) + 5;
    if (!Token.isUnresolved(callMs) && Number.isFinite(needed) && timeout < needed)
      problems.push(
        `functionTimeout must be at least ${needed} s (twice the gateway timeout plus 5 s), got ${timeout} s`,
      );
  }
  const window = secondsOf(options.maxBatchingWindow);
  if (window !== undefined && (!Number.isInteger(window) || window < 0 || window > 300))
    problems.push(`maxBatchingWindow must be whole seconds from 0 to 300, got ${window} s`);
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const effectiveWindow = secondsOf(options.maxBatchingWindow ?? DEFAULTS.maxBatchingWindow);
  if (!Token.isUnresolved(batchSize) && batchSize > 10 && effectiveWindow === 0)
    problems.push(`batchSize above 10 needs a maxBatchingWindow of at least 1 s (Lambda's rule)`);
  const buckets = options.attachmentBuckets ?? [];
  for (const bucket of buckets.filter((name) => !Token.isUnresolved(name) && !isBucketName(name)))
    problems.push(`attachmentBuckets: "${bucket}" is not an S3 bucket name`);
  for (const producer of (options.producers ?? []).filter(
    (each) => !Token.isUnresolved(each) && !PRODUCER.test(each),
  ))
    problems.push(
      `producers: "${producer}" is neither an IAM role ARN (arn:aws:iam::<account>:role/<name>) nor an account id (12 digits)`,
    );
  return problems;
};

/** An IAM role ARN (its path included) or an account id. */
const PRODUCER = /^(arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}|\d{12})$/;

/** SQS's send actions a producer needs: the message, and the attributes and URL its SDK may ask. */
const PRODUCER_QUEUE_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
/**
 * What SQS asks KMS for with a sender's permissions on a queue under a customer managed key: a
 * data key for the message and the decryption of a cached one (SQS developer guide, "Key
 * management", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html,
 * read 2026-12-07).
 */
const PRODUCER_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'];

/** True for a general purpose S3 bucket name (3-63 lowercase letters, digits, "." and "-"). */
const isBucketName = (name: string): boolean =>
  /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) && !name.includes('..');

/**
 * The send path: producers put one gateway send request per message on the send queue;
 * `send-messages` validates it, takes tokens from the shared TPS bucket, calls the gateway and
 * stores the outcome (whose events reach the bus through the event table's stream).
 *
 * The event source reports partial batch failures, so only the messages with recipients still to
 * try are delivered again; the sender delays them itself by changing their visibility. A message
 * that fails on every one of `maxReceiveCount` deliveries lands in the DLQ, which alarms.
 */
export class SendPipeline extends Construct {
  /** Powertools service name of the sender: the `service` dimension of its metrics. */
  static readonly SERVICE = 'send-messages';

  /** Producers' queue: one message = one gateway send request. */
  public readonly queue: Queue;
  /** Messages that failed on every delivery. */
  public readonly deadLetterQueue: Queue;
  public readonly sendMessages: GatewayFunction;
  /** The DLQ holds a message. */
  public readonly deadLetterQueueNotEmpty: Alarm;
  /** Producers sent messages that failed validation (each is a "Send Rejected" event). */
  public readonly sendsRejectedInvalid: Alarm;
  /**
   * Everything a producer of this account needs to put messages on the send queue, to attach to
   * its role: the SQS send actions on the queue and, for a queue under a customer managed key,
   * `kms:GenerateDataKey` and `kms:Decrypt` on that key through SQS only.
   */
  public readonly producerPolicy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: SendPipelineProps) {
    super(scope, id);
    throwIfInvalid('SendPipeline', [
      ...sendPipelineProblems(props, props.gateway?.timeoutMs),
      ...gatewayCallersProblems(props),
    ]);
    const functionTimeout = props.functionTimeout ?? DEFAULTS.functionTimeout;
    const maxReceiveCount = props.maxReceiveCount ?? DEFAULTS.maxReceiveCount;
    const namespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;

    // Both queues hold send requests nobody else has a copy of, so deleting the stack leaves them
    // (with their messages) to be drained or redriven; a new deployment creates new ones.
    this.deadLetterQueue = createRetainedDeadLetterQueue(this, 'send-dlq', props.encryptionKey);
    this.queue = new Queue(this, 'send-queue', {
      ...queueEncryption(props.encryptionKey),
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      // AWS's guidance for Lambda consumers: at least six times the function timeout, so that
      // a batch being retried by Lambda after throttling is not delivered twice meanwhile.
      visibilityTimeout: Duration.seconds(6 * functionTimeout.toSeconds()),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.sendMessages = new GatewayFunction(this, SendPipeline.SERVICE, {
      entry: join(import.meta.dirname, '../functions/send-messages.ts'),
      description: 'msgbridge: send queue → gateway, one queue message = one send request',
      timeout: functionTimeout,
      environment: {
        EVENT_TABLE_NAME: props.eventTable.tableName,
        SEND_QUEUE_URL: this.queue.queueUrl,
        REPORT_CHECK_QUEUE_URL: props.reportChecks.queue.queueUrl,
        TPS_QUOTA: String(props.gateway.tpsQuota),
        MAX_RECEIVE_COUNT: String(maxReceiveCount),
        EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? DEFAULTS.eventRetentionDays),
        ACCEPTED_EVENTS: props.acceptedEvents === true ? 'on' : 'off',
      },
      gateway: props.gateway,
      egress: props.egress,
      credentials: props.credentials,
      stateTable: props.stateTable,
      // The shared token and its lease, and the token bucket (one counter item per second).
      stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS, 'dynamodb:UpdateItem'],
      metricsNamespace: namespace,
      logEncryptionKey: props.encryptionKey,
    });
    this.grantSenderAccess(props);
    this.producerPolicy = this.createProducerPolicy(props.encryptionKey);
    this.allowNamedProducers(props.producers ?? [], props.encryptionKey);

    // Also grants receive, delete and ChangeMessageVisibility (the sender's backoff) on the queue,
    // and kms:Decrypt on its key (all a consumer of an encrypted queue needs).
    this.sendMessages.addEventSource(
      new SqsEventSource(this.queue, {
        reportBatchItemFailures: true,
        batchSize: props.batchSize ?? DEFAULTS.batchSize,
        maxConcurrency: props.maxConcurrency ?? this.defaultConcurrency(props.gateway.tpsQuota),
        maxBatchingWindow: props.maxBatchingWindow ?? DEFAULTS.maxBatchingWindow,
      }),
    );

    const alarm = (alarmId: string, description: string, metric: IMetric) =>
      alarmAbove(this, alarmId, { description, anchor: 'the-send-queue', metric });
    this.deadLetterQueueNotEmpty = alarm(
      'send-dlq-not-empty',
      `msgbridge: a send request failed on all ${maxReceiveCount} deliveries and is in the send DLQ; the recipients already accepted are recorded and will not be sent twice on redrive.`,
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: Stats.MAXIMUM,
      }),
    );
    this.sendsRejectedInvalid = alarm(
      'sends-rejected-invalid',
      'msgbridge: producers put messages on the send queue that failed validation; each is a "Send Rejected" event listing every problem, and was not sent.',
      new Metric({
        namespace,
        metricName: 'SendsRejectedInvalid',
        dimensionsMap: { service: SendPipeline.SERVICE },
        statistic: Stats.SUM,
        period: Duration.minutes(5),
      }),
    );
    if (props.alarmTopicArn) {
      const action = new SnsAction(Topic.fromTopicArn(this, 'alarm-topic', props.alarmTopicArn));
      for (const each of [this.deadLetterQueueNotEmpty, this.sendsRejectedInvalid]) {
        each.addAlarmAction(action);
        each.addOkAction(action);
      }
    }
  }

  /**
   * `defaultSendConcurrency` of the quota; a quota only the deployment knows (a token) gets
   * Lambda's minimum, and a warning, since the quota's own validation cannot see it either.
   */
  private defaultConcurrency(tpsQuota: number): number {
    if (!Token.isUnresolved(tpsQuota) && Number.isFinite(tpsQuota))
      return defaultSendConcurrency(tpsQuota);
    Annotations.of(this).addWarningV2(
      'msgbridge:send-concurrency-unknown-quota',
      `gateway.tpsQuota is not known before deployment, so the send queue's maximum concurrency is ${MIN_SEND_CONCURRENCY}: set sending.maxConcurrency to ceil(quota / ${SENDER_RECIPIENTS_PER_SECOND}) (docs/sending.md)`,
    );
    return MIN_SEND_CONCURRENCY;
  }

  /**
   * Lets a producer (a role or function of the customer) put messages on the send queue: the SQS
   * send actions, and `kms:GenerateDataKey` and `kms:Decrypt` on the queue's key.
   */
  public grantSendMessages(grantee: IGrantable): Grant {
    return grantQueueSend(this.queue, grantee);
  }

  /** The managed policy of `producerPolicy`. */
  private createProducerPolicy(key: IKey | undefined): ManagedPolicy {
    const region = Stack.of(this).region;
    return new ManagedPolicy(this, 'producer-policy', {
      description: `msgbridge ${Stack.of(this).stackName}: put messages on the send queue`,
      statements: [
        new PolicyStatement({ actions: PRODUCER_QUEUE_ACTIONS, resources: [this.queue.queueArn] }),
        ...(key
          ? [
              new PolicyStatement({
                actions: PRODUCER_KEY_ACTIONS,
                resources: [key.keyArn],
                conditions: { StringEquals: { 'kms:ViaService': `sqs.${region}.amazonaws.com` } },
              }),
            ]
          : []),
      ],
    });
  }

  /**
   * Names the producers outside the app in the queue policy and the queue key's policy. Both are
   * what another account's producer needs of this one (cross-account access needs the resource's
   * policy to allow it as well as the caller's own); for a producer of this account either
   * suffices. An imported key's policy is not the stack's to change: its statement must already
   * be there (docs/deploy.md, "Bringing your own key").
   */
  private allowNamedProducers(producers: readonly string[], key: IKey | undefined): void {
    if (producers.length === 0) return;
    const principals = producers.map((each) =>
      /^\d{12}$/.test(each) ? new AccountPrincipal(each) : new ArnPrincipal(each),
    );
    this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowNamedProducersToSend',
        principals,
        actions: PRODUCER_QUEUE_ACTIONS,
        resources: [this.queue.queueArn],
      }),
    );
    if (!key) return;
    const added = key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowNamedProducersToEncryptSendQueueMessages',
        principals,
        actions: PRODUCER_KEY_ACTIONS,
        resources: ['*'],
        conditions: {
          StringEquals: { 'kms:ViaService': `sqs.${Stack.of(this).region}.amazonaws.com` },
        },
      }),
    );
    if (!added.statementAdded)
      Annotations.of(this).addWarningV2(
        'msgbridge:producers-key-policy',
        `sending.producers: the key ${key.keyArn} is not msgbridge's, so its policy must already let the named producers use it through SQS (kms:GenerateDataKey and kms:Decrypt with kms:ViaService sqs.<region>.amazonaws.com; docs/deploy.md, "Bringing your own key")`,
      );
  }

  /**
   * Exactly the calls the sender makes, on exactly its resources; `GatewayFunction` grants the
   * state table and the credentials.
   */
  private grantSenderAccess(props: SendPipelineProps): void {
    const fn = this.sendMessages;
    props.reportChecks.grantSend(fn);
    // Outcome items of a redelivered message (BatchGetItem), outcome events, unknown outcomes and
    // a rejection's pointers (conditional PutItem), the send record's claim and acceptances
    // (UpdateItem), and the record read when a claim is refused, to tell another message's
    // content from a live claim (GetItem).
    grantTableItemActions(
      props.eventTable,
      fn,
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    );

    const buckets = props.attachmentBuckets ?? [];
    if (buckets.length === 0) return;
    const stack = Stack.of(this);
    const objectArns = buckets.map((bucket) =>
      stack.formatArn({
        service: 's3',
        region: '',
        account: '',
        resource: bucket,
        resourceName: '*',
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      }),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: objectArns }));
    if (fn.role) {
      for (const bucket of buckets)
        Validations.of(fn.role).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${bucket}/*]`,
          reason: `MMS attachments are arbitrary objects the producer names in its message, so the sender may read any object of the attachment bucket "${bucket}" that the operator listed in attachmentBuckets, and nothing else: GetObject only, no list or write.`,
        });
    }
  }
}
