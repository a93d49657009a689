import { onTestFinished, vi } from 'vitest';

/**
 * Sets `variables` in `process.env` for the running test only, as decoys: a composition that is
 * given its environment object must not read them.
 */
export const decoyProcessEnv = (variables: Readonly<Record<string, string>>): void => {
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
  onTestFinished(() => {
    vi.unstubAllEnvs();
  });
};
