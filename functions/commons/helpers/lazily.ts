/**
 * A value (a zod schema) built by `build` on the first call, the same instance on every later
 * one. The event schemas are built this way so that a Lambda builds only those it uses, when it
 * first uses them, instead of all of them when it starts (docs/performance.md, `cold-start`).
 */
export const lazily = <T>(build: () => T): (() => T) => {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
};
