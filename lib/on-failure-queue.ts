import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  type DlqDestinationConfig,
  FilterCriteria,
  type IEventSourceDlq,
  type IEventSourceMapping,
  type IFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type IQueue, Queue, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { queueEncryption } from './queue-encryption.ts';

/** What a queue of what failed is: encrypted, TLS only, its messages kept 14 days. */
const deadLetterStore = (encryptionKey: IKey | undefined): QueueProps => ({
  ...queueEncryption(encryptionKey),
  enforceSSL: true,
  retentionPeriod: Duration.days(14),
});

/**
 * The dead-letter queue of a queue whose messages nobody else has a copy of: encrypted, TLS only,
 * kept 14 days, and left in place when the stack is deleted, to be drained or redriven.
 */
export const createRetainedDeadLetterQueue = (
  scope: Construct,
  id: string,
  encryptionKey?: IKey,
): Queue =>
  new Queue(scope, id, { ...deadLetterStore(encryptionKey), removalPolicy: RemovalPolicy.RETAIN });

/**
 * The on-failure destination of a stream event source: encrypted, TLS only, kept 14 days. It is
 * itself a dead-letter store, so it gets no DLQ of its own; callers alarm on its depth.
 */
export const createOnFailureQueue = (
  scope: Construct,
  eventSource: string,
  encryptionKey?: IKey,
): Queue => {
  const queue = new Queue(scope, 'on-failure-queue', deadLetterStore(encryptionKey));
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself a dead-letter store: the on-failure destination of ${eventSource}. Its messages are never consumed automatically, so a further DLQ would never receive anything; an alarm fires as soon as it holds a message.`,
  });
  return queue;
};

/**
 * Lets a principal put messages on a queue, and nothing more: the SQS actions of CDK's
 * `grantSendMessages`, and of a customer managed key only what SQS asks for on a send
 * (`kms:GenerateDataKey` for the message's data key, `kms:Decrypt` to reuse a cached one), not
 * the `kms:Encrypt`, `kms:ReEncrypt*` and `kms:GenerateDataKey*` that `grantSendMessages` adds.
 */
export const grantQueueSend = (queue: IQueue, grantee: IGrantable): Grant => {
  const send = queue.grant(grantee, 'sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl');
  const key = grantQueueKeyForSend(queue, grantee);
  return key ? send.combine(key) : send;
};

/**
 * What SQS asks of a sender on the queue's customer managed key, for a grantee whose SQS
 * permission comes from elsewhere (a function's `deadLetterQueue`); nothing for other queues.
 */
export const grantQueueKeyForSend = (queue: IQueue, grantee: IGrantable): Grant | undefined =>
  queue.encryptionMasterKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');

/**
 * `SqsDlq` with `grantQueueSend` instead of `grantSendMessages`: Lambda sends the pointers to
 * failed stream batches with the function's role, which may send to this queue only.
 */
export class OnFailureQueueDestination implements IEventSourceDlq {
  constructor(private readonly queue: IQueue) {}

  bind(_target: IEventSourceMapping, targetHandler: IFunction): DlqDestinationConfig {
    grantQueueSend(this.queue, targetHandler);
    return { destination: this.queue.queueArn };
  }
}

/**
 * Makes `fn` a consumer of `table`'s stream the way every stream consumer of msgbridge reads it:
 * from the oldest record, only the records matching `pattern` (filtered before any invocation),
 * failed batches bisected and retried, the records the handler names as failed retried alone,
 * and what still fails after the retries or grows too old handed as a pointer to an on-failure
 * queue created in `scope` (`createOnFailureQueue`), which it returns. The event source grants
 * reading the stream (with kms:Decrypt on the table's key); the destination grants sending to
 * the queue.
 */
export const consumeTableStream = (
  scope: Construct,
  fn: IFunction,
  table: ITableV2,
  stream: {
    /** What the queue's cdk-nag acknowledgement calls the event source. */
    readonly eventSourceName: string;
    readonly encryptionKey?: IKey | undefined;
    readonly pattern: Record<string, unknown>;
    readonly batchSize: number;
    /** Batches of a shard handled at once, in order per partition key (1 to 10). */
    readonly parallelizationFactor: number;
    readonly retryAttempts: number;
    readonly maxRecordAge: Duration;
  },
): Queue => {
  const onFailureQueue = createOnFailureQueue(scope, stream.eventSourceName, stream.encryptionKey);
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: stream.batchSize,
      parallelizationFactor: stream.parallelizationFactor,
      bisectBatchOnError: true,
      retryAttempts: stream.retryAttempts,
      reportBatchItemFailures: true,
      maxRecordAge: stream.maxRecordAge,
      filters: [FilterCriteria.filter(stream.pattern)],
      onFailure: new OnFailureQueueDestination(onFailureQueue),
    }),
  );
  return onFailureQueue;
};
