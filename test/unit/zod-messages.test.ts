import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';

// zod's messages are one process-wide setting (`z.config()` answers the object itself): each case
// starts with none chosen and the modules under test not yet evaluated, and the setting the
// other tests of this worker run with is put back after it.
const settings = z.config() as Record<string, unknown>;
const before = { ...settings };
const clear = () => {
  for (const key of Object.keys(settings)) delete settings[key];
};
beforeEach(() => {
  clear();
  vi.resetModules();
});
afterEach(() => {
  clear();
  Object.assign(settings, before);
});

const refusal = () =>
  z.prettifyError(z.object({ name: z.string() }).safeParse({ name: 1 }).error ?? expect.fail());

describe.each([
  ['gateway/schemas/zod.ts', () => import('../../gateway/schemas/zod.ts')],
  ['simulator/zod.ts', () => import('../../simulator/zod.ts')],
])("zod's messages, as %s installs them", (_name, load) => {
  it('are English where nothing chose messages: a refused field says what was expected', async () => {
    expect(refusal()).toBe('✖ Invalid input\n  → at name');
    await load();
    expect(refusal()).toBe('✖ Invalid input: expected string, received number\n  → at name');
  });

  it('leave alone the messages an app chose before importing the package', async () => {
    z.config({ localeError: () => '다른 메시지' });
    await load();
    expect(refusal()).toBe('✖ 다른 메시지\n  → at name');
  });
});
