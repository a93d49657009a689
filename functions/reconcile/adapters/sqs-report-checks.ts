import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { AwaitingReports, ReportCheck } from '../../sending/ports.ts';
import {
  parseReportCheck,
  type ReceivedCheck,
  type ReportCheckQueue,
  reportCheckBody,
} from '../report-checks.ts';

/** Messages per `ReceiveMessage` and per `DeleteMessageBatch` (SQS's limit). */
const SQS_BATCH = 10;

/**
 * The report-check queue on SQS: the sender's `expect` puts a check on it (the queue's own delay
 * holds it back); reconcile-status receives checks with a visibility timeout longer than its run
 * and deletes the finished ones.
 */
export class SqsReportChecks implements AwaitingReports, ReportCheckQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    /** How long a received check stays invisible: longer than a reconcile run. */
    private readonly visibilityTimeoutSeconds = 600,
  ) {}

  /**
   * Queues `check`, resolving once SQS has it. One `SendMessage` per check: batching the checks of
   * an invocation's records into one `SendMessageBatch` would need a batch per invocation, which a
   * container-wide adapter cannot tell apart (the local run's concurrent stand-ins share one).
   */
  async expect(check: ReportCheck): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: reportCheckBody(check) }),
    );
  }

  async receive(max: number): Promise<readonly ReceivedCheck[]> {
    const answer = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: Math.max(1, Math.min(SQS_BATCH, max)),
        VisibilityTimeout: this.visibilityTimeoutSeconds,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    return (answer.Messages ?? []).flatMap((message): ReceivedCheck[] => {
      if (message.ReceiptHandle === undefined) return [];
      const id = message.ReceiptHandle;
      const messageId = message.MessageId ?? id;
      const receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? '1');
      const body = message.Body ?? '';
      const parsed = parseReportCheck(body);
      return 'check' in parsed
        ? [{ id, messageId, receiveCount, check: parsed.check }]
        : [{ id, messageId, receiveCount, problem: parsed.problem, body: body.slice(0, 1_000) }];
    });
  }

  async finish(ids: readonly string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += SQS_BATCH) {
      let entries = ids
        .slice(start, start + SQS_BATCH)
        .map((ReceiptHandle, index) => ({ Id: String(index), ReceiptHandle }));
      // DeleteMessageBatch is a partial-failure API: a failed entry is tried once more; one that
      // fails again only comes back later, and checking it again stores nothing twice.
      for (let attempt = 0; attempt < 2 && entries.length > 0; attempt++) {
        const answer = await this.sqs.send(
          new DeleteMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }),
        );
        const failed = new Set((answer.Failed ?? []).map((failure) => failure.Id));
        entries = entries.filter((entry) => failed.has(entry.Id));
      }
    }
  }
}
