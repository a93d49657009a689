import { type ParseArgsConfig, parseArgs } from 'node:util';
import { describeError, OperationError } from '../ops/errors.ts';
import type { AwsClients, Target, TargetOptions } from '../ops/target.ts';
import { UsageError } from './errors.ts';
import type { CliIo } from './io.ts';
import { Output } from './output.ts';
import { closestName } from './suggest.ts';

export type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
type OptionValues = Readonly<
  Record<string, string | boolean | Array<string | boolean> | undefined>
>;

/*
 * The command framework: a registry of commands and command groups, option parsing with the
 * shared options (--json, the target options), and the one place where errors become output
 * and exit codes: 0 success, 1 the command failed or found problems, 2 a usage error.
 */

/** What a command may need from outside: AWS clients (tests), the clock, waiting. */
export interface CliDeps {
  readonly aws?: AwsClients;
  readonly now?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Resolves when a long-running command (`console`) should stop. @default Ctrl+C (SIGINT/SIGTERM) */
  readonly interrupted?: () => Promise<void>;
  /** Replaces target resolution entirely (tests of one command against fakes). */
  readonly resolveTarget?: (options: TargetOptions) => Promise<Target>;
  /**
   * Serves the operator console for a target (`msgbridge console`): the console module's
   * `startConsoleServer`, which the executable (`bin/msgbridge-cli.mjs`) hands in.
   */
  readonly serveConsole?: ConsoleServing;
  /** The environment the CLI reads (`LOCAL_DATA_DIR`). @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Serves the console for `target` on 127.0.0.1 until `close`. */
export type ConsoleServing = (
  target: Target,
  options: {
    readonly port: number;
    readonly tpsQuota?: number;
    readonly sleep?: (ms: number) => Promise<void>;
  },
) => Promise<{ readonly url: string; close(): Promise<void> }>;

/** What `run` receives. */
export interface CommandContext {
  /** `msgbridge optout add` → `optout add`; used in messages. */
  readonly name: string;
  readonly io: CliIo;
  readonly out: Output;
  readonly deps: CliDeps;
  readonly positionals: readonly string[];
  /** The parsed options by name (strings, booleans, or string lists for `multiple`). */
  readonly values: OptionValues;
  /** The target chosen by --local/--stack, resolved on first call. */
  target(): Promise<Target>;
  /** An option's string value, or undefined. */
  string(name: string): string | undefined;
  /** An option's string value; a {@link UsageError} when missing. */
  required(name: string): string;
  /** Whether a boolean option was given. */
  flag(name: string): boolean;
  /** An integer option within bounds, or `fallback` when absent; a {@link UsageError} otherwise. */
  integer(name: string, fallback: number, bounds?: { min?: number; max?: number }): number;
}

export interface CommandSpec {
  readonly summary: string;
  /** Synopsis and description. The shared options are appended by the framework. */
  readonly usage: string;
  /** Options beyond the shared ones (`--json`, `--help`, and the target options). */
  readonly options?: ParseArgsOptionsConfig;
  /** Runs against a target: accepts --local/--stack/--region. @default true */
  readonly target?: boolean;
  /** Accepted positional arguments. @default none */
  readonly positionals?: {
    readonly min?: number;
    readonly max?: number;
    /** What one is called in messages (`FILE`). */
    readonly name?: string;
    /** The usage error when there are fewer than `min`. @default `needs a NAME` */
    readonly missing?: string;
  };
  /** Returns the exit code (`undefined` = 0). Throw {@link UsageError} or {@link OperationError}. */
  readonly run: (context: CommandContext) => Promise<number | undefined>;
}

/** Commands under one name: `msgbridge optout add|list|…`. */
export interface GroupSpec {
  readonly summary: string;
  /** A paragraph shown above the list of subcommands. */
  readonly description?: string;
  /** Subcommands; a group may hold groups (`msgbridge rcs brands list`). */
  readonly commands: Readonly<Record<string, CommandSpec | GroupSpec>>;
}

export type Registry = Readonly<Record<string, CommandSpec | GroupSpec>>;

export const isGroup = (entry: CommandSpec | GroupSpec): entry is GroupSpec => 'commands' in entry;

/** Options that take a value (`--page N`), by name. */
export const valueOptions = (...names: readonly string[]): ParseArgsOptionsConfig =>
  Object.fromEntries(names.map((name) => [name, { type: 'string' }]));

/** Options that are given or not (`--reveal`), by name. */
export const flagOptions = (...names: readonly string[]): ParseArgsOptionsConfig =>
  Object.fromEntries(names.map((name) => [name, { type: 'boolean' }]));

const TARGET_OPTIONS = valueOptions('local', 'stack', 'region');
const SHARED_OPTIONS: ParseArgsOptionsConfig = {
  json: { type: 'boolean' },
  utc: { type: 'boolean' },
};

export const TARGET_USAGE = `Target:
  --local [DIR]      the local run started by \`npm start\` (default; DIR defaults to
                     LOCAL_DATA_DIR as npm start reads it, else .local)
                     — put DIR right after --local, or write --local=DIR
  --stack NAME       a deployed stack (AWS credentials from the default provider chain)
  --region R         the stack's region (default: the AWS configuration's)`;
const JSON_USAGE = `  --json             print one JSON document (for scripts; times in ISO 8601, UTC)
  --utc              print times in UTC (default: KST, e.g. 2026-12-07 13:05:09 KST)`;

/** The full usage of a command, with the shared options it takes. */
export const commandUsage = (spec: CommandSpec): string =>
  [
    spec.usage.trimEnd(),
    '',
    ...(spec.target === false ? [] : [TARGET_USAGE]),
    `Output:\n${JSON_USAGE}`,
  ].join('\n');

export const groupUsage = (name: string, group: GroupSpec): string => {
  const entries = Object.entries(group.commands);
  // At least 10 columns; longer names (`check-chatroom`) widen the column for the whole list.
  const width = Math.max(10, ...entries.map(([sub]) => sub.length + 2));
  return [
    `Usage: msgbridge ${name} COMMAND [ARGS…]`,
    `       msgbridge ${name} COMMAND --help`,
    '',
    ...(group.description ? [group.description, ''] : []),
    'Commands:',
    ...entries.map(([sub, command]) => `  ${sub.padEnd(width)}${command.summary}`),
  ].join('\n');
};

/**
 * `--local` with no DIR after it (end, or another option next) means the default directory, which
 * target resolution decides (LOCAL_DATA_DIR or .local): an empty value here.
 */
const normaliseLocal = (args: readonly string[]): string[] =>
  args.map((arg, index) => {
    const next = args[index + 1];
    return arg === '--local' && (next === undefined || next.startsWith('-')) ? '--local=' : arg;
  });

const isParseArgsError = (error: unknown): error is Error & { code: string } =>
  error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');

/**
 * A parse error of `node:util`'s `parseArgs` in the command's own words: the option it is about,
 * and for an unknown one the option of `known` it may have meant.
 */
const parseErrorMessage = (error: Error & { code: string }, known: readonly string[]): string => {
  const option = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1];
  if (option === undefined) return error.message;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const meant = closestName(option.replace(/^-+/, '').split('=')[0] ?? '', known);
    return `unknown option ${option}${meant === undefined ? '' : `; did you mean --${meant}?`}`;
  }
  if (error.message.includes('argument missing')) return `${option} needs a value`;
  if (error.message.includes('does not take an argument')) return `${option} takes no value`;
  return error.message;
};

/** Runs one command with its arguments; every error becomes output and an exit code here. */
export const runCommand = async (
  name: string,
  spec: CommandSpec,
  args: readonly string[],
  io: CliIo,
  deps: CliDeps,
  resolve: (options: TargetOptions) => Promise<Target>,
): Promise<number> => {
  const usageError = (message: string) => {
    io.stderr(`msgbridge ${name}: ${message}\n\n${commandUsage(spec)}`);
    return 2;
  };
  const withTarget = spec.target !== false;
  const options = { ...SHARED_OPTIONS, ...(withTarget ? TARGET_OPTIONS : {}), ...spec.options };
  try {
    const parsed = parseArgs({
      args: withTarget ? normaliseLocal(args) : [...args],
      allowPositionals: true,
      strict: true,
      options,
    });
    const values: OptionValues = parsed.values;
    const positionals = parsed.positionals;
    const { min = 0, max = 0, name: positionalName = 'argument', missing } = spec.positionals ?? {};
    if (positionals.length < min) {
      throw new UsageError(
        missing ?? `needs ${min === 1 ? `a ${positionalName}` : `${min} ${positionalName}s`}`,
      );
    }
    if (positionals.length > max) {
      throw new UsageError(`unexpected argument "${positionals[max]}"`);
    }
    const text = (option: string): string | undefined => {
      const value = values[option];
      return typeof value === 'string' ? value : undefined;
    };
    let target: Promise<Target> | undefined;
    const context: CommandContext = {
      name,
      io,
      out: new Output(io, values.json === true, values.utc === true ? 'UTC' : 'KST'),
      deps,
      positionals,
      values,
      target: () => {
        target ??= resolve({
          ...(text('local') === undefined ? {} : { local: text('local') }),
          ...(text('stack') === undefined ? {} : { stack: text('stack') }),
          ...(text('region') === undefined ? {} : { region: text('region') }),
        });
        return target;
      },
      string: text,
      required: (option) => {
        const value = text(option);
        if (value === undefined || value === '') throw new UsageError(`--${option} is required`);
        return value;
      },
      flag: (option) => values[option] === true,
      integer: (option, fallback, bounds = {}) => {
        const value = text(option);
        if (value === undefined) return fallback;
        const number = Number(value);
        const { min: low = Number.MIN_SAFE_INTEGER, max: high = Number.MAX_SAFE_INTEGER } = bounds;
        if (!/^-?\d+$/.test(value) || number < low || number > high) {
          throw new UsageError(
            `--${option} must be a whole number${bounds.min === undefined ? '' : ` from ${low}`}${bounds.max === undefined ? '' : ` to ${high}`}`,
          );
        }
        return number;
      },
    };
    return (await spec.run(context)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    if (isParseArgsError(error)) return usageError(parseErrorMessage(error, Object.keys(options)));
    for (const line of describeError(error)) io.stderr(`msgbridge ${name}: ${line}`);
    return 1;
  }
};

/** The JSON document in `path`; a missing or malformed file is a {@link OperationError}. */
export const readJsonFile = async (io: CliIo, path: string): Promise<unknown> => {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    throw new OperationError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new OperationError(`${path} is not JSON: ${(error as Error).message}`);
  }
};

/**
 * A KST date or date-time option (`YYYY-MM-DD`, `YYYY-MM-DD HH:mm[:ss]`, or the gateway's compact
 * digits) as the gateway's compact form of `digits` digits (8 `yyyyMMdd`, 14 `YYYYMMDDHHmmss`),
 * missing time filled with zeros. Only the shape is checked here; the client checks the calendar.
 */
export const compactDateOption = (option: string, value: string, digits: 8 | 14): string => {
  const readable = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  const compact = readable ? readable.slice(1).join('') : value;
  const allowed = digits === 8 ? /^\d{8}$/ : /^\d{8}(\d{4}(\d{2})?)?$/;
  if (!allowed.test(compact)) {
    throw new UsageError(
      digits === 8
        ? `--${option} must be a date, YYYY-MM-DD`
        : `--${option} must be YYYY-MM-DD or "YYYY-MM-DD HH:mm:ss"`,
    );
  }
  return compact.padEnd(digits, '0');
};
