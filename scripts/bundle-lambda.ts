/**
 * Bundles one Lambda entry as deployed: `node --import tsx scripts/bundle-lambda.ts <entry> <outdir>`.
 * The stack's local bundling runs it (`bundleLambdaSync` in `lib/bundling.ts`): esbuild's plugins
 * need its asynchronous API, which a CDK asset's `tryBundle` cannot await.
 */
import { build } from 'esbuild';
import { bundleLambdaAsync } from '../lib/bundling.ts';

const [entry, outdir, ...rest] = process.argv.slice(2);
if (entry === undefined || outdir === undefined || rest.length > 0) {
  process.stderr.write('usage: node --import tsx scripts/bundle-lambda.ts <entry> <outdir>\n');
  process.exit(2);
}
await bundleLambdaAsync({ build }, entry, outdir);
