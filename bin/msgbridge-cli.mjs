#!/usr/bin/env node
// The `msgbridge` command of a checkout: its TypeScript source (bin/cli.ts) through tsx, so that
// a change runs as soon as it is saved. The package ships it compiled instead (`npm run build`
// writes dist/cli/msgbridge.mjs, the package's `bin`).
const { register } = await import('tsx/esm/api');
register();
await import('./cli.ts');
