import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import { type Alarm, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RECONCILE_DEFAULTS } from '../functions/reconcile/reconcile-ports.ts';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';
import { createRetainedDeadLetterQueue, grantQueueSend } from './on-failure-queue.ts';
import { queueEncryption } from './queue-encryption.ts';

/** How long `reconcile-status` may run; a received check stays hidden a minute longer. */
export const RECONCILE_TIMEOUT = Duration.minutes(5);
/** How often `reconcile-status` runs. */
export const RECONCILE_RATE = Duration.minutes(15);
/** SQS keeps a message 14 days at most: a check must be finished or expired by then. */
export const MAX_RECONCILE_HORIZON_HOURS = 13 * 24;

export interface ReportCheckQueueProps {
  /** `reconcile.afterMinutes`: a check is held back this long, 15 minutes at most (SQS's limit). */
  readonly afterMinutes?: number;
  /** `reconcile.horizonHours`: the queue keeps a check a day longer. */
  readonly horizonHours?: number;
  /** @default - SQS-managed encryption */
  readonly encryptionKey?: IKey;
  /** Where the DLQ alarm notifies. @default - no action */
  readonly alarmTopicArn?: string;
}

/**
 * The report-check queue: `send-messages` puts one check per attempt's accepted recipients on it,
 * and `reconcile-status` reads the due ones, asks about the recipients whose report is missing,
 * and deletes a check once all of its recipients are settled (functions/send-records/report-checks.ts).
 *
 * The queue holds each check back `afterMinutes` (at most 15), and its event source hands the
 * checks to `reconcile-status` as they become visible; a check received before it is due, or with
 * a recipient still pending, is put back as a new message delayed until its next look, so none
 * waits received (in flight). A check an invocation did not finish (it failed, or timed out)
 * comes back after the visibility timeout, six times the function's timeout as Lambda advises
 * for an event source. It keeps a check a day past the horizon, after which `reconcile-status`
 * deletes it unasked; a check that cannot be read, or fails `MAX_CHECK_RECEIVES` times, ends in
 * the DLQ, which alarms.
 */
/**
 * Receipts of one message before it goes to the DLQ. A check is received once per look (a check
 * put back is a new message), so only a check that cannot be read, or whose invocations fail
 * again and again, comes back this often.
 */
export const MAX_CHECK_RECEIVES = 10;

export class ReportCheckQueue extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  /** The DLQ holds a check. */
  public readonly deadLetterQueueNotEmpty: Alarm;
  /** Seconds a received check stays hidden: six times `reconcile-status`'s timeout. */
  public readonly visibilityTimeoutSeconds: number;

  constructor(scope: Construct, id: string, props: ReportCheckQueueProps = {}) {
    super(scope, id);
    const afterMinutes = props.afterMinutes ?? RECONCILE_DEFAULTS.afterMinutes;
    const horizonHours = props.horizonHours ?? RECONCILE_DEFAULTS.horizonHours;
    const known = (value: number) => !Token.isUnresolved(value);
    this.visibilityTimeoutSeconds = 6 * RECONCILE_TIMEOUT.toSeconds();

    this.deadLetterQueue = createRetainedDeadLetterQueue(
      this,
      'report-check-dlq',
      props.encryptionKey,
    );
    this.queue = new Queue(this, 'report-check-queue', {
      ...queueEncryption(props.encryptionKey),
      enforceSSL: true,
      deliveryDelay: Duration.minutes(known(afterMinutes) ? Math.min(15, afterMinutes) : 15),
      visibilityTimeout: Duration.seconds(this.visibilityTimeoutSeconds),
      retentionPeriod: known(horizonHours)
        ? Duration.hours(Math.min(14 * 24, horizonHours + 24))
        : Duration.days(14),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_CHECK_RECEIVES },
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetterQueueNotEmpty = alarmAbove(this, 'report-check-dlq-not-empty', {
      description:
        'msgbridge: a report check is in the report-check DLQ: it could not be read, or its recipients stayed undecided (REG/ING) for longer than the reconcile horizon; their reports, if they come, are still stored.',
      anchor: 'the-report-check-queue',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: Stats.MAXIMUM,
      }),
    });
    notifyAlarmTopic(this, props.alarmTopicArn, [this.deadLetterQueueNotEmpty]);
  }

  /** Lets the sender (and reconcile-status, for the acceptances it finds) put checks on it. */
  public grantSend(grantee: IGrantable): void {
    grantQueueSend(this.queue, grantee);
  }

  /** Lets reconcile-status receive and delete checks (and decrypt them). */
  public grantConsume(grantee: IGrantable): void {
    this.queue.grantConsumeMessages(grantee);
  }
}
