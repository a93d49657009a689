import type * as z from './zod.ts';

/** Adds a custom issue at `path` (relative to the value being refined) to a refinement. */
export const issue = (ctx: z.core.$RefinementCtx, path: PropertyKey[], message: string): void => {
  ctx.addIssue({ code: 'custom', path, message });
};
