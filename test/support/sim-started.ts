/** Simulators that a test starts for itself, closed after that test. */
import { afterEach } from 'vitest';
import type { SimulatorOptionsInput } from '../../simulator/options.ts';
import { startSimulator } from '../../simulator/server.ts';
import { authenticate } from './simulator-http.ts';

/** The API key and password a simulator knows and its callers authenticate with. */
export interface SimulatorCredentials {
  readonly apiKey: string;
  readonly apiPassword: string;
}

/**
 * For a test file whose tests start their own simulators: `start(options)` starts one on a free
 * port and a manual clock, with `credentials`, then `defaults`, then `options`, and answers it with
 * a token for `credentials`. What `start` started, and whatever a test pushes on `running`
 * (receivers, servers), is closed after the test.
 */
export const simulatorsPerTest = (
  credentials: SimulatorCredentials,
  defaults: Partial<SimulatorOptionsInput> = {},
) => {
  const running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((thing) => thing.close()));
  });
  const start = async (options: Partial<SimulatorOptionsInput> = {}) => {
    const sim = await startSimulator({
      ...credentials,
      port: 0,
      clock: 'manual',
      ...defaults,
      ...options,
    });
    running.push(sim);
    const { token } = await authenticate(sim, credentials);
    return { sim, token };
  };
  return { start, running };
};
