import { parseSendMessage } from '../functions/send-contract/queue-message-parsing.ts';
import { recipientsOf } from '../functions/send-contract/queue-message-recipients.ts';

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

/** One message's problems: `label` is `FILE`, `FILE#2` or `FILE:7`. */
export interface MessageProblem {
  readonly label: string;
  readonly path: string;
  readonly message: string;
}

/** What validating files found; `messages` holds the valid ones, in order, for the sender. */
export interface ValidationReport {
  readonly total: number;
  readonly valid: number;
  readonly invalid: number;
  readonly problems: MessageProblem[];
  readonly unreadable: Array<{ file: string; error: string }>;
  readonly messages: Array<{ label: string; value: unknown }>;
}

/**
 * Reads and validates every message of every file with the sender's own check
 * (`parseSendMessage`, with the current time), collecting every problem; a message that reuses a
 * cliKey of an earlier valid message, in any of the files, is invalid too.
 */
export const validateFiles = async (
  files: readonly string[],
  io: Pick<ValidateIo, 'readFile'>,
  now: Date = new Date(),
): Promise<ValidationReport> => {
  const problems: MessageProblem[] = [];
  const unreadable: Array<{ file: string; error: string }> = [];
  const messages: Array<{ label: string; value: unknown }> = [];
  /** The message that used each cliKey first. */
  const usedBy = new Map<string, string>();
  let total = 0;
  let invalid = 0;
  for (const file of files) {
    let text: string;
    try {
      text = await io.readFile(file);
    } catch (error) {
      unreadable.push({ file, error: `cannot read: ${errorText(error)}` });
      continue;
    }
    const entries = readMessages(file, text);
    if (!Array.isArray(entries)) {
      unreadable.push({ file, error: `cannot parse: ${entries.error}` });
      continue;
    }
    for (const entry of entries) {
      total += 1;
      if ('error' in entry) {
        invalid += 1;
        problems.push({ label: entry.label, path: '$', message: `not valid JSON: ${entry.error}` });
        continue;
      }
      const result = parseSendMessage(entry.value, { now });
      if (result.ok) {
        // A cliKey is one message: the sender sends the first message that claims it and refuses
        // another with other content, so a file that uses one twice is a producer's error.
        const reused = recipientsOf(result.message).flatMap(({ cliKey }, index) => {
          const first = usedBy.get(cliKey);
          return first === undefined ? [] : [{ cliKey, index, first }];
        });
        if (reused.length === 0) {
          for (const { cliKey } of recipientsOf(result.message)) usedBy.set(cliKey, entry.label);
          messages.push({ label: entry.label, value: entry.value });
          continue;
        }
        invalid += 1;
        for (const { cliKey, index, first } of reused)
          problems.push({
            label: entry.label,
            path:
              result.message.channel === 'rcs-reply'
                ? '$.cliKey'
                : `$.recvInfoLst[${index}].cliKey`,
            message: `cliKey "${cliKey}" is already used by ${first}: a cliKey names one message, so the sender would send the first and refuse this one`,
          });
        continue;
      }
      invalid += 1;
      for (const problem of result.problems) problems.push({ label: entry.label, ...problem });
    }
  }
  return { total, valid: total - invalid, invalid, problems, unreadable, messages };
};

/** `FILE[#index or :line]: $.path: message` */
export const problemLine = (problem: MessageProblem): string =>
  `${problem.label}: ${problem.path}: ${problem.message}`;

/**
 * Validates every message of every file. Prints `FILE[#index or :line]: $.path: message` for
 * each problem and a summary line `N messages, N valid, N invalid`. Returns the exit code:
 * 0 when every message is valid, 1 when one is not or a file cannot be read or parsed.
 */
export const runValidate = async (files: string[], io: ValidateIo): Promise<number> => {
  const report = await validateFiles(files, io);
  for (const { file, error } of report.unreadable) io.stderr(`${file}: ${error}`);
  for (const problem of report.problems) io.stdout(problemLine(problem));
  const unreadable = report.unreadable.length;
  const unreadableNote =
    unreadable === 0 ? '' : `; ${unreadable} ${unreadable === 1 ? 'file' : 'files'} unreadable`;
  io.stdout(
    `${report.total} ${report.total === 1 ? 'message' : 'messages'}, ${report.valid} valid, ${report.invalid} invalid${unreadableNote}`,
  );
  return report.invalid > 0 || unreadable > 0 ? 1 : 0;
};
