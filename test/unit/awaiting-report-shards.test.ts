import { describe, expect, it } from 'vitest';
import {
  AWAITING_REPORT_SHARDS,
  awaitingReportBucket,
  awaitingReportBuckets,
  awaitingReportShard,
} from '../../functions/commons/tables.ts';
import { reconcileStatus } from '../../functions/reconcile/reconcile-use-case.ts';
import { ago, HOUR, world } from '../support/reconcile-world.ts';

const MINUTE = 60_000;

/** A reconcile world whose entries are sharded; `legacy` entries sit in the plain hour bucket. */
const bucketedWorld = (settings: Parameters<typeof world>[0] = {}) => {
  const w = world(settings);
  const accept = (cliKey: string, acceptedAt: string, legacy = false) => {
    w.accept(cliKey, acceptedAt);
    if (!legacy)
      w.index.add(
        { cliKey, acceptedAt, msgKey: `M-${cliKey}` },
        awaitingReportBucket(acceptedAt, cliKey),
      );
  };
  return { w, index: w.index, accept, deps: () => w.deps() };
};

describe('awaitingReportShard', () => {
  it('gives each cliKey a fixed shard: entries of one release are found by the next', () => {
    // Pinned: changing the hash strands every entry written before the change.
    expect(['a', 'sms-1', 'sms-2', '고객-1', 'x'.repeat(40)].map(awaitingReportShard)).toEqual([
      3, 10, 10, 2, 4,
    ]);
  });

  it('spreads cliKeys evenly over the shards, also keys that differ only in high bits', () => {
    // Prepare: sequential keys, and keys whose characters differ by 16 (same low four bits)
    const sequential = Array.from({ length: 16_000 }, (_, i) => `c-20261125-${i}`);
    const highBits = Array.from({ length: 16_000 }, (_, i) =>
      [...i.toString(4).padStart(7, '0')]
        .map((d) => String.fromCharCode(0x41 + 16 * Number(d)))
        .join(''),
    );

    for (const keys of [sequential, highBits]) {
      // Act
      const counts = Array<number>(AWAITING_REPORT_SHARDS).fill(0);
      for (const key of keys)
        counts[awaitingReportShard(key)] = (counts[awaitingReportShard(key)] ?? 0) + 1;

      // Assess: 1,000 each expected; ±10 % is over three standard deviations
      expect(Math.min(...counts)).toBeGreaterThan(900);
      expect(Math.max(...counts)).toBeLessThan(1_100);
    }
  });
});

describe('awaitingReportBucket and awaitingReportBuckets', () => {
  it('keys an entry by the hour of its acceptance and its shard', () => {
    expect(awaitingReportBucket('2026-11-25T04:59:59.999Z', 'sms-1')).toBe(
      `2026-11-25T04#${awaitingReportShard('sms-1')}`,
    );
  });

  it('names every shard of an hour once, and the unsharded bucket of earlier releases', () => {
    // Act
    const buckets = awaitingReportBuckets('2026-11-25T04');

    // Assess
    expect(buckets).toHaveLength(AWAITING_REPORT_SHARDS + 1);
    expect(new Set(buckets).size).toBe(buckets.length);
    expect(buckets).toContain('2026-11-25T04');
    for (let i = 0; i < 1_000; i++)
      expect(buckets).toContain(awaitingReportBucket('2026-11-25T04:30:00.000Z', `k-${i}`));
  });
});

describe('reconcileStatus over the sharded index', () => {
  it('finds and settles recipients in every shard and in the unsharded bucket of an hour', async () => {
    // Prepare: 40 recipients over the shards of two hours, and two written before the shards
    const { w, index, accept, deps } = bucketedWorld({ pageSize: 3 });
    const cliKeys = Array.from({ length: 40 }, (_, i) => `k-${i}`);
    for (const [i, cliKey] of cliKeys.entries()) accept(cliKey, ago((i % 2 === 0 ? 2 : 50) * HOUR));
    accept('legacy-1', ago(3 * HOUR), true);
    accept('legacy-2', ago(95 * HOUR), true);
    const shardsUsed = new Set([...index.entries.values()].map((e) => e.bucket));

    // Act
    const result = await reconcileStatus(deps());

    // Assess
    expect(shardsUsed.size).toBeGreaterThan(10);
    expect(result).toMatchObject({ examined: 42, reportsReconciled: 42, stoppedBy: 'complete' });
    expect(w.gateway.keysQueried().sort()).toEqual([...cliKeys, 'legacy-1', 'legacy-2'].sort());
    expect(index.entries.size).toBe(0);
  });

  it('keeps the budget across shards: the rest waits for the next run, oldest hour first', async () => {
    // Prepare: 30 in an old hour, 30 in a recent one
    const { w, index, accept, deps } = bucketedWorld({ maxRecipients: 25, pageSize: 4 });
    for (let i = 0; i < 30; i++) accept(`old-${i}`, ago(40 * HOUR));
    for (let i = 0; i < 30; i++) accept(`new-${i}`, ago(HOUR));

    // Act
    const first = await reconcileStatus(deps());
    const second = await reconcileStatus(deps());
    const third = await reconcileStatus(deps());

    // Assess
    expect(first).toMatchObject({ examined: 25, stoppedBy: 'budget' });
    expect(
      w.gateway
        .keysQueried()
        .slice(0, 25)
        .every((k) => k.startsWith('old-')),
    ).toBe(true);
    expect(second).toMatchObject({ examined: 25, stoppedBy: 'budget' });
    expect(third).toMatchObject({ examined: 10, stoppedBy: 'complete' });
    expect(index.entries.size).toBe(0);
  });

  it('reads the first pages of an hour together, and each bucket once a run', async () => {
    // Prepare
    const { index, accept, deps } = bucketedWorld({ afterMinutes: 30, horizonHours: 2 });
    accept('one', ago(40 * MINUTE));

    // Act
    await reconcileStatus(deps());

    // Assess: the 2 or 3 hours of the range, each with its 17 buckets
    const bucketsRead = index.pagesRead.map((page) => page.bucket);
    const hours = new Set(bucketsRead.map((bucket) => bucket.slice(0, 13)));
    expect(bucketsRead).toHaveLength(hours.size * (AWAITING_REPORT_SHARDS + 1));
    expect(new Set(bucketsRead).size).toBe(bucketsRead.length);
    expect(index.maxInFlight).toBe(AWAITING_REPORT_SHARDS + 1);
  });
});
