import type * as z from 'zod/mini';

/** Every issue as `{path: 'a.0.b', code, message}`, so assertions can name the exact field. */
export const issuesOf = (schema: z.ZodMiniType, input: unknown) => {
  const result = schema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((i) => ({
        path: i.path.join('.'),
        code: i.code,
        message: i.message,
      }));
};

/** The paths of every issue. */
export const pathsOf = (schema: z.ZodMiniType, input: unknown) =>
  issuesOf(schema, input).map((i) => i.path);
