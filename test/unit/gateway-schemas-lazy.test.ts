import { describe, expect, it, vi } from 'vitest';
import { built } from '../support/counted-zod.ts';

// Counts the object schemas zod builds, so the test sees which schemas exist.
vi.mock('zod/mini', async (importOriginal) =>
  (await import('../support/counted-zod.ts')).countedZod(importOriginal),
);

describe('the tracking-URL and opt-out schemas, imported with the gateway client', () => {
  it('builds none at import, and each on its first parse only', async () => {
    // Prepare: the shared pieces they are made of are built at import.
    await import('../../gateway/schemas/common.ts');
    await import('../../gateway/schemas/lenient.ts');
    const before = built.objects;

    // Act
    const tracking = await import('../../gateway/schemas/tracking-urls.ts');
    const optOut = await import('../../gateway/schemas/opt-out.ts');
    const atImport = built.objects - before;
    const statistics = tracking.UrlStatsByUrlRequestSchema.safeParse({});
    const afterFirst = built.objects - before;
    tracking.UrlStatsByUrlRequestSchema.safeParse({});
    const afterSecond = built.objects - before;
    const list = optOut.OptOutListQuerySchema.safeParse({});

    // Assess
    expect(atImport).toBe(0);
    expect(statistics.success).toBe(false);
    expect(afterFirst).toBeGreaterThan(0);
    expect(afterSecond).toBe(afterFirst);
    expect(list.success).toBe(false);
    expect(built.objects - before).toBeGreaterThan(afterSecond);
  });
});
