/**
 * What every scenario hands back to `bench/run.ts`: its figures (written to `bench/results.json`)
 * and the tables printed for a reader. Helpers for the small statistics the scenarios share.
 */

export type Cell = string | number;

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

/** A table of figures, each with its value and the target it is held to, if it has one. */
export const figuresTable = (
  title: string,
  rows: readonly (readonly [figure: string, value: Cell, target?: string])[],
): Table => ({
  title,
  columns: ['figure', 'value', 'target'],
  rows: rows.map(([figure, value, target = '']) => [figure, value, target]),
});

export interface ScenarioResult {
  readonly figures: Record<string, unknown>;
  readonly tables: readonly Table[];
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** `value` with at most `digits` decimals, as a number (for JSON and for tables). */
export const round = (value: number, digits = 3): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** `value` with `digits` significant digits (for quantities far below 1). */
export const significant = (value: number, digits = 4): number => Number(value.toPrecision(digits));

/** `numerator / denominator` rounded; NaN when the denominator is 0, so a missing figure shows. */
export const ratio = (numerator: number, denominator: number, digits = 3): number =>
  denominator === 0 ? Number.NaN : round(numerator / denominator, digits);

const formatCell = (cell: Cell): string => {
  if (typeof cell === 'string') return cell;
  if (Number.isNaN(cell)) return 'n/a';
  // Tiny quantities (GB of archive per message) keep three significant digits.
  if (cell !== 0 && Math.abs(cell) < 0.001) return cell.toExponential(2);
  return cell.toLocaleString('en-US', { maximumFractionDigits: 4 });
};

/** A Markdown table, so the printed output can be pasted into `docs/performance.md` as it is. */
export const formatTable = (table: Table): string => {
  const cells = table.rows.map((row) => row.map(formatCell));
  const widths = table.columns.map((column, index) =>
    Math.max(column.length, 3, ...cells.map((row) => (row[index] ?? '').length)),
  );
  const numeric = table.columns.map((_, index) =>
    table.rows.every((row) => typeof row[index] === 'number'),
  );
  const line = (values: readonly string[]) =>
    `| ${values
      .map((value, index) =>
        numeric[index] ? value.padStart(widths[index] ?? 0) : value.padEnd(widths[index] ?? 0),
      )
      .join(' | ')} |`;
  const rule = `| ${widths
    .map((width, index) => (numeric[index] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)))
    .join(' | ')} |`;
  return [`**${table.title}**`, '', line(table.columns), rule, ...cells.map(line)].join('\n');
};
