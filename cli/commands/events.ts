import { CliError, type CommandSpec, type GroupSpec, UsageError } from '../framework.ts';
import { localEventsInRange, replayArchive, replayLocally } from '../replay.ts';

const instant = (option: string, value: string): Date => {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(time)) {
    throw new UsageError(`--${option} must be an ISO 8601 time, e.g. 2025-06-01T09:00:00Z`);
  }
  return new Date(time);
};

const replay: CommandSpec = {
  summary: 'replay the events of a time range',
  usage: `msgbridge events replay --from ISO --to ISO [--name NAME] [--no-wait]

Puts the events published between --from and --to (ISO 8601, e.g. 2025-06-01T09:00:00Z) on the
bus again. Each replayed event carries a top-level "replay-name" field: rules that must not see
replays match "replay-name": [{"exists": false}] (see docs/operations.md).
  on a stack   EventBridge replays from the stack's archive into its bus; the command polls
               until the replay is COMPLETED, FAILED or CANCELLED (--no-wait returns at once)
  locally      the local run has no archive: the events of that range in its events file are
               put on the running bridge's bus again
--name defaults to msgbridge-cli-<time>.`,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    name: { type: 'string' },
    'no-wait': { type: 'boolean' },
  },
  run: async (context) => {
    const from = instant('from', context.required('from'));
    const to = instant('to', context.required('to'));
    if (to.getTime() <= from.getTime()) throw new UsageError('--to must be after --from');
    const now = context.deps.now?.() ?? new Date();
    const name =
      context.string('name') ??
      `msgbridge-cli-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}`;
    if (!/^[.\-_A-Za-z0-9]{1,64}$/.test(name)) {
      throw new UsageError('--name must be 1-64 of letters, digits, ".", "-" and "_"');
    }
    const target = await context.target();
    const events = target.events;
    if (events.kind === 'stack') {
      const progress = context.out.progress(`replaying ${name} (% of the range)`, 100);
      const result = await replayArchive({
        client: events.client,
        name,
        archiveArn: events.archiveArn,
        busArn: events.busArn,
        from,
        to,
        wait: !context.flag('no-wait'),
        sleep: context.deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        onProgress: (percent) => progress.update(percent),
      });
      progress.finish();
      context.out.emit(result, () =>
        context.out.line(`replay ${result.name}: ${result.state} on the ${target.describe()}`),
      );
      return 0;
    }
    let text: string;
    try {
      text = await context.io.readFile(events.file);
    } catch (error) {
      throw new CliError(
        `cannot read the local events file ${events.file}: ${(error as Error).message}`,
      );
    }
    const selected = localEventsInRange(text, from, to);
    const progress = context.out.progress(`replaying ${name}`, selected.length);
    const replayed = await replayLocally({
      replayUrl: events.replayUrl,
      name,
      events: selected,
      onProgress: (done) => progress.update(done),
    });
    progress.finish();
    context.out.emit({ name, state: 'COMPLETED', replayed }, () =>
      context.out.line(`replay ${name}: ${replayed} events put on the local bus again`),
    );
    return 0;
  },
};

export const eventsCommands: GroupSpec = {
  summary: 'the event bus: replay',
  commands: { replay },
};
