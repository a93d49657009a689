/**
 * What the end-to-end scenario watches besides the call counts: the events the bus is given
 * (`EventWatch`, also how the run knows a phase is done) and the send-messages batches, which the
 * local SQS poller runs without a Lambda to count (`SendBatches`).
 */
import type { BusEntry } from '../functions/publishing/ports.ts';
import type { LocalBridge } from '../local/bridge.ts';
import type { CallCounter, CallObservation } from './call-counter.ts';

/** A PutEvents entry's size as EventBridge bills it: time, source, detail-type and detail. */
const entryBytes = (entry: BusEntry) =>
  14 +
  Buffer.byteLength(entry.Source, 'utf8') +
  Buffer.byteLength(entry.DetailType, 'utf8') +
  Buffer.byteLength(entry.Detail, 'utf8');

export class EventWatch {
  readonly byType = new Map<string, number>();
  /** When the last event of each detail-type was put. */
  readonly lastAt = new Map<string, number>();
  readonly reportedKeys = new Set<string>();
  /** Billed bytes of the events put, by detail-type. */
  readonly bytesByType = new Map<string, number>();
  bytes = 0;

  count(type: string): number {
    return this.byType.get(type) ?? 0;
  }

  /** Wraps the bus's PutEvents: each call is counted, timed and looked into. */
  attach(bridge: LocalBridge, counter: CallCounter): void {
    const bus = bridge.bus;
    const put = bus.putEvents.bind(bus);
    bus.putEvents = async (entries) => {
      const startedAt = performance.now();
      const results = await put(entries);
      const endedAt = performance.now();
      let units = 0;
      for (const entry of entries) {
        const bytes = entryBytes(entry);
        units += Math.max(1, Math.ceil(bytes / (64 * 1024)));
        this.bytes += bytes;
        this.bytesByType.set(
          entry.DetailType,
          (this.bytesByType.get(entry.DetailType) ?? 0) + bytes,
        );
        this.byType.set(entry.DetailType, this.count(entry.DetailType) + 1);
        this.lastAt.set(entry.DetailType, endedAt);
        if (entry.DetailType === 'Delivery Report Received') {
          const detail = JSON.parse(entry.Detail) as { data?: { msgKey?: unknown } };
          this.reportedKeys.add(String(detail.data?.msgKey));
        }
      }
      counter.record('EventBridge PutEvents', { calls: 1, ms: endedAt - startedAt, units });
      return results;
    };
  }
}

/**
 * The send-messages "invocations": each non-empty receive is one batch, which lasts until the
 * last of its messages is deleted or given back (ChangeMessageVisibility).
 */
export class SendBatches {
  private readonly batches: Array<{ startedAt: number; endedAt: number }> = [];
  private readonly byHandle = new Map<string, { startedAt: number; endedAt: number }>();
  /** The send queue: the other queues' calls (reconcile-status' report checks) are not batches. */
  queueUrl: string | undefined;

  readonly observe = (call: CallObservation): void => {
    if (call.service !== 'SQS') return;
    if (this.queueUrl !== undefined && call.input.QueueUrl !== this.queueUrl) return;
    if (call.operation === 'ReceiveMessage') {
      const messages = (call.output?.Messages ?? []) as Array<{ ReceiptHandle?: string }>;
      if (messages.length === 0) return;
      const batch = { startedAt: call.endedAt, endedAt: call.endedAt };
      this.batches.push(batch);
      for (const message of messages)
        if (message.ReceiptHandle) this.byHandle.set(message.ReceiptHandle, batch);
      return;
    }
    const handles =
      call.operation === 'DeleteMessageBatch'
        ? ((call.input.Entries ?? []) as Array<{ ReceiptHandle?: string }>).map((entry) =>
            String(entry.ReceiptHandle),
          )
        : call.operation === 'DeleteMessage' || call.operation === 'ChangeMessageVisibility'
          ? [String(call.input.ReceiptHandle)]
          : [];
    for (const handle of handles) {
      const batch = this.byHandle.get(handle);
      if (batch) batch.endedAt = Math.max(batch.endedAt, call.endedAt);
    }
  };

  /** Invocations started in [from, to) and their summed duration. */
  between(from: number, to: number): { invocations: number; ms: number } {
    const inside = this.batches.filter((b) => b.startedAt >= from && b.startedAt < to);
    return {
      invocations: inside.length,
      ms: inside.reduce((sum, b) => sum + (b.endedAt - b.startedAt), 0),
    };
  }

  /** When the last batch started in [from, to) ended. */
  lastEndedAt(from: number, to: number): number {
    return this.batches
      .filter((b) => b.startedAt >= from && b.startedAt < to)
      .reduce((last, b) => Math.max(last, b.endedAt), 0);
  }
}
