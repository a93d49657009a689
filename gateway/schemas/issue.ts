import type * as z from 'zod';

/** Adds a custom issue at `path` (relative to the value being refined) to a refinement. */
export const issue = (ctx: z.RefinementCtx, path: PropertyKey[], message: string): void => {
  ctx.addIssue({ code: 'custom', path, message });
};
