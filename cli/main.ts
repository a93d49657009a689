import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runValidate } from './validate.ts';

/*
 * The `msgbridge` command. Each command is one entry of COMMANDS: later issues add theirs
 * there. Exit codes: 0 success, 1 the command found problems, 2 a usage error.
 */

export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  readonly readFile: (path: string) => Promise<string>;
}

interface Command {
  readonly summary: string;
  readonly usage: string;
  /** Runs with the arguments after the command name; returns the exit code. */
  readonly run: (args: string[], io: CliIo) => Promise<number>;
}

class UsageError extends Error {
  override readonly name = 'UsageError';
}

const COMMANDS: Record<string, Command> = {
  validate: {
    summary: 'check queue messages exactly as the sender will',
    usage: `msgbridge validate FILE…

Reads queue messages from each FILE (one JSON object, an array of objects, or JSON lines),
prints every problem as FILE[#index or :line]: $.path: message, then a summary line.
Exits 0 when every message is valid, 1 when one is not or a file cannot be read.`,
    run: async (args, io) => {
      const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
      if (positionals.length === 0) throw new UsageError('validate needs at least one FILE');
      return runValidate(positionals, io);
    },
  },
};

const usage = (): string =>
  [
    'Usage: msgbridge COMMAND [ARGS…]',
    '       msgbridge COMMAND --help',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(12)}${command.summary}`),
  ].join('\n');

const wantsHelp = (args: readonly string[]): boolean =>
  args.includes('--help') || args.includes('-h');

/** Runs `msgbridge` with `argv` (without node and script) and returns the exit code. */
export const main = async (argv: string[], io: CliIo): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(usage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`msgbridge: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (wantsHelp(rest)) {
    io.stdout(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // parseArgs reports unknown options and the like with a TypeError carrying an ERR_PARSE_ARGS code.
    const isParseError =
      error instanceof TypeError &&
      'code' in error &&
      String(error.code).startsWith('ERR_PARSE_ARGS');
    if (error instanceof UsageError || isParseError) {
      io.stderr(`msgbridge ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    throw error;
  }
};

/** The real terminal and file system. */
export const processIo: CliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: (path) => readFile(path, 'utf8'),
};

const entryScript = process.argv[1];
if (entryScript !== undefined && import.meta.url === pathToFileURL(entryScript).href) {
  process.exitCode = await main(process.argv.slice(2), processIo);
}
