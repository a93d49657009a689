/**
 * Writes the OpenAPI document of the webhook routes (`docs/openapi.json`) from the receivers' zod
 * schemas. Run with `npm run docs:openapi`; a unit test fails when the committed file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderOpenApi } from './openapi-docs.ts';

const root = join(import.meta.dirname, '..');
for (const [path, content] of Object.entries(renderOpenApi())) {
  writeFileSync(join(root, path), content);
  console.log(`wrote ${path}`);
}
