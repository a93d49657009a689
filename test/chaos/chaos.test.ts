/**
 * The chaos tier: the seeded fault-injection run of the whole local bridge (`chaos/run.ts`) on a
 * few fixed seeds with small workloads. Each seed must end with every invariant holding: nothing
 * lost, nothing duplicated (the documented unavoidable case aside), no cliKey accepted twice,
 * nothing accepted reported as rejected, the quota never exceeded, no hostile body refused as if
 * the failure were temporary, every bad queue message (oversized, nested, a reused cliKey) one
 * "Send Rejected" within the bus's limit and never sent. `npm run chaos -- --seed S --items N`
 * runs any other seed.
 */
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../chaos/run.ts';

/** Seeds, each with or without "Message Accepted" events (off is the deployed default). */
const SEEDS = [
  [1, false],
  [2, false],
  [3, true],
] as const;

describe('npm run chaos', () => {
  it.each(SEEDS)(
    'seed %i ("Message Accepted" events: %s) keeps every promise under injected faults',
    async (seed, acceptedEvents) => {
      const lines: string[] = [];
      const result = await runChaos({
        seed,
        items: 30,
        faultWindowMs: 25_000,
        settleMs: 45_000,
        // A send still in the queue after a long backoff is pending, not lost: wait for it.
        queuedGraceMs: 45_000,
        log: (line) => lines.push(line),
        acceptedEvents,
      });

      // The run really met faults, at several ports.
      const ports = new Set(
        Object.keys(result.faults)
          .filter((kind) => (result.faults[kind] ?? 0) > 0)
          .map((kind) => kind.split('.')[0]),
      );
      expect([...ports].sort(), lines.join('\n')).toEqual(
        expect.arrayContaining(['bus', 'dynamodb', 'gateway', 'sqs']),
      );
      // Every invariant holds; on failure the run's own lines say which item broke which.
      expect(result.verdict.violations, lines.join('\n')).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.summary).toMatch(
        new RegExp(`^chaos: seed=${seed} items=30 lost=0 duplicated=0 unavoidable=\\d+ `),
      );
    },
  );
});
