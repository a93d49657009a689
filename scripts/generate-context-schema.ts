/**
 * Writes lib/context-schema.ts, the shape of the `msgbridge` CDK context object, from the props
 * interfaces in lib/ (scripts/context-schema.ts). Run with `npm run generate:context`; a unit test
 * fails when the committed module is out of date.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTEXT_SCHEMA_PATH, renderContextSchema } from './context-schema.ts';
import { propsSections } from './props-reference.ts';

writeFileSync(
  join(import.meta.dirname, '..', CONTEXT_SCHEMA_PATH),
  renderContextSchema(propsSections()),
);
console.log(`wrote ${CONTEXT_SCHEMA_PATH}`);
