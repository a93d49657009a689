/**
 * Writes the default-quota section of docs/performance.md from aws-semantics/default-quotas.ts
 * (scripts/quota-table.ts). Run with `npm run docs:quotas`; a unit test fails when the committed
 * page is out of date.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUOTA_TABLE_PATH, renderQuotaPage } from './quota-table.ts';

writeFileSync(join(import.meta.dirname, '..', QUOTA_TABLE_PATH), renderQuotaPage());
console.log(`wrote ${QUOTA_TABLE_PATH}`);
