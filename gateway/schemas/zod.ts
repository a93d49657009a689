import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/*
 * `z` for every schema of the bridge: zod's functional entry, `zod/mini`, which a bundle carries only
 * as far as it uses it (a receiver about 35 KiB of zod, where the classic entry, whose methods all
 * load together, took 95: docs/performance.md, "Every schema in `zod/mini`"). `zod/mini` loads no
 * messages of its own; this module installs zod's English ones, which the classic entry installs,
 * so a refused field reads "Invalid input: expected string, received number", not only "Invalid
 * input". A folder that may not import the gateway imports `zod/mini` itself
 * (docs/architecture.md, "How the layout is kept").
 *
 * Only where no messages are set yet: an app that imports this package (`msgbridge/send`) and chose
 * its own zod locale keeps it, as it would with the classic entry, which sets English only when it
 * is first imported.
 */
if (config().localeError === undefined) config(en());

export * from 'zod/mini';
