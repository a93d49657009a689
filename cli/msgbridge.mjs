#!/usr/bin/env node
// The `msgbridge` command. The CLI is TypeScript; tsx compiles it on the fly.
import { register } from 'tsx/esm/api';

register();
const { main, processIo } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2), processIo);
