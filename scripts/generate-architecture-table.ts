/**
 * Writes the "Modules" table of docs/architecture.md from the rule set the architecture test
 * holds the code to (`scripts/architecture-rules.ts`). Run with `npm run docs:architecture`; the
 * test fails when the committed table is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withModulesTable } from './architecture-rules.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'architecture.md');
writeFileSync(path, withModulesTable(readFileSync(path, 'utf8')));
console.log('wrote docs/architecture.md');
