/**
 * The modules the functions import on first use (each a dynamic `import()`: the S3 part, the item
 * and send schemas, the secrets reader, the records of unreadable bodies). A Lambda container runs one function, where such an
 * import delays only its own request. The local run hosts every function in one process, where
 * the import (compiled by tsx on the way, 100 to 300 ms on this project's machines) stalls every
 * call in flight: a send the rate limiter let go
 * in one second then reaches the gateway in the next, which may already be full
 * (docs/reliability.md, guarantee 4). So the local run imports them before it takes any work;
 * `test/unit/first-use-modules.test.ts` checks that this list is every dynamic import of the
 * functions and the gateway client.
 */
export const FIRST_USE_MODULES = [
  () => import('../functions/commons/clients/s3-part.mjs'),
  () => import('../functions/commons/clients/secrets.ts'),
  () => import('../functions/received-items/body-records.ts'),
  () => import('../gateway/schemas/mo.ts'),
  () => import('../gateway/schemas/report-items.ts'),
  () => import('../gateway/schemas/send.ts'),
] as const;

/** Imports every module of {@link FIRST_USE_MODULES}. */
export const loadFirstUseModules = async (): Promise<void> => {
  await Promise.all(FIRST_USE_MODULES.map((load) => load()));
};
