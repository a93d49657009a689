import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/*
 * The simulator's schemas are written with `zod/mini`, as the bridge's are, and read with zod's
 * English messages, which `zod/mini` does not load: the simulator installs them itself, since it
 * shares no code with the bridge but `protocol/` (it is written from the spec, not from the
 * client it answers), and, as the bridge does, only where no messages are set yet. Every
 * simulator module written with zod imports `z` from here.
 */
if (config().localeError === undefined) config(en());

export * from 'zod/mini';
