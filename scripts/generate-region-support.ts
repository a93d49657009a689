/**
 * Writes `lib/region-support.ts` and the "Supported regions" section of docs/deploy.md from
 * cfn-lint's Region data (scripts/region-support.ts). Run with `npm run docs:regions`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { regionSupport, renderRegionSupport } from './region-support.ts';

const root = join(import.meta.dirname, '..');
for (const [path, content] of Object.entries(renderRegionSupport(regionSupport()))) {
  writeFileSync(join(root, path), content);
  console.log(`wrote ${path}`);
}
