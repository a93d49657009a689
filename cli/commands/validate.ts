import type { CommandSpec } from '../framework.ts';
import { runValidate, validateFiles } from '../validate.ts';

export const validateCommand: CommandSpec = {
  summary: 'check queue messages exactly as the sender will',
  usage: `msgbridge validate FILE…

Reads queue messages from each FILE (one JSON object, an array of objects, or JSON lines),
prints every problem as FILE[#index or :line]: $.path: message, then a summary line.
Exits 0 when every message is valid, 1 when one is not or a file cannot be read.
Needs no target: nothing is sent.`,
  target: false,
  positionals: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    name: 'FILE',
    missing: 'validate needs at least one FILE',
  },
  run: async ({ positionals, io, out }) => {
    if (!out.json) return runValidate([...positionals], io);
    const report = await validateFiles([...positionals], io);
    out.emit(report, () => undefined);
    return report.invalid > 0 || report.unreadable.length > 0 ? 1 : 0;
  },
};
