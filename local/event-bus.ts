import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { maskPhonesDeep } from '../functions/commons/helpers/mask.ts';
import { terminalSafe } from '../functions/commons/helpers/terminal.ts';
import type { BusEntry, BusEntryResult, EventBus } from '../functions/publishing/ports.ts';
import { formatTime } from '../ops/times.ts';
import { OWNER_ONLY_FILE } from './data-dir.ts';

/** Fields worth seeing in a one-line summary, in this order, when an event has them. */
const SUMMARY_FIELDS = [
  'msgKey',
  'cliKey',
  'moKey',
  'channel',
  'delivered',
  'messageStatus',
  'resultCode',
  'failureCategory',
  'code',
  'category',
  'type',
  'sender',
  'attachmentCount',
  'webReqId',
  'status',
  'index',
  'sizeBytes',
  'reason',
] as const;

/**
 * The local run's EventBridge: appends every event as one JSON line to a file and prints one
 * readable line per event (phone numbers masked). It accepts every entry, like a bus with no rules.
 */
export class LocalEventBus implements EventBus {
  readonly entries: BusEntry[] = [];
  /** Events put again by a replay (kept apart from `entries`, which are the originals). */
  readonly replayed: Array<{ readonly replayName: string; readonly entry: BusEntry }> = [];
  private ready: Promise<unknown> | undefined;

  private keptBytes = 0;

  constructor(
    private readonly file: string,
    /** Where the one-line summaries go; nothing is printed without it. */
    private readonly print?: (line: string) => void,
    /**
     * How much of the latest events (their details' UTF-16 size) `entries` and `replayed` keep in
     * memory; older ones are only in the file. The whole history stays in memory only when asked
     * (the chaos run checks every event). @default 16 MiB
     */
    private readonly keepBytes = 16 * 1024 * 1024,
  ) {}

  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    await this.append(entries);
    this.entries.push(...entries);
    this.keep(entries);
    for (const entry of entries) this.print?.(summarise(entry));
    return entries.map(() => ({ ok: true }));
  }

  /**
   * Puts events again as an EventBridge archive replay does: each carries a top-level
   * `replay-name` field, which rules use to ignore (or select) replayed events.
   */
  async replay(replayName: string, entries: readonly BusEntry[]): Promise<void> {
    await this.append(entries, replayName);
    this.replayed.push(...entries.map((entry) => ({ replayName, entry })));
    this.keep(entries);
    for (const entry of entries) this.print?.(summarise(entry, replayName));
  }

  /** Drops the oldest events from memory once the newest pass `keepBytes`. */
  private keep(added: readonly BusEntry[]): void {
    for (const entry of added) this.keptBytes += entry.Detail.length * 2;
    let drop = 0;
    let dropReplayed = 0;
    while (
      this.keptBytes > this.keepBytes &&
      drop + dropReplayed < this.entries.length + this.replayed.length
    ) {
      const original = this.entries[drop];
      const replay = this.replayed[dropReplayed];
      const next =
        original !== undefined &&
        (replay === undefined || original.Time.getTime() <= replay.entry.Time.getTime());
      const dropped = next ? original : replay?.entry;
      if (next) drop += 1;
      else dropReplayed += 1;
      this.keptBytes -= (dropped?.Detail.length ?? 0) * 2;
    }
    if (drop > 0) this.entries.splice(0, drop);
    if (dropReplayed > 0) this.replayed.splice(0, dropReplayed);
  }

  private async append(entries: readonly BusEntry[], replayName?: string): Promise<void> {
    if (entries.length === 0) return;
    this.ready ??= mkdir(dirname(this.file), { recursive: true });
    await this.ready;
    const lines = entries.map((entry) =>
      JSON.stringify({
        time: entry.Time.toISOString(),
        source: entry.Source,
        'detail-type': entry.DetailType,
        ...(replayName === undefined ? {} : { 'replay-name': replayName }),
        detail: JSON.parse(entry.Detail),
      }),
    );
    // Owner only when it creates the file: events carry phone numbers and texts (data-dir.ts).
    await appendFile(this.file, `${lines.join('\n')}\n`, { mode: OWNER_ONLY_FILE });
  }

  /** Parsed details of the events of one detail-type. */
  details(
    detailType: string,
  ): Array<{ metadata: { id: string; idempotencyKey: string }; data: Record<string, unknown> }> {
    return this.entries
      .filter((entry) => entry.DetailType === detailType)
      .map((entry) => JSON.parse(entry.Detail));
  }
}

const summarise = (entry: BusEntry, replayName?: string): string => {
  const detail = JSON.parse(entry.Detail) as { data?: Record<string, unknown> };
  const data = (maskPhonesDeep(detail.data ?? {}) ?? {}) as Record<string, unknown>;
  const fields = SUMMARY_FIELDS.filter(
    (field) => data[field] !== undefined && data[field] !== null,
  ).map(
    (field) =>
      `${field}=${typeof data[field] === 'string' ? data[field] : JSON.stringify(data[field])}`,
  );
  const replay = replayName === undefined ? '' : `replay ${replayName}  `;
  // Stored text reaches the operator's terminal: its control characters are shown, not obeyed.
  return terminalSafe(
    `${formatTime(entry.Time)} ▸ ${replay}${entry.DetailType}  ${fields.join(' ')}`,
  );
};
