import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { maskPhonesDeep } from '../functions/commons/helpers/mask.ts';
import type { BusEntry, BusEntryResult, EventBus } from '../functions/events/publish.ts';

/** Fields worth seeing in a one-line summary, in this order, when an event has them. */
const SUMMARY_FIELDS = [
  'msgKey',
  'cliKey',
  'moKey',
  'channel',
  'delivered',
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
  private ready: Promise<unknown> | undefined;

  constructor(
    private readonly file: string,
    /** Where the one-line summaries go; nothing is printed without it. */
    private readonly print?: (line: string) => void,
  ) {}

  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    this.ready ??= mkdir(dirname(this.file), { recursive: true });
    await this.ready;
    const lines = entries.map((entry) =>
      JSON.stringify({
        time: entry.Time.toISOString(),
        source: entry.Source,
        'detail-type': entry.DetailType,
        detail: JSON.parse(entry.Detail),
      }),
    );
    await appendFile(this.file, `${lines.join('\n')}\n`);
    this.entries.push(...entries);
    for (const entry of entries) this.print?.(summarise(entry));
    return entries.map(() => ({ ok: true }));
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

const summarise = (entry: BusEntry): string => {
  const detail = JSON.parse(entry.Detail) as { data?: Record<string, unknown> };
  const data = (maskPhonesDeep(detail.data ?? {}) ?? {}) as Record<string, unknown>;
  const fields = SUMMARY_FIELDS.filter(
    (field) => data[field] !== undefined && data[field] !== null,
  ).map(
    (field) =>
      `${field}=${typeof data[field] === 'string' ? data[field] : JSON.stringify(data[field])}`,
  );
  return `${entry.Time.toISOString().slice(11, 19)} ▸ ${entry.DetailType}  ${fields.join(' ')}`;
};
