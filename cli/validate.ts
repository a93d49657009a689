import { parseSendMessage } from '../functions/sending/send-message.ts';

/*
 * `msgbridge validate FILE…`: checks queue messages exactly as the sender will, with the
 * current time, so producers and their CI see every problem before a message is queued.
 */

export interface ValidateIo {
  /** Writes one line of output (problems and the summary). */
  readonly stdout: (line: string) => void;
  /** Writes one line about a file that cannot be read or parsed. */
  readonly stderr: (line: string) => void;
  readonly readFile: (path: string) => Promise<string>;
}

/** One message of a file and how to name it in output: `FILE`, `FILE#2` or `FILE:7`. */
type Entry = { label: string; value: unknown } | { label: string; error: string };

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

const tryParse = (text: string): { ok: true; value: unknown } | { ok: false; error: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
};

/**
 * The messages of one file: one JSON object, an array of objects, or JSON lines (one object per
 * line, blank lines ignored). A file that is not JSON is read as JSON lines when its first
 * non-blank line is a JSON value on its own; a line that then fails is reported as that message.
 */
export const readMessages = (file: string, text: string): Entry[] | { error: string } => {
  if (text.trim() === '') return { error: 'the file is empty' };
  const whole = tryParse(text);
  if (whole.ok) {
    return Array.isArray(whole.value)
      ? whole.value.map((value, index) => ({ label: `${file}#${index}`, value }))
      : [{ label: file, value: whole.value }];
  }
  const lines = text
    .split(/\r?\n/)
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '');
  const first = lines[0];
  if (lines.length < 2 || first === undefined || !tryParse(first.line).ok) {
    return { error: `not valid JSON, a JSON array or JSON lines: ${whole.error}` };
  }
  return lines.map(({ line, number }) => {
    const parsed = tryParse(line);
    const label = `${file}:${number}`;
    return parsed.ok ? { label, value: parsed.value } : { label, error: parsed.error };
  });
};

/**
 * Validates every message of every file. Prints `FILE[#index or :line]: $.path: message` for
 * each problem and a summary line `N messages, N valid, N invalid`. Returns the exit code:
 * 0 when every message is valid, 1 when one is not or a file cannot be read or parsed.
 */
export const runValidate = async (files: string[], io: ValidateIo): Promise<number> => {
  let total = 0;
  let invalid = 0;
  let unreadable = 0;
  for (const file of files) {
    let text: string;
    try {
      text = await io.readFile(file);
    } catch (error) {
      io.stderr(`${file}: cannot read: ${errorText(error)}`);
      unreadable += 1;
      continue;
    }
    const entries = readMessages(file, text);
    if (!Array.isArray(entries)) {
      io.stderr(`${file}: cannot parse: ${entries.error}`);
      unreadable += 1;
      continue;
    }
    for (const entry of entries) {
      total += 1;
      if ('error' in entry) {
        invalid += 1;
        io.stdout(`${entry.label}: $: not valid JSON: ${entry.error}`);
        continue;
      }
      const result = parseSendMessage(entry.value, { now: new Date() });
      if (result.ok) continue;
      invalid += 1;
      for (const problem of result.problems) {
        io.stdout(`${entry.label}: ${problem.path}: ${problem.message}`);
      }
    }
  }
  const unreadableNote =
    unreadable === 0 ? '' : `; ${unreadable} ${unreadable === 1 ? 'file' : 'files'} unreadable`;
  io.stdout(`${total} messages, ${total - invalid} valid, ${invalid} invalid${unreadableNote}`);
  return invalid > 0 || unreadable > 0 ? 1 : 0;
};
