import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { gatherer } from '../../commons/helpers/gather.ts';
import type { AwaitingReports, ReportCheck } from '../ports.ts';
import {
  type PutBackEntry,
  parseReportCheck,
  type ReceivedCheck,
  type ReportCheckQueue,
  reportCheckBody,
} from '../report-checks.ts';

/** Messages per `SendMessageBatch` (SQS's limit). */
const SQS_BATCH = 10;

/**
 * The report-check queue on SQS, as its writers use it: the sender's `expect` puts a check on it
 * (the queue's own delay holds it back), and reconcile-status puts back, delayed, the checks it
 * received too early or left pending (`later`).
 */
export class SqsReportChecks implements AwaitingReports {
  private readonly gathered: ((check: ReportCheck) => Promise<void>) | undefined;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    /**
     * `gatherMs` above 0: the checks `expect`ed within that long of one another go out together,
     * up to 10 in one `SendMessageBatch` (the concurrent records of a batch: one request instead
     * of ten; a check alone goes as a `SendMessage`). Each caller still waits for its own check
     * only, and a check SQS did not take fails its own caller only.
     * @default 0 (one `SendMessage` per check)
     */
    { gatherMs = 0 }: { readonly gatherMs?: number } = {},
  ) {
    this.gathered =
      gatherMs > 0
        ? gatherer<ReportCheck, void>({
            capacity: SQS_BATCH,
            gatherMs,
            flush: async (checks) => {
              const [only] = checks;
              if (checks.length === 1 && only) {
                await this.sendOne(only);
                return [{ ok: true, value: undefined }];
              }
              return (await this.send(checks.map((check) => ({ check })))).map((queued) =>
                queued
                  ? { ok: true, value: undefined }
                  : { ok: false, error: new Error('SQS did not take the report check') },
              );
            },
          })
        : undefined;
  }

  /** Queues `check`, resolving once SQS has it. */
  expect(check: ReportCheck): Promise<void> {
    return this.gathered ? this.gathered(check) : this.sendOne(check);
  }

  private async sendOne(check: ReportCheck): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: reportCheckBody(check) }),
    );
  }

  /**
   * Queues each check `delaySeconds` (0–900) from now, 10 per `SendMessageBatch`; a failed entry
   * is tried once more. Answers, per entry, whether SQS has it.
   */
  later(
    entries: ReadonlyArray<{ readonly check: ReportCheck; readonly delaySeconds: number }>,
  ): Promise<boolean[]> {
    return this.send(entries);
  }

  /** `SendMessageBatch` calls of 10, each failed entry tried once more; the queue's delay without `delaySeconds`. */
  private async send(
    entries: ReadonlyArray<{ readonly check: ReportCheck; readonly delaySeconds?: number }>,
  ): Promise<boolean[]> {
    const queued = entries.map(() => false);
    for (let start = 0; start < entries.length; start += SQS_BATCH) {
      let batch = entries.slice(start, start + SQS_BATCH).map(({ check, delaySeconds }, i) => ({
        Id: String(start + i),
        MessageBody: reportCheckBody(check),
        ...(delaySeconds === undefined
          ? {}
          : { DelaySeconds: Math.max(0, Math.min(900, Math.round(delaySeconds))) }),
      }));
      for (let attempt = 0; attempt < 2 && batch.length > 0; attempt++) {
        const answer = await this.sqs.send(
          new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: batch }),
        );
        for (const ok of answer.Successful ?? []) queued[Number(ok.Id)] = true;
        batch = batch.filter((entry) => !queued[Number(entry.Id)]);
      }
    }
    return queued;
  }
}

/**
 * The checks of one batch the report-check queue's event source delivered, as reconcile-status
 * reads them: `receive` hands each record out once, `finish` marks records done (Lambda deletes
 * them after the invocation), `putBack` queues a check anew through `writer` and marks its record
 * done. What is not done by the end is named in the invocation's batch item failures
 * (`unfinished`), so it comes back after the queue's visibility timeout. A message the batch holds
 * twice is handed out once.
 */
export class BatchReportChecks implements ReportCheckQueue {
  private readonly records: ReadonlyArray<{ readonly received: ReceivedCheck }>;
  private handedOut = 0;
  private readonly done = new Set<string>();

  constructor(
    records: readonly SQSRecord[],
    private readonly writer: Pick<SqsReportChecks, 'later'>,
  ) {
    // A standard queue delivers at least once: a batch can hold one message twice. It is one
    // check, read once; its message id names it in the batch item failures.
    const once = [...new Map(records.map((record) => [record.messageId, record])).values()];
    this.records = once.map((record) => {
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1');
      const common = { id: record.messageId, messageId: record.messageId, receiveCount };
      const parsed = parseReportCheck(record.body);
      return {
        received:
          'check' in parsed
            ? { ...common, check: parsed.check }
            : { ...common, problem: parsed.problem, body: record.body.slice(0, 1_000) },
      };
    });
  }

  async receive(max: number): Promise<readonly ReceivedCheck[]> {
    const next = this.records.slice(this.handedOut, this.handedOut + Math.max(1, max));
    this.handedOut += next.length;
    return next.map(({ received }) => received);
  }

  async finish(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.done.add(id);
  }

  async putBack(entries: readonly PutBackEntry[]): Promise<number> {
    const queued = await this.writer.later(entries);
    let count = 0;
    entries.forEach((entry, i) => {
      if (!queued[i]) return;
      this.done.add(entry.id);
      count += 1;
    });
    return count;
  }

  /** The message ids of the batch that are not done: the invocation's batch item failures. */
  unfinished(): string[] {
    return this.records.map(({ received }) => received.id).filter((id) => !this.done.has(id));
  }
}
