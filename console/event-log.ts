import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { maskPhonesDeep } from '../functions/commons/helpers/mask.ts';
import type { LocalEventLine } from '../ops/replay.ts';
import type { Target } from '../ops/target.ts';

/*
 * The events as they were put on the bus. The local run's bus appends every event to its events
 * file (the file `msgbridge events replay` reads); a deployed stack's bus keeps no log that can be
 * read without adding a rule to it, so there the console has none (`undefined`).
 */

/** One event as published: masked data, never the raw line. */
export interface PublishedEvent {
  /** Its line number in the events file (1-based), for "events after N". */
  readonly line: number;
  readonly time: string;
  readonly detailType: string;
  readonly id: string | undefined;
  readonly replayName: string | undefined;
  readonly data: Record<string, unknown>;
}

const parse = (line: string, index: number): PublishedEvent[] => {
  if (line.trim() === '') return [];
  let event: LocalEventLine;
  try {
    event = JSON.parse(line) as LocalEventLine;
  } catch {
    return [];
  }
  const detail = (event.detail ?? {}) as { metadata?: { id?: unknown }; data?: unknown };
  const data = maskPhonesDeep(detail.data ?? {});
  return [
    {
      line: index + 1,
      time: String(event.time),
      detailType: String(event['detail-type']),
      id: typeof detail.metadata?.id === 'string' ? detail.metadata.id : undefined,
      replayName: event['replay-name'],
      data: data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {},
    },
  ];
};

/** How much of a long history's end a first poll reads as text. */
const TAIL_BYTES = 8 * 1024 * 1024;

/** The data fields the flow page shows (keys and codes): what `recent` keeps of each event. */
const FLOW_FIELDS = ['cliKey', 'msgKey', 'moKey', 'resultCode', 'code', 'failureCategory'];

const summary = (event: PublishedEvent): PublishedEvent => ({
  ...event,
  data: Object.fromEntries(
    FLOW_FIELDS.flatMap((name) =>
      typeof event.data[name] === 'string' ? [[name, event.data[name]]] : [],
    ),
  ),
});

interface LineState {
  partial: string;
  readonly decoder: StringDecoder;
}

const newLineState = (): LineState => ({ partial: '', decoder: new StringDecoder('utf8') });

/**
 * The local run's events file, read without ever holding it whole: each `refresh` reads only the
 * bytes appended since the last one (a poll every 2 s of a 400 MiB file reads a few KiB), and
 * keeps the last `keep` events and the number of lines; `find` streams the file for the events of
 * given ids (a message's timeline). A file that shrank (rotated or truncated) is read again from
 * its start. Memory stays within `keep` events and one chunk, whatever the file's size.
 */
export class EventLogReader {
  private offset = 0;
  private lines = 0;
  /** The line still being written when the last read ended, and a character split by it. */
  private tail: LineState = newLineState();
  private recent: PublishedEvent[] = [];
  /** Bytes read from the file so far, by every call. */
  bytesRead = 0;

  constructor(
    private readonly file: string,
    private readonly keep = 2_000,
    private readonly chunkBytes = 1 << 20,
  ) {}

  /**
   * The last events (at most `keep`, in order, with only the data fields the flow page shows) and
   * the file's line count, after the new lines are read.
   */
  async refresh(): Promise<{ readonly recent: readonly PublishedEvent[]; readonly lines: number }> {
    await this.scan(async (handle, size) => {
      if (size < this.offset) {
        this.offset = 0;
        this.lines = 0;
        this.tail = newLineState();
        this.recent = [];
      }
      // Far behind (a first poll of a long history): count the older lines without reading
      // them as text, and read only the last TAIL_BYTES.
      if (size - this.offset > TAIL_BYTES && this.tail.partial === '')
        await this.skipTo(handle, size - TAIL_BYTES);
      this.offset = await this.readFrom(handle, this.offset, size, this.tail, (line) => {
        this.lines += 1;
        const parsed = parse(line, this.lines - 1).map(summary);
        if (parsed.length === 0) return;
        this.recent.push(...parsed);
        if (this.recent.length > this.keep * 2) this.recent = this.recent.slice(-this.keep);
      });
    });
    if (this.recent.length > this.keep) this.recent = this.recent.slice(-this.keep);
    return { recent: this.recent.slice(), lines: this.lines };
  }

  /** Every event whose id is one of `ids`, from the whole file, streamed. */
  async find(ids: ReadonlySet<string>): Promise<PublishedEvent[]> {
    const found: PublishedEvent[] = [];
    if (ids.size === 0) return found;
    await this.scan(async (handle, size) => {
      let line = 0;
      await this.readFrom(handle, 0, size, newLineState(), (text) => {
        line += 1;
        // Only a line that names one of the ids is parsed.
        for (const id of ids)
          if (text.includes(id)) {
            found.push(...parse(text, line - 1).filter((event) => event.id === id));
            break;
          }
      });
    });
    return found;
  }

  private async scan(
    read: (handle: Awaited<ReturnType<typeof open>>, size: number) => Promise<void>,
  ): Promise<void> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.file, 'r');
    } catch {
      return; // no events yet
    }
    try {
      await read(handle, (await handle.stat()).size);
    } finally {
      await handle.close();
    }
  }

  /** Counts the lines that end before `until` and moves past the last of them. */
  private async skipTo(handle: Awaited<ReturnType<typeof open>>, until: number): Promise<void> {
    const buffer = Buffer.alloc(this.chunkBytes);
    let at = this.offset;
    let afterLastLine = this.offset;
    while (at < until) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, until - at), at);
      if (bytesRead === 0) break;
      this.bytesRead += bytesRead;
      for (
        let nl = buffer.indexOf(0x0a);
        nl !== -1 && nl < bytesRead;
        nl = buffer.indexOf(0x0a, nl + 1)
      ) {
        this.lines += 1;
        afterLastLine = at + nl + 1;
      }
      at += bytesRead;
    }
    this.offset = afterLastLine;
  }

  /** Reads [from, to) in chunks, calling `onLine` for each whole line; answers where it stopped. */
  private async readFrom(
    handle: Awaited<ReturnType<typeof open>>,
    from: number,
    to: number,
    state: LineState,
    onLine: (line: string) => void,
  ): Promise<number> {
    const buffer = Buffer.alloc(Math.min(this.chunkBytes, Math.max(1, to - from)));
    let at = from;
    while (at < to) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, to - at), at);
      if (bytesRead === 0) break;
      at += bytesRead;
      this.bytesRead += bytesRead;
      const parts = (state.partial + state.decoder.write(buffer.subarray(0, bytesRead))).split(
        '\n',
      );
      state.partial = parts.pop() ?? '';
      for (const line of parts) onLine(line);
    }
    return at;
  }
}

/** The reader of the local run's events file; `undefined` on a stack. */
export const eventLogReader = (target: Target): EventLogReader | undefined =>
  target.events.kind === 'local' ? new EventLogReader(target.events.file) : undefined;
