/**
 * A value (a zod schema) built by `build` on the first call, the same instance on every later
 * one. The event schemas are built this way so that a Lambda builds only those it uses, when it
 * first uses them, instead of all of them when it starts (docs/performance.md, `cold-start`).
 *
 * A module-level call whose value some bundles never read carries the `@__PURE__` mark where it is
 * written (the event catalogue's): esbuild then leaves the unread schema out of those bundles. The
 * mark belongs at the call, since esbuild does not carry a function's own annotation to callers in
 * other modules.
 */
export const lazily = <T>(build: () => T): (() => T) => {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
};
