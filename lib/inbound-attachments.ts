import { join } from 'node:path';
import { CfnElement, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  type Alarm,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
} from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectOwnership,
  StorageClass,
} from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { contentHostProblems } from '../functions/attachments/content-url-policy.ts';
import { ATTACHMENT_RECORD_PATTERN } from '../functions/attachments/stream-filter.ts';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';
import { FunctionSchedule } from './function-schedule.ts';
import { type GatewayCallersProps, gatewayCallersProblems } from './gateway-callers.ts';
import { GatewayFunction, TOKEN_PROVIDER_STATE_ACTIONS } from './gateway-function.ts';
import { grantTableItemActions, OBJECT_UPLOAD_ACTIONS } from './grants.ts';
import { environmentShareProblems } from './lambda-environment.ts';
import { MonitoredConstruct } from './monitored-construct.ts';
import { consumeTableStream } from './on-failure-queue.ts';
import { integerProblem } from './props-validation.ts';

/** The attachment bucket's lifecycle. */
export interface InboundAttachmentsOptions {
  /**
   * Days after which a stored attachment is deleted.
   * @default 365
   */
  readonly expireAfterDays?: number;
  /**
   * Days after which a stored attachment moves to S3 Standard-IA (at least 30, S3's minimum, and
   * fewer than `expireAfterDays`).
   * @default - attachments stay in S3 Standard
   */
  readonly infrequentAccessAfterDays?: number;
  /**
   * Extra hosts (`host` or `host:port`, DNS names) that attachment content URLs may name besides
   * the gateway's own three hosts (`gateway.hosts`); content URLs are fetched over https only,
   * never from a private, loopback or link-local address (`ATTACHMENT_CONTENT_HOSTS`).
   * @default - the gateway's hosts only
   */
  readonly contentHosts?: readonly string[];
}

export interface InboundAttachmentsProps extends InboundAttachmentsOptions, GatewayCallersProps {
  /**
   * Customer managed key of the attachment bucket (SSE-KMS with an S3 Bucket Key), the
   * on-failure queue and the functions' log groups.
   * @default - S3-managed and SQS-managed keys, CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: IKey;
}

/** The problems with `InboundAttachmentsOptions`, for a caller that reports every problem at once. */
export const inboundAttachmentsProblems = (options: InboundAttachmentsOptions): string[] => {
  const problems = [
    ...contentHostProblems(
      (options.contentHosts ?? []).filter(
        (host) => !(typeof host === 'string' && Token.isUnresolved(host)),
      ),
    ).map((problem) => `contentHosts: ${problem}`),
    // fetch-attachments reads the hosts from its environment (ATTACHMENT_CONTENT_HOSTS).
    ...environmentShareProblems(
      'contentHosts',
      'ATTACHMENT_CONTENT_HOSTS',
      (options.contentHosts ?? []).join(','),
      'list only the hosts the gateway serves attachments from',
    ),
    ...integerProblem('expireAfterDays', options.expireAfterDays, { min: 1, max: 36_500 }),
    ...integerProblem('infrequentAccessAfterDays', options.infrequentAccessAfterDays, {
      min: 30,
      max: 36_500,
    }),
  ];
  const expire = options.expireAfterDays ?? 365;
  const transition = options.infrequentAccessAfterDays;
  // Compared only when each is valid on its own, so that one mistake is reported once.
  if (
    problems.length === 0 &&
    transition !== undefined &&
    !Token.isUnresolved(transition) &&
    !Token.isUnresolved(expire) &&
    transition >= expire
  )
    problems.push(
      `infrequentAccessAfterDays (${transition}) must be fewer than expireAfterDays (${expire}), or the objects expire before they move`,
    );
  return problems;
};

/** The key prefix of every stored attachment; the functions may write below it only. */
const KEY_PREFIX = 'inbound/';

/** Every problem the constructor reports at once. */
const constructorProblems = (props: InboundAttachmentsProps): string[] => [
  ...inboundAttachmentsProblems(props),
  ...gatewayCallersProblems(props),
];

/**
 * Attachments of inbound messages, in S3: `fetch-attachments` reads the event table's stream
 * (inserts of inbound messages with attachments only, filtered by the event source mapping) and
 * streams each file into the attachment bucket; `sweep-attachments`, every 15 minutes, retries
 * the downloads that failed and reports those past the gateway's 7-day window as lost.
 *
 * The bucket is private, TLS-only, encrypted with the stack's key, unversioned and retained when
 * the stack is deleted; its lifecycle comes from props. Its server access logs go to a log bucket
 * of their own, also retained.
 */
export class InboundAttachments extends MonitoredConstruct {
  /** Powertools service names: the `service` dimension of the functions' metrics. */
  static readonly SERVICES = {
    fetch: 'fetch-attachments',
    sweep: 'sweep-attachments',
  } as const;
  /** Key prefix of the stored attachments (`ATTACHMENT_PREFIX`). */
  static readonly KEY_PREFIX = KEY_PREFIX;

  public readonly bucket: Bucket;
  /** Server access logs of `bucket`, kept a year. */
  public readonly accessLogsBucket: Bucket;
  public readonly fetchAttachments: GatewayFunction;
  public readonly sweepAttachments: GatewayFunction;
  public readonly sweepSchedule: FunctionSchedule;
  /** Receives a pointer to every stream batch `fetch-attachments` gave up on. */
  public readonly onFailureQueue: Queue;

  /** An attachment could not be fetched within the gateway's 7-day window. */
  public readonly attachmentsLost: Alarm;
  /** A stream batch ended in the on-failure queue. */
  public readonly onFailureQueueNotEmpty: Alarm;
  /** The sweep failed on our side (S3 or DynamoDB); its markers stay due. */
  public readonly sweepErrors: Alarm;

  constructor(scope: Construct, id: string, props: InboundAttachmentsProps) {
    super(scope, id, 'InboundAttachments', props, constructorProblems(props));
    // Log delivery by bucket policy (scoped to the attachment bucket) instead of the legacy
    // LogDeliveryWrite ACL; set here, before any child exists, so it holds in any app.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const services = InboundAttachments.SERVICES;

    this.accessLogsBucket = new Bucket(this, 'access-logs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // SSE-S3, not the stack's KMS key: S3 server access logging cannot deliver to a target
      // bucket whose default encryption is SSE-KMS (only SSE-S3 destinations are supported).
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.accessLogsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This is the server access log bucket of the attachment bucket. Logging a log bucket would need a further bucket, whose own logs would need another; S3 writes here through the bucket policy only, and nothing else may write.',
    });

    this.bucket = new Bucket(this, 'bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      ...(props.encryptionKey
        ? {
            encryption: BucketEncryption.KMS,
            encryptionKey: props.encryptionKey,
            // One data key per bucket instead of one KMS request per object: cheaper and faster.
            bucketKeyEnabled: true,
          }
        : { encryption: BucketEncryption.S3_MANAGED }),
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Each attachment is written once; versions would only keep deleted files past expiry.
      versioned: false,
      lifecycleRules: [
        {
          id: 'attachments',
          expiration: Duration.days(props.expireAfterDays ?? 365),
          ...(props.infrequentAccessAfterDays === undefined
            ? {}
            : {
                transitions: [
                  {
                    storageClass: StorageClass.INFREQUENT_ACCESS,
                    transitionAfter: Duration.days(props.infrequentAccessAfterDays),
                  },
                ],
              }),
          // A function that dies mid-upload leaves invisible parts behind; they are billed.
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'attachments/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const attachmentFunction = (
      name: string,
      description: string,
      timeout: Duration,
      extraStateActions: readonly string[],
      extraEnvironment: Readonly<Record<string, string>> = {},
    ) => {
      const fn = new GatewayFunction(this, name, {
        gateway: props.gateway,
        egress: props.egress,
        credentials: props.credentials,
        stateTable: props.stateTable,
        metricsNamespace: this.metricsNamespace,
        entry: join(import.meta.dirname, `../functions/${name}.ts`),
        description,
        timeout,
        // Hashing and TLS on both sides are CPU-bound, and Lambda's CPU grows with memory.
        memorySize: 512,
        environment: {
          EVENT_TABLE_NAME: props.eventTable.tableName,
          ATTACHMENT_BUCKET: this.bucket.bucketName,
          ATTACHMENT_PREFIX: KEY_PREFIX,
          EVENT_RETENTION_DAYS: String(props.eventRetentionDays ?? 35),
          // Content URLs: https on the gateway's hosts (GATEWAY_*_URL) and these extra hosts only
          // (none: empty).
          ATTACHMENT_CONTENT_HOSTS: (props.contentHosts ?? []).join(','),
          ...extraEnvironment,
        },
        // Token and its lease; pending markers (ATTACHMENT#…) are read, written and deleted.
        stateTableActions: [...TOKEN_PROVIDER_STATE_ACTIONS, ...extraStateActions],
        logEncryptionKey: props.encryptionKey,
      });
      // Attachment events (conditional PutItem) and the check whether one exists (GetItem).
      grantTableItemActions(props.eventTable, fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
      this.grantObjectWrites(fn);
      return fn;
    };
    this.fetchAttachments = attachmentFunction(
      services.fetch,
      'msgbridge: event table stream (inbound messages with attachments) → gateway files → S3',
      Duration.minutes(5),
      [],
    );
    this.sweepAttachments = attachmentFunction(
      services.sweep,
      'msgbridge: retries failed attachment downloads; reports those past 7 days as lost',
      Duration.minutes(5),
      // `due` scans the small state table for markers.
      ['dynamodb:Scan'],
      // A minute of its five is left for the last download and the metrics.
      { SWEEP_MARGIN_MS: '60000' },
    );

    this.onFailureQueue = consumeTableStream(this, this.fetchAttachments, props.eventTable, {
      eventSourceName: 'the attachments stream event source',
      encryptionKey: props.encryptionKey,
      // Inserts of inbound messages with attachments only (evaluated as Lambda filters).
      pattern: ATTACHMENT_RECORD_PATTERN,
      batchSize: 10,
      // Each invocation downloads one message at a time (memory), so a shard's messages are
      // fetched ten batches at once; order does not matter between messages.
      parallelizationFactor: 10,
      retryAttempts: 5,
      maxRecordAge: Duration.days(1),
    });

    this.sweepSchedule = new FunctionSchedule(this, `${services.sweep}-schedule`, {
      target: this.sweepAttachments,
      rate: Duration.minutes(15),
      // Markers stay due, so the next run is the retry.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(10),
      description: 'msgbridge sweep-attachments: every 15 minutes, no retries',
    });

    const alarm = (alarmId: string, description: string, metric: IMetric) =>
      alarmAbove(this, alarmId, { description, anchor: 'inbound-attachments', metric });
    const fifteenMinutes = Duration.minutes(15);
    const lost = (service: string) =>
      new Metric({
        namespace: this.metricsNamespace,
        metricName: 'AttachmentsLost',
        dimensionsMap: { service },
        statistic: Stats.SUM,
        period: fifteenMinutes,
      });
    this.attachmentsLost = alarm(
      'attachments-lost',
      'msgbridge: attachments could not be fetched within the 7-day window of the gateway and are lost; each is an "Inbound Attachment Lost" event.',
      new MathExpression({
        expression: 'FILL(fetch, 0) + FILL(sweep, 0)',
        usingMetrics: { fetch: lost(services.fetch), sweep: lost(services.sweep) },
        period: fifteenMinutes,
        label: 'Attachments lost',
      }),
    );
    this.onFailureQueueNotEmpty = alarm(
      'attachments-on-failure-queue-not-empty',
      'msgbridge: fetch-attachments gave up on stream records after 5 retries; each message names a shard and sequence range. The inbound messages are stored and published; their attachments have pending markers (written before the first download), so sweep-attachments retries them and ends each in a Stored or Lost event.',
      this.onFailureQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: Stats.MAXIMUM,
      }),
    );
    this.sweepErrors = alarm(
      'attachment-sweep-errors',
      'msgbridge: sweep-attachments failed on our side (S3 or DynamoDB); its pending attachments stay due for the next run.',
      this.sweepAttachments.metricErrors({ period: fifteenMinutes, statistic: Stats.SUM }),
    );

    notifyAlarmTopic(this, props.alarmTopicArn, this.alarms);
  }

  /** Every alarm of the attachments path. */
  public get alarms(): Alarm[] {
    return [this.attachmentsLost, this.onFailureQueueNotEmpty, this.sweepErrors];
  }

  /**
   * Writes below the key prefix only: `PutObject` (also every multipart call that creates or
   * completes an upload), `AbortMultipartUpload` and `ListMultipartUploadParts` for the streamed
   * upload, and `GetObject` because the size and checksum reach the object's metadata by a copy
   * of the object onto itself (CopyObject reads its source). Under SSE-KMS, also
   * `kms:GenerateDataKey` (a new object's data key) and `kms:Decrypt` (multipart parts and the
   * copy's source) on the bucket's key.
   */
  private grantObjectWrites(fn: GatewayFunction): void {
    const objects = this.bucket.arnForObjects(`${KEY_PREFIX}*`);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [...OBJECT_UPLOAD_ACTIONS],
        resources: [objects],
      }),
    );
    this.bucket.encryptionKey?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    const cfnBucket = this.bucket.node.defaultChild;
    if (!CfnElement.isCfnElement(cfnBucket))
      throw new Error('the attachment bucket has no CfnBucket');
    const bucketId = Stack.of(this).getLogicalId(cfnBucket);
    if (fn.role)
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${KEY_PREFIX}*]`,
        reason: `Each attachment is a new object whose key (${KEY_PREFIX}<date>/<moKey>/<index>-<name>) is only known at run time, so the function may write any object below ${KEY_PREFIX} of the attachment bucket (and read it back, for the copy that sets its size and checksum metadata), and nothing else: no list, no delete, no other prefix or bucket.`,
      });
  }
}
