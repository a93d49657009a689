import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import {
  type LocalBridge,
  type LocalBridgeInstrument,
  startLocalBridge,
} from '../../local/bridge.ts';
import { writeBridgeFile } from '../../local/bridge-file.ts';
import { runCli } from './cli-gateway.ts';
import { namedLocalRun } from './named-local-run.ts';

/** What sets one CLI test file's local run apart from another's. */
export interface CliLocalRunOptions {
  /**
   * Names the data directory (`msgbridge-NAME-…` under the system temporary directory), and the
   * run's webhook secret and simulator credentials (which bridge.json also holds): at most 16
   * characters, as the API key `NAME-key` may have 20.
   */
  readonly name: string;
  /** The simulator's seed. */
  readonly seed: number;
  /** Faults to inject at the functions' clients (see `LocalBridgeInstrument`). */
  readonly instrument?: LocalBridgeInstrument;
}

/**
 * A local run for the msgbridge command, started the way `npm start` starts it (bridge.json
 * written by the same function). The data directory exists at once, so a test file can name files
 * in it and define its runner at module scope; `start` (in `beforeAll`) starts the bridge and
 * `stop` (in `afterAll`) stops it and removes the directory. `msgbridge(ARGS…)` runs
 * `msgbridge ARGS… --local DIR` in process on the file system and captures its output.
 */
export const cliLocalRun = ({ name, seed, instrument }: CliLocalRunOptions) => {
  const run = namedLocalRun(name);
  const { dataDir, credentials } = run;
  let bridge: LocalBridge | undefined;
  return {
    dataDir,
    start: async (): Promise<LocalBridge> => {
      bridge = await startLocalBridge(
        run.options({
          tpsQuota: 100,
          simulator: { reportDelayMs: 200, failureRate: 0, seed },
          ...(instrument ? { instrument } : {}),
        }),
      );
      await writeBridgeFile(dataDir, bridge, credentials);
      return bridge;
    },
    stop: async () => {
      await bridge?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    msgbridge: (...args: string[]) => runCli([...args, '--local', dataDir]),
  };
};

/**
 * A `cliLocalRun` for a whole test file: started in `beforeAll`, stopped in `afterAll`. `bridge()`
 * is the started local run (it throws before `beforeAll` has run).
 */
export const useCliLocalRun = (options: CliLocalRunOptions) => {
  const run = cliLocalRun(options);
  let started: LocalBridge | undefined;
  beforeAll(async () => {
    started = await run.start();
  }, 120_000);
  afterAll(() => run.stop());
  return {
    dataDir: run.dataDir,
    msgbridge: run.msgbridge,
    bridge: (): LocalBridge => {
      if (started === undefined) throw new Error(`the ${options.name} local run has not started`);
      return started;
    },
  };
};

/** `msgbridge send` of one SMS from flags, sent from the local run's callback number. */
export const sendSmsArgs = (sms: {
  readonly to: string;
  readonly text: string;
  readonly key: string;
}) => [
  'send',
  ...['--channel', 'sms', '--from', '0215880000'],
  ...['--to', sms.to, '--text', sms.text, '--key', sms.key],
];
