import type { AwaitingReports, ReportCheck } from '../../functions/send-records/ports.ts';
import {
  type PutBackEntry,
  parseReportCheck,
  type ReceivedCheck,
  type ReportCheckQueue,
  reportCheckBody,
} from '../../functions/send-records/report-checks.ts';

interface Stored {
  readonly messageId: string;
  readonly body: string;
  visibleAt: number;
  receiveCount: number;
  receipt: string | undefined;
}

/**
 * The report-check queue in memory, with the SQS behaviour reconcile-status relies on, on a clock
 * the test drives: a message sent with `delayMs` is invisible until then; a received one is
 * invisible for `visibilityMs` and comes back unless finished with its latest receipt; a stale
 * receipt deletes nothing; a check put back is a new message, delayed as asked; the body goes
 * through the same JSON as on SQS.
 */
export class MemoryReportChecks implements AwaitingReports, ReportCheckQueue {
  private readonly messages: Stored[] = [];
  private next = 0;
  /** Checks queued, in order (what the sender or reconcile-status put on the queue). */
  readonly sent: ReportCheck[] = [];

  constructor(
    private readonly now: () => number,
    private readonly options: { readonly visibilityMs: number; readonly delayMs?: number } = {
      visibilityMs: 600_000,
    },
  ) {}

  async expect(check: ReportCheck): Promise<void> {
    this.sent.push(check);
    this.sendRaw(reportCheckBody(check));
  }

  /** Puts a body on the queue as it is (an unreadable check, say). */
  sendRaw(body: string, delayMs = this.options.delayMs ?? 0): void {
    this.next += 1;
    this.messages.push({
      messageId: `m-${this.next}`,
      body,
      visibleAt: this.now() + delayMs,
      receiveCount: 0,
      receipt: undefined,
    });
  }

  async receive(max: number): Promise<readonly ReceivedCheck[]> {
    const now = this.now();
    const visible = this.messages.filter((m) => m.visibleAt <= now).slice(0, Math.min(10, max));
    return visible.map((message) => {
      this.next += 1;
      message.receipt = `r-${this.next}`;
      message.receiveCount += 1;
      message.visibleAt = now + this.options.visibilityMs;
      const parsed = parseReportCheck(message.body);
      const common = {
        id: message.receipt,
        messageId: message.messageId,
        receiveCount: message.receiveCount,
      };
      return 'check' in parsed
        ? { ...common, check: parsed.check }
        : { ...common, problem: parsed.problem, body: message.body };
    });
  }

  async finish(ids: readonly string[]): Promise<void> {
    const finished = new Set(ids);
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const receipt = this.messages[i]?.receipt;
      if (receipt !== undefined && finished.has(receipt)) this.messages.splice(i, 1);
    }
  }

  /** Checks put back (with the delay each was given), in order. */
  readonly putBacks: Array<{ readonly check: ReportCheck; readonly delaySeconds: number }> = [];

  async putBack(entries: readonly PutBackEntry[]): Promise<number> {
    for (const { check, delaySeconds } of entries) {
      this.putBacks.push({ check, delaySeconds });
      this.sendRaw(reportCheckBody(check), delaySeconds * 1_000);
    }
    await this.finish(entries.map((entry) => entry.id));
    return entries.length;
  }

  /** Messages still on the queue (visible or not). */
  get size(): number {
    return this.messages.length;
  }

  /** The checks still on the queue, parsed, in order. */
  pending(): ReportCheck[] {
    return this.messages.flatMap((message) => {
      const parsed = parseReportCheck(message.body);
      return 'check' in parsed ? [parsed.check] : [];
    });
  }
}
