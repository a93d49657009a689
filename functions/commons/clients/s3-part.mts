/**
 * What the rare S3 paths use (a receiver's claim check, an MMS's attachments, the poller's
 * quarantine), imported with `import('…/s3-part.mjs')` by their first use.
 *
 * Deployed, this module is a file of its own beside the handler, `s3-part.mjs`, bundled by a second
 * esbuild build with its own copy of the SDK's core (`lib/bundling.ts`, `bundleLambdaAsync`): in one
 * build with the handler, the SDK modules S3 shares with DynamoDB carry S3's serialisers into the
 * files every cold start reads (about 43 KiB of a receiver; docs/performance.md, `cold-start`).
 * The `.mts` file name is what lets the same literal path work everywhere: TypeScript, tsx and
 * Vite read `./s3-part.mjs` as this source, the published JavaScript is compiled to that name, and
 * the bundler leaves the import as written, for the file it builds apart.
 */
export { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
export { deleteObject, getText, listKeys, s3Client } from './s3.ts';
