import { terminalSafe } from '../functions/commons/helpers/terminal.ts';
import { formatGatewayTime, formatTime, formatTimesIn, type TimeZoneShown } from '../ops/times.ts';
import type { CliIo } from './io.ts';

/*
 * What commands print: one JSON document with --json, aligned tables and lines otherwise, and a
 * progress indicator on stderr for long operations.
 */

/** A table column: the header and how to read a cell from a row (default: the field `key`). */
export interface Column<Row> {
  readonly header: string;
  readonly key?: keyof Row & string;
  readonly value?: (row: Row) => unknown;
  /** Right-align (numbers). */
  readonly right?: boolean;
  /** A date-time the gateway wrote (KST, no zone): shown by the time rule (ops/times.ts). */
  readonly gatewayTime?: boolean;
}

/** `cols` with the columns headed `headers` marked as the gateway's date-times. */
export const gatewayTimes = <Row>(
  cols: readonly Column<Row>[],
  ...headers: readonly string[]
): Column<Row>[] =>
  cols.map((column) =>
    headers.includes(column.header) ? { ...column, gatewayTime: true } : column,
  );

/** What a column reads from a row. */
const cellOf = <Row>(column: Column<Row>, row: Row): unknown =>
  column.value
    ? column.value(row)
    : column.key
      ? (row as Record<string, unknown>)[column.key]
      : undefined;

/** What a column shows: a field of the row by name, or what a function reads from the row. */
export type Cell<Row> = (keyof Row & string) | ((row: Row) => unknown);

/** Left-aligned columns from `{ HEADER: cell }`, in the order written. */
export const columns = <Row>(cells: Readonly<Record<string, Cell<Row>>>): Column<Row>[] =>
  Object.entries(cells).map(([header, cell]) =>
    typeof cell === 'function' ? { header, value: cell } : { header, key: cell },
  );

/**
 * A status code with its meaning from `meanings`, for human output (`A approved`); an unknown code
 * as it is, no code as `''`.
 */
export const described = (
  meanings: Readonly<Record<string, string>>,
  code: string | null | undefined,
): string => {
  if (!code) return '';
  const meaning = meanings[code];
  return meaning === undefined ? code : `${code} ${meaning}`;
};

const cellText = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
};

// Hangul and other wide characters take two terminal columns.
const WIDE =
  /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;
const displayWidth = (text: string): number => {
  let width = 0;
  for (const char of text) width += WIDE.test(char) ? 2 : 1;
  return width;
};
const pad = (text: string, width: number, right: boolean): string => {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return right ? fill + text : text + fill;
};

/**
 * Rows as text lines: a header, then one line per row, columns separated by two spaces and
 * aligned by display width. Trailing spaces are trimmed.
 */
export const formatTable = <Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
): string[] => {
  const cells = rows.map((row) =>
    columns.map((column) => cellText(cellOf(column, row)).replace(/\s*\n\s*/g, ' ')),
  );
  const widths = columns.map((column, index) =>
    Math.max(displayWidth(column.header), ...cells.map((line) => displayWidth(line[index] ?? ''))),
  );
  const render = (line: readonly string[]) =>
    line
      .map((cell, index) => pad(cell, widths[index] ?? 0, columns[index]?.right === true))
      .join('  ')
      .trimEnd();
  return [render(columns.map((column) => column.header)), ...cells.map(render)];
};

/** A running count on stderr. `update(done)` as work completes; `finish()` once at the end. */
export interface Progress {
  update(done: number): void;
  finish(): void;
}

/**
 * A progress indicator on stderr: `LABEL 120/500…`, redrawn in place on a terminal; otherwise one
 * line whenever another tenth of `total` is done (and at the end), so logs stay short. With an
 * unknown total (`undefined`), a line every `step` items off a terminal.
 */
export const createProgress = (
  io: CliIo,
  label: string,
  total: number | undefined,
  step = 100,
): Progress => {
  const tty = io.stderrIsTty === true && io.stderrWrite !== undefined;
  const text = (done: number) => `${label} ${done}${total === undefined ? '' : `/${total}`}…`;
  let lastBucket = 0;
  let last = -1;
  let drawn = false;
  return {
    update(done) {
      if (done === last) return;
      last = done;
      if (tty) {
        io.stderrWrite?.(`\r\x1b[K${text(done)}`);
        drawn = true;
        return;
      }
      const bucket =
        total === undefined || total === 0
          ? Math.floor(done / step)
          : Math.floor((done / total) * 10);
      if (bucket > lastBucket) {
        lastBucket = bucket;
        io.stderr(text(done));
      }
    },
    finish() {
      if (tty && drawn) io.stderrWrite?.('\n');
    },
  };
};

/** The printer a command gets: JSON or human output, chosen once by --json. */
export class Output {
  constructor(
    private readonly io: CliIo,
    readonly json: boolean,
    /** Human output's times in UTC (`--utc`) rather than KST; JSON's are ISO 8601 either way. */
    readonly zone: TimeZoneShown = 'KST',
  ) {}

  /** A time for human output, by the one rule (ops/times.ts); `-` when there is none. */
  time(at: string | undefined): string {
    return at === undefined ? '-' : formatTime(at, this.zone);
  }

  /** Human output's text with the ISO 8601 instants in it shown by the same rule. */
  times(text: string): string {
    return formatTimesIn(text, this.zone);
  }

  /** With --json: `data` as one JSON document on stdout. Otherwise runs `human`. */
  emit(data: unknown, human: () => void): void {
    if (this.json) this.io.stdout(JSON.stringify(data, null, 2));
    else human();
  }

  /** A line of human output on stdout, control characters escaped (`terminalSafe`). */
  line(text: string): void {
    this.io.stdout(terminalSafe(text));
  }

  /** An aligned table on stdout, or `empty` when there are no rows. */
  table<Row>(rows: readonly Row[], columns: readonly Column<Row>[], empty = '(none)'): void {
    if (rows.length === 0) {
      this.io.stdout(terminalSafe(empty));
      return;
    }
    const shown = columns.map((column): Column<Row> => {
      if (column.gatewayTime !== true) return column;
      return {
        ...column,
        value: (row) => {
          const value = cellOf(column, row);
          return typeof value === 'string' ? formatGatewayTime(value, this.zone) : value;
        },
      };
    });
    for (const line of formatTable(rows, shown)) this.io.stdout(terminalSafe(line));
  }

  /** Rows that are the whole answer: with --json the rows themselves, otherwise their table. */
  rows<Row>(rows: readonly Row[], columns: readonly Column<Row>[], empty?: string): void {
    this.emit(rows, () => this.table(rows, columns, empty));
  }

  /** A note on stderr (never mixed into a --json document). */
  note(text: string): void {
    this.io.stderr(terminalSafe(text));
  }

  progress(label: string, total: number | undefined): Progress {
    return createProgress(this.io, label, total);
  }
}
