/** The options of a local run that a test file names: its own data directory, secret and credentials. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalBridgeOptions } from '../../local/bridge.ts';

/**
 * A data directory `msgbridge-NAME-…` under the system temporary directory, and the options that
 * start a quiet local run on it on free ports, with the webhook secret `NAME-secret-0123456789`
 * and the simulator credentials `NAME-key` / `NAME-password` (`credentials`, which bridge.json
 * also holds). `name` has at most 16 characters, as the API key may have 20.
 */
export const namedLocalRun = (name: string) => {
  const webhookSecret = `${name}-secret-0123456789`;
  const credentials = { apiKey: `${name}-key`, apiPassword: `${name}-password` };
  const dataDir = mkdtempSync(join(tmpdir(), `msgbridge-${name}-`));
  return {
    dataDir,
    webhookSecret,
    credentials,
    /** The run's options: these, then `settings` over them. */
    options: (
      settings: Omit<
        LocalBridgeOptions,
        'port' | 'simulatorPort' | 'webhookSecret' | 'dataDir' | 'apiKey' | 'apiPassword'
      >,
    ): LocalBridgeOptions => ({
      port: 0,
      simulatorPort: 0,
      webhookSecret,
      dataDir,
      ...credentials,
      printEvents: false,
      ...settings,
    }),
  };
};
