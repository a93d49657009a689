import { createInterface } from 'node:readline/promises';
import { LocalDateSchema } from '../../gateway/schemas/common.ts';
import { OperationError } from '../../ops/errors.ts';
import { replayWindow, republishPorts } from '../../ops/operations.ts';
import {
  planRepublish,
  type RepublishPlan,
  type RepublishResult,
  runRepublish,
} from '../../ops/republish.ts';
import { UsageError } from '../errors.ts';
import { type CommandSpec, flagOptions, type GroupSpec, valueOptions } from '../framework.ts';

const instant = (option: string, value: string): Date => {
  const time = Date.parse(value);
  // Date.parse rolls an impossible day over (2026-02-30 is 2 March): the day as written must be
  // a real one, by the gateway schemas' calendar check.
  if (
    !/^\d{4}-\d{2}-\d{2}T/.test(value) ||
    Number.isNaN(time) ||
    !LocalDateSchema.safeParse(value.slice(0, 10)).success
  ) {
    throw new UsageError(
      `--${option} ${value} is not a time: it must be ISO 8601, e.g. 2025-06-01T09:00:00Z`,
    );
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
--name defaults to msgbridge-cli-<time in UTC>, e.g. msgbridge-cli-20261207T040509Z.`,
  options: { ...valueOptions('from', 'to', 'name'), ...flagOptions('no-wait') },
  run: async (context) => {
    const from = instant('from', context.required('from'));
    const to = instant('to', context.required('to'));
    if (to.getTime() <= from.getTime()) throw new UsageError('--to must be after --from');
    const now = context.deps.now?.() ?? new Date();
    const name =
      context.string('name') ??
      `msgbridge-cli-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}Z`;
    if (!/^[.\-_A-Za-z0-9]{1,64}$/.test(name)) {
      throw new UsageError('--name must be 1-64 of letters, digits, ".", "-" and "_"');
    }
    const target = await context.target();
    let progress: ReturnType<typeof context.out.progress> | undefined;
    const label =
      target.events.kind === 'stack' ? `replaying ${name} (% of the range)` : `replaying ${name}`;
    const result = await replayWindow(target, {
      name,
      from,
      to,
      wait: !context.flag('no-wait'),
      readFile: context.io.readFile,
      ...(context.deps.sleep ? { sleep: context.deps.sleep } : {}),
      onTotal: (total) => {
        progress = context.out.progress(label, total);
      },
      onProgress: (done) => progress?.update(done),
    });
    progress?.finish();
    const range = `${context.out.time(from.toISOString())} to ${context.out.time(to.toISOString())}`;
    context.out.emit(result, () =>
      context.out.line(
        result.replayed === undefined
          ? `replay ${result.name} (${range}): ${result.state} on the ${target.describe()}`
          : `replay ${result.name} (${range}): ${result.replayed} events put on the local bus again`,
      ),
    );
    return 0;
  },
};

const planLines = (plan: RepublishPlan): string[] => [
  `${plan.items.length} ${plan.items.length === 1 ? 'event' : 'events'} to publish from the event table; ${plan.alreadyPublished} of the failed stream records are already on the bus`,
  `${plan.batches.length} failed stream ${plan.batches.length === 1 ? 'batch' : 'batches'} to remove once published${plan.unavailable.length > 0 ? `, ${plan.unavailable.length} whose records cannot be found any more:` : ''}`,
  ...plan.unavailable.map((batch) => `  ${batch.description}: ${batch.unavailable}`),
];

/** Asks on a terminal; elsewhere --yes is required. */
const confirmed = async (question: string): Promise<boolean> => {
  if (!process.stdin.isTTY) {
    throw new OperationError(
      `${question} — pass --yes to publish without asking (or --dry-run to look)`,
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
};

const republish: CommandSpec = {
  summary: 'publish the events publish-events could not, from the event table',
  usage: `msgbridge events republish [--dry-run] [--yes]

Publishes the events that publish-events could not put on the bus, from the items stored in the
event table, each with its stored detail (the same metadata.id, so subscribers that de-duplicate
see it once):
  - items the publisher marked "unpublished" in the state table (an entry PutEvents kept refusing,
    or an item that could not become an event);
  - the stream records in the publisher's on-failure queue (on a stack: Lambda's pointers to shard
    ranges, read back from the table's stream, which keeps them 24 hours; locally: the local run's
    failed records), except those already marked as published.
Each published item is marked "published", so running again publishes nothing twice; an
on-failure message is deleted only after every item it names is on the bus. Items that still
fail, and ranges the stream no longer holds, are listed and left in place (exit code 1).
  --dry-run   list what would be published and change nothing
  --yes       publish without asking (required when stdin is not a terminal)`,
  options: { 'dry-run': { type: 'boolean' }, yes: { type: 'boolean' } },
  run: async (context) => {
    const target = await context.target();
    const ports = republishPorts(target);
    let result: RepublishResult | undefined;
    try {
      const plan = await planRepublish(ports);
      const summary = {
        toPublish: plan.items.length,
        alreadyPublished: plan.alreadyPublished,
        batches: plan.batches.length,
        unavailable: plan.unavailable.map(({ description, unavailable }) => ({
          description,
          reason: unavailable,
        })),
      };
      if (context.flag('dry-run')) {
        context.out.emit({ dryRun: true, ...summary }, () => {
          for (const line of planLines(plan)) context.out.line(line);
          for (const item of plan.items) {
            context.out.line(
              `  ${item.key.pk} ${item.key.sk}${item.reason ? `: ${item.reason}` : ''}`,
            );
          }
        });
        return 0;
      }
      if (plan.items.length > 0 || plan.batches.length > 0) {
        if (!context.out.json) for (const line of planLines(plan)) context.out.note(line);
        const question = `publish ${plan.items.length} events on the ${target.describe()}?`;
        if (!context.flag('yes') && !(await confirmed(question))) {
          context.out.note('nothing published');
          return 1;
        }
      }
      const progress = context.out.progress('republishing', plan.items.length);
      result = await runRepublish(plan, ports, (done) => progress.update(done));
      progress.finish();
    } finally {
      await ports.release();
    }
    const done = result;
    context.out.emit(done, () =>
      context.out.line(
        `published ${done.published} ${done.published === 1 ? 'event' : 'events'} on the ${target.describe()}; ${done.alreadyPublished} already on the bus; ${done.settled} failed ${done.settled === 1 ? 'batch' : 'batches'} removed`,
      ),
    );
    const problems = [
      ...done.failed.map(({ key, reason }) => `${key.pk} ${key.sk}: ${reason}`),
      ...done.unavailable.map((batch) => `${batch.description}: ${batch.unavailable}`),
      ...(done.unmarked > 0
        ? [`${done.unmarked} published but not marked: a second run would publish them again`]
        : []),
    ];
    if (problems.length > 0) {
      throw new OperationError(
        `${done.failed.length} not published, ${done.unavailable.length} failed ${done.unavailable.length === 1 ? 'batch' : 'batches'} not readable`,
        problems,
      );
    }
    return 0;
  },
};

export const eventsCommands: GroupSpec = {
  summary: 'the event bus: replay, republish',
  commands: { replay, republish },
};
