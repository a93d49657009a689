import { describe, expect, it } from 'vitest';
import type { Lease } from '../../functions/commons/lease.ts';
import { ReconcileSettingsSchema } from '../../functions/reconcile/reconcile-ports.ts';
import { reconcileStatusExclusively } from '../../functions/reconcile/reconcile-use-case.ts';
import { ago, HOUR, world } from '../support/reconcile-world.ts';

describe('reconcileStatusExclusively', () => {
  const fakeLease = (free: boolean) => {
    const calls: string[] = [];
    const lease: Lease = {
      acquire: async (name, owner) => {
        calls.push(`acquire ${name} ${owner}`);
        return free;
      },
      renew: async () => true,
      release: async (name, owner) => {
        calls.push(`release ${name} ${owner}`);
      },
    };
    return { lease, calls };
  };

  it('does nothing while another run holds the lease', async () => {
    const w = world();
    w.unanswered('l1', ago(3 * HOUR));
    const { lease, calls } = fakeLease(false);

    const result = await reconcileStatusExclusively(w.deps(), { lease, owner: 'me', ttlMs: 1 });

    expect(result).toEqual({ kind: 'busy' });
    expect(w.unknown.entries.size).toBe(1);
    expect(w.gateway.calls).toHaveLength(0);
    expect(calls).toEqual(['acquire reconcile-status me']);
  });

  it('runs under the lease and gives it back, also when the run fails', async () => {
    const w = world();
    w.unanswered('l1', ago(3 * HOUR));
    const ok = fakeLease(true);
    const failing = fakeLease(true);

    const result = await reconcileStatusExclusively(w.deps(), {
      lease: ok.lease,
      owner: 'me',
      ttlMs: 1,
    });
    w.unanswered('l2', ago(3 * HOUR));
    w.gateway.failWith = new Error('boom');
    const failed = reconcileStatusExclusively(w.deps(), {
      lease: failing.lease,
      owner: 'me',
      ttlMs: 1,
    });

    expect(result).toMatchObject({ kind: 'done', unknownAccepted: 1 });
    expect(ok.calls).toEqual(['acquire reconcile-status me', 'release reconcile-status me']);
    await expect(failed).rejects.toThrow('boom');
    expect(failing.calls.at(-1)).toBe('release reconcile-status me');
  });
});

describe('settings', () => {
  it('refuses a horizon no longer than the wait, and one beyond the 90-day query range', () => {
    const short = ReconcileSettingsSchema.safeParse({ afterMinutes: 120, horizonHours: 2 });
    const long = ReconcileSettingsSchema.safeParse({ horizonHours: 90 * 24 + 1 });

    expect(short.success).toBe(false);
    expect(long.success).toBe(false);
    expect(ReconcileSettingsSchema.parse({})).toEqual({
      afterMinutes: 30,
      horizonHours: 96,
      maxRecipients: 5_000,
      pageSize: 100,
      unknownAfterMinutes: 2,
      notSentAfterMinutes: 10,
    });
  });
});
