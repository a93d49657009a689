#!/usr/bin/env node
// The `msgbridge` command: the commands (cli/) with the console's server (console/). The CLI is
// TypeScript; tsx compiles it on the fly.
import { existsSync } from 'node:fs';

// The published package ships the constructs, the producer and the event types, not the CLI
// (it shares the local run's modules and their development dependencies): say so instead of
// failing on a missing module.
if (!existsSync(new URL('../cli/main.ts', import.meta.url))) {
  process.stderr.write(
    'msgbridge: the msgbridge command runs from a checkout of the msgbridge repository (npm ci, then npx msgbridge …); this package holds the CDK construct (msgbridge), the producer (msgbridge/send) and the event types (msgbridge/events).\n',
  );
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
// The SDK warns on Node 20 that its releases after January 2027 will need Node 22. The versions
// here are pinned and support Node 20; the warning would only clutter the command's stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const [{ main }, { processIo }] = await Promise.all([
  import('../cli/main.ts'),
  import('../cli/io.ts'),
]);
process.exitCode = await main(process.argv.slice(2), processIo, {
  // Loaded by `msgbridge console` only: no other command pays for the console's modules.
  serveConsole: async (target, options) =>
    (await import('../console/serve.ts')).startConsoleServer(target, options),
});
