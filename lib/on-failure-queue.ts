import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * The on-failure destination of a stream event source: encrypted, TLS only, kept 14 days. It is
 * itself a dead-letter store, so it gets no DLQ of its own; callers alarm on its depth.
 */
export const createOnFailureQueue = (scope: Construct, eventSource: string): Queue => {
  const queue = new Queue(scope, 'on-failure-queue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself a dead-letter store: the on-failure destination of ${eventSource}. Its messages are never consumed automatically, so a further DLQ would never receive anything; an alarm fires as soon as it holds a message.`,
  });
  return queue;
};
