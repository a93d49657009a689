#!/usr/bin/env node
// The `msgbridge` command. The CLI is TypeScript; tsx compiles it on the fly.
import { register } from 'tsx/esm/api';

register();
// The SDK warns on Node 20 that its releases after January 2027 will need Node 22. The versions
// here are pinned and support Node 20; the warning would only clutter the command's stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { main, processIo } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2), processIo);
