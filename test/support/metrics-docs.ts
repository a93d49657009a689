import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `docs/operations.md`, whose "Metrics" section lists every metric the functions emit. */
export const OPERATIONS_DOC = join(import.meta.dirname, '../../docs/operations.md');

export interface DocumentedMetric {
  readonly unit: string;
  /** The backquoted names in the "Emitted by" cell. */
  readonly emittedBy: readonly string[];
  readonly usedBy: string;
}

/** The rows of the Metrics table of `docs/operations.md`, by metric name. */
export const documentedMetrics = (
  text: string = readFileSync(OPERATIONS_DOC, 'utf8'),
): Map<string, DocumentedMetric> => {
  const start = text.indexOf('\n## Metrics\n');
  if (start < 0) throw new Error('docs/operations.md has no "## Metrics" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const rows = new Map<string, DocumentedMetric>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | `Name` | Unit | Emitted by | Meaning | Used by |
    const name = /^`([A-Za-z]+)`$/.exec(cells[1] ?? '')?.[1];
    if (name === undefined || cells.length !== 7) continue;
    if (rows.has(name)) throw new Error(`the Metrics table lists ${name} twice`);
    rows.set(name, {
      unit: cells[2] ?? '',
      emittedBy: [...(cells[3] ?? '').matchAll(/`([a-z-]+)`/g)].map((match) => match[1] ?? ''),
      usedBy: cells[5] ?? '',
    });
  }
  return rows;
};
