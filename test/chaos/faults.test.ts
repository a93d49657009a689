/**
 * The chaos run's own parts: the fault plan is a function of the seed, the injectors do what
 * they claim (a lost response after a write that happened, a bus call killed after it returned),
 * and the simulator's HTTP 200 failures and acceptance ledger work.
 */
import { describe, expect, it } from 'vitest';
import {
  FaultPlan,
  FaultyBus,
  faultMixFor,
  killableLambda,
  LambdaKilledError,
} from '../../chaos/faults.ts';
import { buildWorkload } from '../../chaos/workload.ts';
import type { BusEntry, BusEntryResult, EventBus } from '../../functions/events/store-ports.ts';
import { startSimulator } from '../../simulator/index.ts';

const entry = (id: string): BusEntry => ({
  Source: 'msgbridge',
  DetailType: 'Test Happened',
  Detail: JSON.stringify({ metadata: { id }, data: {} }),
  Time: new Date(0),
});

class RecordingBus implements EventBus {
  readonly put: string[] = [];
  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    for (const e of entries) this.put.push(JSON.parse(e.Detail).metadata.id);
    return entries.map(() => ({ ok: true }));
  }
}

const alwaysFaulty = (kind: 'bus.killedAfterPut' | 'bus.partialFailure', seed = 1) => {
  const mix = faultMixFor(seed);
  const rates = Object.fromEntries(Object.keys(mix.rates).map((k) => [k, 0]));
  const plan = new FaultPlan(seed, {
    ...mix,
    rates: { ...(rates as typeof mix.rates), [kind]: 1 },
  });
  plan.armed = true;
  return plan;
};

describe('the fault plan', () => {
  it('draws the same decisions and the same workload for the same seed', () => {
    const decisions = (seed: number) => {
      const plan = new FaultPlan(seed, faultMixFor(seed));
      plan.armed = true;
      return Array.from({ length: 500 }, () => plan.draw('sqs.lostDelete'));
    };
    expect(decisions(7)).toEqual(decisions(7));
    expect(decisions(7)).not.toEqual(decisions(8));
    expect(faultMixFor(7)).toEqual(faultMixFor(7));
    const now = Date.parse('2026-11-24T00:00:00Z');
    expect(JSON.stringify(buildWorkload(7, 50, now))).toBe(
      JSON.stringify(buildWorkload(7, 50, now)),
    );
  });

  it('injects nothing while disarmed', () => {
    const plan = alwaysFaulty('bus.partialFailure');
    plan.armed = false;
    expect(plan.draw('bus.partialFailure')).toBe(false);
    expect(plan.injected).toEqual({});
  });
});

describe('the faulty bus', () => {
  it('kills the invocation after PutEvents returned and records those events as the unavoidable case', async () => {
    const inner = new RecordingBus();
    const bus = new FaultyBus(inner, alwaysFaulty('bus.killedAfterPut'));
    const handler = killableLambda('publish-events', async (ids: string[]) => {
      await bus.putEvents(ids.map(entry));
      return 'returned';
    });

    await expect(handler(['a', 'b'])).rejects.toBeInstanceOf(LambdaKilledError);

    expect(inner.put).toEqual(['a', 'b']);
    expect([...bus.unavoidable]).toEqual(['a', 'b']);
  });

  it('counts the events of earlier calls as unavoidable too when the kill comes mid-batch', async () => {
    const inner = new RecordingBus();
    const plan = alwaysFaulty('bus.killedAfterPut');
    let calls = 0;
    const secondCallOnly = Object.assign(Object.create(Object.getPrototypeOf(plan)), plan, {
      draw: (kind: string) => kind === 'bus.killedAfterPut' && ++calls === 2,
    }) as FaultPlan;
    const bus = new FaultyBus(inner, secondCallOnly);
    const handler = killableLambda('publish-events', async (ids: string[]) => {
      await bus.putEvents(ids.slice(0, 2).map(entry));
      await bus.putEvents(ids.slice(2).map(entry));
      return 'returned';
    });

    await expect(handler(['a', 'b', 'c'])).rejects.toBeInstanceOf(LambdaKilledError);

    expect([...bus.unavoidable].sort()).toEqual(['a', 'b', 'c']);
  });

  it('fails some entries of a call and puts only the others', async () => {
    const inner = new RecordingBus();
    const bus = new FaultyBus(inner, alwaysFaulty('bus.partialFailure'));
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);

    const results = await bus.putEvents(ids.map(entry));

    const failed = ids.filter((_, i) => !results[i]?.ok);
    expect(failed.length).toBeGreaterThan(0);
    expect(inner.put).toEqual(ids.filter((id) => !failed.includes(id)));
  });
});

describe('the simulator under chaos', () => {
  it('answers HTTP 200 with 29018, 29019 or 29039 at http200ErrorRate, and records each acceptance', async () => {
    const sim = await startSimulator({
      apiKey: 'k',
      apiPassword: 'p',
      port: 0,
      faults: { http200ErrorRate: 1 },
    });
    try {
      const response = await fetch(`${sim.url}/msg/v1.2/report`);
      const body = (await response.json()) as { code: string };
      expect(response.status).toBe(200);
      expect(['29018', '29019', '29039']).toContain(body.code);
      expect(sim.acceptances()).toEqual([]);
      expect(sim.snapshot().quotaRefusals).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
