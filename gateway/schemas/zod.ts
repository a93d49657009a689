import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/*
 * The schemas a webhook receiver builds (the gateway's report and MO items, their lenient pieces,
 * and the event catalogue) are written with `zod/mini`, zod's tree-shakable functional entry: a
 * receiver bundles about 25 KiB of zod instead of the 95 KiB of the classic entry, whose methods
 * all load together (docs/performance.md). `zod/mini` loads no messages of its own; this module
 * installs zod's English ones, the same the classic entry installs, so an item refused by a
 * schema of either entry reads the same ("Invalid input: expected string, received number").
 * Every module written with `zod/mini` imports `z` from here.
 */
config(en());

export * from 'zod/mini';
