import { describe, expect, it } from 'vitest';
import { captureIo, runCli } from '../support/cli-gateway.ts';

/** `msgbridge events replay` with `from` and `to`, failing loudly if it reaches for a target. */
const replay = (from: string, to: string) =>
  runCli(
    ['events', 'replay', '--from', from, '--to', to],
    {
      resolveTarget: async () => {
        throw new Error('the times should have been refused before any target');
      },
    },
    captureIo(),
  );

describe('msgbridge events replay --from/--to', () => {
  it('refuses a time on an impossible calendar day instead of rolling it into the next month', async () => {
    // Date.parse reads 2026-02-30 as 2 March and 2026-09-31 as 1 October.
    for (const [from, to] of [
      ['2026-02-30T00:00:00Z', '2026-03-05T00:00:00Z'],
      ['2026-09-01T00:00:00Z', '2026-09-31T00:00:00Z'],
    ] as const) {
      const result = await replay(from, to);
      expect(result.code, from).toBe(2);
      expect(result.stderr).toMatch(/--(from|to) 2026-0[29]-3[01]T00:00:00Z is not a time/);
    }
  });
});
