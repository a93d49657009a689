import { resolveTarget } from '../ops/target.ts';
import { channelsCommands } from './commands/channels.ts';
import { consoleCommand } from './commands/console.ts';
import { dlqCommands } from './commands/dlq.ts';
import { doctorCommand } from './commands/doctor.ts';
import { eventsCommands } from './commands/events.ts';
import { optoutCommands } from './commands/optout.ts';
import { rcsCommands } from './commands/rcs.ts';
import { sendCommand } from './commands/send.ts';
import { statsCommands } from './commands/stats.ts';
import { statusCommand } from './commands/status.ts';
import { templatesCommands } from './commands/templates.ts';
import { traceCommand } from './commands/trace.ts';
import { urlsCommands } from './commands/urls.ts';
import { validateCommand } from './commands/validate.ts';
import {
  type CliDeps,
  commandUsage,
  type GroupSpec,
  groupUsage,
  isGroup,
  type Registry,
  runCommand,
} from './framework.ts';
import type { CliIo } from './io.ts';
import { didYouMean } from './suggest.ts';
import { packageVersion } from './version.ts';

/*
 * The `msgbridge` command. Each command or group of commands is one entry of COMMANDS; see
 * cli/README.md for how to add one. Exit codes: 0 success, 1 the command failed or found
 * problems, 2 a usage error.
 */

export const COMMANDS: Registry = {
  validate: validateCommand,
  send: sendCommand,
  optout: optoutCommands,
  urls: urlsCommands,
  dlq: dlqCommands,
  events: eventsCommands,
  channels: channelsCommands,
  templates: templatesCommands,
  stats: statsCommands,
  rcs: rcsCommands,
  status: statusCommand,
  trace: traceCommand,
  console: consoleCommand,
  doctor: doctorCommand,
};

const usage = (): string =>
  [
    'Usage: msgbridge COMMAND [ARGS…] [--json] [--local [DIR] | --stack NAME [--region R]]',
    '       msgbridge COMMAND --help',
    '       msgbridge --version',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(12)}${command.summary}`),
    '',
    'Every command except validate runs against the local run (`npm start`, the default) or a',
    'deployed stack (--stack NAME), with the gateway token the Lambdas share.',
    '',
    'Polling or confirming reports and listing MO are not commands: the gateway hands each report',
    'and inbound message out once, so a call from here would take it away from the running bridge.',
  ].join('\n');

const wantsHelp = (args: readonly string[]): boolean =>
  args.includes('--help') || args.includes('-h');

const runGroup = async (
  name: string,
  group: GroupSpec,
  args: readonly string[],
  io: CliIo,
  deps: CliDeps,
): Promise<number> => {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    (sub === undefined ? io.stderr : io.stdout)(groupUsage(name, group));
    return sub === undefined ? 2 : 0;
  }
  const command = group.commands[sub];
  if (command === undefined) {
    const hint = didYouMean(sub, Object.keys(group.commands));
    io.stderr(`msgbridge ${name}: unknown command "${sub}"${hint}\n\n${groupUsage(name, group)}`);
    return 2;
  }
  return dispatch(`${name} ${sub}`, command, rest, io, deps);
};

const dispatch = async (
  name: string,
  command: Registry[string],
  args: readonly string[],
  io: CliIo,
  deps: CliDeps,
): Promise<number> => {
  if (isGroup(command)) return runGroup(name, command, args, io, deps);
  if (wantsHelp(args)) {
    io.stdout(commandUsage(command));
    return 0;
  }
  const resolve =
    deps.resolveTarget ??
    ((options) => {
      const localDataDir = (deps.env ?? process.env).LOCAL_DATA_DIR;
      return resolveTarget(options, {
        readFile: io.readFile,
        ...(deps.aws ? { aws: deps.aws } : {}),
        ...(localDataDir === undefined ? {} : { localDataDir }),
      });
    });
  return runCommand(name, command, args, io, deps, resolve);
};

/** Runs `msgbridge` with `argv` (without node and script) and returns the exit code. */
export const main = async (argv: string[], io: CliIo, deps: CliDeps = {}): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(usage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`msgbridge ${packageVersion()}`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(
      `msgbridge: unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))}\n\n${usage()}`,
    );
    return 2;
  }
  return dispatch(name, command, rest, io, deps);
};
