import type { BusEntry, BusEntryResult, EventBus } from '../../functions/publishing/ports.ts';

/** An EventBridge stand-in that records every entry it accepts. */
export class RecordingBus implements EventBus {
  readonly entries: BusEntry[] = [];
  calls = 0;

  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    this.calls += 1;
    this.entries.push(...entries);
    return entries.map(() => ({ ok: true }));
  }

  /** Parsed details of the entries of one detail-type. */
  details(
    detailType: string,
  ): Array<{ metadata: { id: string; idempotencyKey: string }; data: Record<string, unknown> }> {
    return this.entries
      .filter((entry) => entry.DetailType === detailType)
      .map((entry) => JSON.parse(entry.Detail));
  }
}
