/**
 * Writes the send queue's contract documentation from its zod schemas and examples:
 * `docs/sending.md` and `docs/schemas/send-message.schema.json`.
 * Run with `npx tsx scripts/generate-sending-docs.ts`; a unit test fails when the committed files
 * are out of date.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSendingDocs } from './sending-docs.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [path, content] of Object.entries(renderSendingDocs())) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  console.log(`wrote ${path}`);
}
