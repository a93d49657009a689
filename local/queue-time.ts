import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';

/**
 * Lets the time pass for one queue of the local run that a bench or chaos run cannot wait for:
 * every delayed message is delivered now, and every message in flight becomes visible now (the
 * report checks: held back 15 minutes by the queue's delivery delay or a put-back's, or hidden for
 * the visibility timeout after a failed invocation). The tests check the holding itself.
 */
export const elapseQueueTime = async (
  fauxqs: FauxqsServer,
  sqs: SQSClient,
  queueName: string,
  /**
   * Only messages received at least this long ago come back: one an invocation is still working
   * on stays with it (a failed invocation's messages are the ones to bring back). @default 0
   */
  { receivedMsAgo = 0 }: { readonly receivedMsAgo?: number } = {},
) => {
  const queue = fauxqs.inspectQueue(queueName);
  if (!queue) throw new Error(`no queue ${queueName}`);
  const now = Date.now();
  const visibilityMs = Number(queue.attributes.VisibilityTimeout ?? '30') * 1_000;
  // fauxqs hands out its own message objects: a delay that ended now is delivered at once.
  for (const message of queue.messages.delayed) message.delayUntil = now;
  const settled = queue.messages.inflight.filter(
    (entry) => entry.visibilityDeadline - visibilityMs <= now - receivedMsAgo,
  );
  for (const entry of settled)
    await sqs
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queue.url,
          ReceiptHandle: entry.receiptHandle,
          VisibilityTimeout: 0,
        }),
      )
      .catch((error: unknown) => {
        // Deleted since it was listed: finished, nothing to pass.
        if ((error as { name?: string }).name !== 'MessageNotInflight') throw error;
      });
};

/** Messages of a queue that are visible, delayed and in flight, as fauxqs holds them. */
export const queueCounts = (fauxqs: FauxqsServer, queueName: string) => {
  const queue = fauxqs.inspectQueue(queueName);
  if (!queue) throw new Error(`no queue ${queueName}`);
  const visible = queue.messages.ready.length;
  const delayed = queue.messages.delayed.length;
  const inflight = queue.messages.inflight.length;
  return { visible, delayed, inflight, total: visible + delayed + inflight };
};
