/**
 * Polls `condition` every `intervalMs` until it holds or `timeoutMs` has passed; answers whether
 * it held, so that a test asserts it with `expect(await waitFor(…)).toBe(true)`.
 */
export const waitFor = async (
  condition: () => boolean,
  timeoutMs: number,
  intervalMs = 200,
): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return true;
};
