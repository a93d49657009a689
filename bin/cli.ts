/**
 * The `msgbridge` command: the commands (cli/) with the console's server (console/), which
 * neither imports. `bin/msgbridge-cli.mjs` runs this file from a checkout and its compiled
 * bundle (`dist/cli/msgbridge.mjs`, `npm run build`) from the installed package.
 */
import { processIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';

// The SDK warns on Node 20 that its releases after January 2027 will need Node 22. The versions
// here are pinned and support Node 20; the warning would only clutter the command's stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

process.exitCode = await main(process.argv.slice(2), processIo, {
  // Loaded by `msgbridge console` only: no other command pays for the console's modules.
  serveConsole: async (target, options) =>
    (await import('../console/serve.ts')).startConsoleServer(target, options),
});
