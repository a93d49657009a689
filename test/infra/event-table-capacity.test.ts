/**
 * The event table's capacity from its first day: on-demand by default, pre-warmed for a rate a new
 * table would not take at once when `tables.eventTableWarmWritesPerSecond` asks for it.
 */
import { describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import { msgBridgeProblems } from '../../lib/msgbridge-props.ts';
import { synth } from '../support/jobs-stack.ts';
import { stackProblems } from '../support/stack-template.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

describe('the event table’s warm throughput', () => {
  it('is left to on-demand by default, and pre-warmed for the writes asked for', () => {
    const defaults = synth();
    const warmed = synth({ tables: { eventTableWarmWritesPerSecond: 7_000 } });

    expect(defaults.resource(defaults.stack.eventTable).Properties?.WarmThroughput).toBeUndefined();
    expect(warmed.resource(warmed.stack.eventTable).Properties?.WarmThroughput).toEqual({
      WriteUnitsPerSecond: 7_000,
    });
    // The state table is not: its writes are a fraction of the event table's.
    expect(warmed.resource(warmed.stack.stateTable).Properties?.WarmThroughput).toBeUndefined();
  });

  it('takes more than a new table’s 4,000 and at most the per-table quota of 40,000', () => {
    expect(stackProblems({ tables: { eventTableWarmWritesPerSecond: 4_000 } })).toEqual([
      'tables.eventTableWarmWritesPerSecond must be an integer from 4001 to 40000, got 4000',
    ]);
    expect(stackProblems({ tables: { eventTableWarmWritesPerSecond: 40_001 } })).toHaveLength(1);
    expect(
      msgBridgeProblems({
        gateway: TEST_GATEWAY,
        tables: { eventTableWarmWritesPerSecond: 12_000 },
      }),
    ).toEqual([]);
  });

  it('is read from the msgbridge context', () => {
    expect(
      stackPropsFromContext({
        gateway: TEST_GATEWAY,
        tables: { eventTableWarmWritesPerSecond: 9_000 },
      }).tables,
    ).toEqual({ eventTableWarmWritesPerSecond: 9_000 });
  });
});
