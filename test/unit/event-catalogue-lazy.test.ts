import { describe, expect, it, vi } from 'vitest';
import { MESSENGER_STATISTIC_NAMES } from '../../functions/catalogue/messenger-statistic-names.ts';
import { MESSENGER_STATS } from '../../gateway/schemas/messenger-statistics.ts';

// Counts the object schemas zod builds, so the test sees which parts of the catalogue exist.
const built = vi.hoisted(() => ({ objects: 0 }));
vi.mock('zod/mini', async (importOriginal) => {
  const z = await importOriginal<typeof import('zod/mini')>();
  const strictObject: typeof z.strictObject = (...args) => {
    built.objects += 1;
    return z.strictObject(...args);
  };
  return { ...z, strictObject };
});

describe('the event catalogue, imported by a Lambda', () => {
  it('builds an event schema on first use only, once, and only the one asked for', async () => {
    // Prepare (the gateway schemas this file imports are built already)
    const before = built.objects;
    const { EVENT_TYPES } = await import('../../functions/catalogue/index.ts');
    const atImport = built.objects - before;

    // Act
    const report = EVENT_TYPES.deliveryReport.data;
    const afterReport = built.objects - before;
    const again = EVENT_TYPES.deliveryReport.data;

    // Assess: the import builds no object schema; the report's (itself, its fallback reasons and
    // the claim-check reference) are built when asked for and then shared.
    expect(atImport).toBe(0);
    expect(afterReport).toBe(3);
    expect(again).toBe(report);
    expect(built.objects - before).toBe(afterReport);
  });

  it('names the messenger statistics of the gateway schemas, in their order', () => {
    expect([...MESSENGER_STATISTIC_NAMES]).toEqual(Object.keys(MESSENGER_STATS));
  });
});
