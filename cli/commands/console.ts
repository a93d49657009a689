import { OperationError } from '../../ops/errors.ts';
import type { CommandSpec } from '../framework.ts';

/** The port `msgbridge console` listens on unless told (npm start's console is on PORT, 3000). */
export const DEFAULT_CONSOLE_PORT = 3100;

const untilInterrupted = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

export const consoleCommand: CommandSpec = {
  summary: 'the operator console in a browser, on 127.0.0.1',
  usage: `msgbridge console [--port N] [--tps-quota N]

Serves the operator console (docs/console.md) on http://127.0.0.1:N/console for the target: the
timeline of one message, the flow of events with per-minute charts, and the quarantine and
failures with the redrive, republish and replay actions. It reads and acts with the same calls
as the other commands, so it needs the permissions they document (docs/operations.md) and adds
nothing to the stack. It listens on 127.0.0.1 only, and runs until Ctrl+C.
  --port N        the port (default ${DEFAULT_CONSOLE_PORT}; 0 picks a free one)
  --tps-quota N   the gateway's TPS quota, for the quota chart (a stack's sending.tpsQuota)`,
  options: { port: { type: 'string' }, 'tps-quota': { type: 'string' } },
  run: async (context) => {
    const port = context.integer('port', DEFAULT_CONSOLE_PORT, { min: 0, max: 65_535 });
    const quota = context.string('tps-quota');
    const tpsQuota =
      quota === undefined ? undefined : context.integer('tps-quota', 0, { min: 1, max: 100_000 });
    const serve = context.deps.serveConsole;
    if (serve === undefined) throw new OperationError('this build of the command has no console');
    const target = await context.target();
    const server = await serve(target, {
      port,
      ...(tpsQuota === undefined ? {} : { tpsQuota }),
      ...(context.deps.sleep === undefined ? {} : { sleep: context.deps.sleep }),
    });
    context.out.line(`msgbridge console for the ${target.describe()}: ${server.url}`);
    context.out.line('Ctrl+C stops it.');
    try {
      await (context.deps.interrupted ?? untilInterrupted)();
    } finally {
      await server.close();
    }
    return 0;
  },
};
