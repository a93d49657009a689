/**
 * The S3 part (`s3-part.mts`: the client and the commands of the rare S3 paths), imported by the
 * first call and shared after. The one place its import is written: the bundle keeps the path as
 * written, `./s3-part.mjs`, and finds the file the second build writes beside the handler
 * (`lib/bundling.ts`, `bundleLambdaAsync`).
 */
export const s3OnFirstUse = () => import('./s3-part.mjs');
