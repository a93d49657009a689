import { readFile } from 'node:fs/promises';

/** What the CLI reads and writes; tests pass their own to capture output. */
export interface CliIo {
  /** Writes one line to stdout. */
  readonly stdout: (line: string) => void;
  /** Writes one line to stderr. */
  readonly stderr: (line: string) => void;
  readonly readFile: (path: string) => Promise<string>;
  /** Reads a file's bytes (template images). @default the file system, as {@link processIo} */
  readonly readBytes?: (path: string) => Promise<Uint8Array>;
  /** Whether stderr is a terminal: progress is then redrawn in place. @default false */
  readonly stderrIsTty?: boolean;
  /** Writes to stderr without a newline (progress on a terminal). */
  readonly stderrWrite?: (text: string) => void;
}

/** The real terminal and file system. */
export const processIo: CliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: (path) => readFile(path, 'utf8'),
  readBytes: (path) => readFile(path),
  stderrIsTty: process.stderr.isTTY === true,
  stderrWrite: (text) => process.stderr.write(text),
};
