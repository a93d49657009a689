/**
 * Writes `protocol/cp949-table.ts` from iconv-lite (see `scripts/cp949-table.ts`).
 * Run with `npm run cp949:table`; a unit test fails when the committed table is out of date.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCp949Table } from './cp949-table.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '..', 'protocol', 'cp949-table.ts');
writeFileSync(path, renderCp949Table());
console.log('wrote protocol/cp949-table.ts');
