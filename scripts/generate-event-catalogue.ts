/**
 * Writes the published event contract from its zod schemas: one JSON Schema file per event type
 * (`docs/events/<detail-type>.schema.json`), the catalogue page `docs/events.md` and the
 * subscribers' TypeScript types `events/index.ts` and the EventBridge schema registry documents
 * `docs/events/registry/<detail-type>.json` (for the default source).
 * Run with `npm run docs:events`; a unit test fails when the committed files are out of date.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderEventArtefacts } from './event-artefacts.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = renderEventArtefacts();
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  console.log(`wrote ${path}`);
}
