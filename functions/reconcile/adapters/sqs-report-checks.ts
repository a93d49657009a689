import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
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
    /** How long a check waits for others to go out with it. */
    private readonly lingerMs = 20,
  ) {}

  private pending: Array<{
    readonly body: string;
    readonly done: { resolve: () => void; reject: (error: Error) => void };
  }> = [];
  private flushTimer: NodeJS.Timeout | undefined;

  /**
   * Queues `check`, resolving once SQS has it. Checks queued within `lingerMs` of each other (the
   * records of one invocation, handled concurrently) go out together, up to 10 per
   * `SendMessageBatch`: one request instead of ten. A check SQS refuses rejects its own call only.
   */
  expect(check: ReportCheck): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ body: reportCheckBody(check), done: { resolve, reject } });
      if (this.pending.length >= SQS_BATCH) this.flush();
      else this.flushTimer ??= setTimeout(() => this.flush(), this.lingerMs);
    });
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, SQS_BATCH);
      void this.sendBatch(batch);
    }
  }

  private async sendBatch(
    batch: ReadonlyArray<{
      readonly body: string;
      readonly done: { resolve: () => void; reject: (error: Error) => void };
    }>,
  ): Promise<void> {
    try {
      const answer = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((item, index) => ({ Id: String(index), MessageBody: item.body })),
        }),
      );
      // SendMessageBatch is a partial-failure API: each entry is answered on its own.
      const failed = new Map((answer.Failed ?? []).map((failure) => [failure.Id, failure]));
      batch.forEach((item, index) => {
        const failure = failed.get(String(index));
        if (failure === undefined) item.done.resolve();
        else
          item.done.reject(
            new Error(
              `the report-check queue refused a check: ${failure.Code ?? ''} ${failure.Message ?? ''}`.trim(),
            ),
          );
      });
    } catch (error) {
      for (const item of batch) item.done.reject(error as Error);
    }
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
