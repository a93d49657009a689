import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { type Alarm, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnEventBus, type EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';

export interface EventBusDeadLetterQueueProps {
  /** Where the alarm notifies. @default - no action */
  readonly alarmTopicArn?: string;
}

/**
 * The dead-letter queue of an event bus encrypted with a customer managed key. EventBridge sends
 * it the custom events it cannot encrypt or decrypt with the key while processing them on the bus
 * (a key disabled, deleted or no longer allowing EventBridge); without it such an event is lost
 * after `PutEvents` accepted it, and the publisher has marked it published. EventBridge user
 * guide, "Using dead-letter queues to capture encrypted event errors in EventBridge",
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-encryption-event-bus-dlq.html
 * (read 2026-12-07), and "Encrypting EventBridge event buses with AWS KMS keys", which strongly
 * recommends one, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-encryption-event-bus-cmkey.html
 * (read 2026-12-07).
 *
 * Unlike the stack's other queues it is encrypted with SQS-managed keys (SSE-SQS), not the data
 * key: under a customer managed key SQS needs `kms:GenerateDataKey` and `kms:Decrypt` on that key
 * for every message sent (SQS developer guide, "Amazon SQS Key management",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html,
 * read 2026-12-07), so a data key that is disabled or deleted, the first cause EventBridge names
 * for sending here, would refuse these messages too and the events would be lost all the same.
 * SSE-SQS keys belong to SQS and need no key policy. TLS only, messages kept 14 days like every
 * DLQ of the stack, an alarm as soon as it holds one. Not retained: each event in it is also an
 * item of the retained event table.
 *
 * Create it before the bus (the bus's `deadLetterQueue`), then `acceptFrom(bus)`.
 */
export class EventBusDeadLetterQueue extends Construct {
  public readonly queue: Queue;
  /** The queue holds an event. */
  public readonly notEmpty: Alarm;

  constructor(scope: Construct, id: string, props: EventBusDeadLetterQueueProps = {}) {
    super(scope, id);
    this.queue = new Queue(this, 'queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter store: the event bus sends it the events it could not encrypt or decrypt. Nothing consumes it automatically, so a further DLQ would never receive anything; an alarm fires as soon as it holds a message.',
    });
    this.notEmpty = alarmAbove(this, 'event-bus-dlq-not-empty', {
      description:
        'msgbridge: EventBridge could not encrypt or decrypt an event on the bus with the data key (key disabled, deleted, or its policy no longer allows EventBridge) and sent it to the event bus DLQ; subscribers did not get it, though the publisher counted it published.',
      anchor: 'the-event-bus-dlq',
      metric: this.queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: Stats.MAXIMUM,
      }),
    });
    notifyAlarmTopic(this, props.alarmTopicArn, [this.notEmpty]);
  }

  /**
   * Lets `bus` deliver its failed events here: the queue policy statement EventBridge needs for an
   * event bus DLQ, `sqs:SendMessage` for `events.amazonaws.com` only with `aws:SourceArn` of this
   * bus (EventBridge user guide, "Using dead-letter queues to process undelivered events in
   * EventBridge", event bus example, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html,
   * read 2026-12-07). The bus is named by the ARN built from its name, as the archive's key
   * statement names it (lib/event-publisher.ts): the same value, and no dependency on the bus.
   */
  public acceptFrom(bus: EventBus): void {
    const cfnBus = bus.node.defaultChild;
    const busArn = Stack.of(this).formatArn({
      service: 'events',
      resource: 'event-bus',
      resourceName: cfnBus instanceof CfnEventBus ? cfnBus.name : bus.eventBusName,
    });
    this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowTheEventBusToSendItsFailedEvents',
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': busArn } },
      }),
    );
  }
}
