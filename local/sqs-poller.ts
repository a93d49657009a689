import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

export interface SqsPollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  /** Handles one record; resolving deletes the message, throwing leaves it for redelivery. */
  readonly handler: (record: SQSRecord) => Promise<unknown>;
  /** Batches in flight at once (Lambda's event-source `maxConcurrency`). */
  readonly concurrency?: number;
  readonly batchSize?: number;
  readonly onError?: (error: unknown) => void;
  /**
   * Runs one invocation: the records of one receive, handled together as Lambda hands them to one
   * function call. If it rejects (the function crashed, timed out or was killed), no record of
   * the batch is deleted, the ones already handled included — they all come back.
   * @default runs the batch as it is
   */
  readonly invocation?: (run: () => Promise<void>) => Promise<void>;
}

export interface SqsPoller {
  stop(): Promise<void>;
  readonly stats: { received: number; succeeded: number; failed: number };
}

/**
 * A local stand-in for Lambda's SQS event source: long-polls the queue, hands each batch to one
 * invocation (each message to the handler as an SQS record), deletes the ones handled once the
 * invocation returned, and leaves failures — or the whole batch, when the invocation died — to come
 * back after their visibility timeout, where the queue's redrive policy moves them to the DLQ in
 * the end.
 */
export const startSqsPoller = (options: SqsPollerOptions): SqsPoller => {
  const stats = { received: 0, succeeded: 0, failed: 0 };
  let running = true;
  const aborter = new AbortController();
  const invocation = options.invocation ?? ((run: () => Promise<void>) => run());
  const worker = async () => {
    while (running) {
      try {
        const answer = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: options.batchSize ?? 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: aborter.signal },
        );
        const messages = answer.Messages ?? [];
        if (messages.length === 0) continue;
        stats.received += messages.length;
        const handled: Message[] = [];
        let failed = 0;
        const run = async () => {
          await Promise.all(
            messages.map(async (message) => {
              try {
                await options.handler(toRecord(message, options.queueArn));
                handled.push(message);
              } catch (error) {
                failed += 1;
                if ((error as Error).name !== 'SendRetryLaterError') options.onError?.(error);
              }
            }),
          );
        };
        try {
          await invocation(run);
        } catch (error) {
          // The invocation died: Lambda deletes nothing of its batch, so every record comes back.
          stats.failed += messages.length;
          options.onError?.(error);
          continue;
        }
        stats.failed += failed;
        // Like Lambda's event source, the records handled are deleted together once the
        // invocation has returned (DeleteMessageBatch, 10 at a time); one SQS refuses to delete
        // comes back after its visibility timeout, as it would deployed.
        for (let start = 0; start < handled.length; start += 10) {
          const batch = handled.slice(start, start + 10);
          const answer = await options.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: options.queueUrl,
              Entries: batch.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.ReceiptHandle,
              })),
            }),
          );
          stats.succeeded += batch.length - (answer.Failed ?? []).length;
        }
      } catch (error) {
        if (!running) return;
        options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const workers = Array.from({ length: options.concurrency ?? 2 }, worker);
  return {
    stats,
    stop: async () => {
      running = false;
      aborter.abort();
      await Promise.allSettled(workers);
    },
  };
};

const toRecord = (message: Message, queueArn: string): SQSRecord =>
  ({
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp:
        message.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'ap-northeast-2',
  }) as SQSRecord;
