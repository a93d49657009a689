/**
 * zod with its object builders counted, so a test sees which object schemas exist. A test file
 * mocks zod with it and reads `built.objects` before and after what it checks:
 *
 * ```ts
 * vi.mock('zod', async (importOriginal) =>
 *   (await import('../support/counted-zod.ts')).countedZod(importOriginal),
 * );
 * ```
 *
 * This module imports nothing from zod itself, so the mock's factory can load it.
 */

/** How many object schemas (`object`, `strictObject`, `looseObject`) zod has built so far. */
export const built = { objects: 0 };

/** The mock factory's body: the real zod, with its object builders counting into `built`. */
export const countedZod = async (importOriginal: <T>() => Promise<T>) => {
  const z = await importOriginal<typeof import('zod')>();
  const counted =
    <F extends (...args: never[]) => unknown>(build: F) =>
    (...args: Parameters<F>) => {
      built.objects += 1;
      return build(...args) as ReturnType<F>;
    };
  return {
    ...z,
    object: counted(z.object),
    strictObject: counted(z.strictObject),
    looseObject: counted(z.looseObject),
  };
};
