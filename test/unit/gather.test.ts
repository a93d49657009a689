import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { gatherer } from '../../functions/commons/helpers/gather.ts';

describe('gatherer', () => {
  it('hands each caller its own item’s outcome from one flush', async () => {
    // Prepare
    const flushed: number[][] = [];
    const gather = gatherer<number, string>({
      capacity: 10,
      gatherMs: 5,
      flush: async (items) => {
        flushed.push([...items]);
        return items.map((item) =>
          item === 2
            ? { ok: false, error: new Error('two failed') }
            : { ok: true, value: `#${item}` },
        );
      },
    });

    // Act
    const outcomes = await Promise.allSettled([1, 2, 3].map(gather));

    // Assess
    expect(flushed).toEqual([[1, 2, 3]]);
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: '#1' },
      { status: 'rejected', reason: new Error('two failed') },
      { status: 'fulfilled', value: '#3' },
    ]);
  });

  it('goes at once when a group reaches its capacity, and splits what would overflow it', async () => {
    const flushed: number[][] = [];
    const gather = gatherer<number, number>({
      capacity: 10,
      weight: (item) => item,
      gatherMs: 60_000,
      schedule: () => undefined,
      flush: async (items) => {
        flushed.push([...items]);
        return items.map((value) => ({ ok: true, value }));
      },
    });

    // 4 + 6 fill a group; 3 + 8 would not fit, so 3 waits alone (never flushed here).
    const full = Promise.all([gather(4), gather(6)]);
    void gather(3);
    void gather(8);
    await full;

    expect(flushed).toEqual([[4, 6], [3]]);
  });

  it('flushes outside the callers’ async context, so a stalled caller cannot hold up the others', async () => {
    // Prepare: a flush that never returns when called in a "killed" context, as the local run's
    // stand-in for a frozen sandbox treats every call of a killed invocation.
    const invocation = new AsyncLocalStorage<{ killed: boolean }>();
    const gather = gatherer<string, string>({
      capacity: 10,
      gatherMs: 5,
      flush: (items) =>
        invocation.getStore()?.killed
          ? new Promise(() => undefined)
          : Promise.resolve(items.map((value) => ({ ok: true, value }))),
    });

    // Act: the group is opened (and its timer started) by the killed invocation.
    void invocation.run({ killed: true }, () => gather('killed'));
    const other = invocation.run({ killed: false }, () => gather('alive'));

    // Assess
    await expect(other).resolves.toBe('alive');
  });
});
