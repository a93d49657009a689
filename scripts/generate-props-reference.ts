/**
 * Writes docs/props.md, the reference of every prop of `MsgBridge`, from the declarations in
 * lib/ (scripts/props-reference.ts). Run with `npm run docs:props`; a unit test fails when the
 * committed page is out of date.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROPS_REFERENCE_PATH, renderPropsReference } from './props-reference.ts';

writeFileSync(join(import.meta.dirname, '..', PROPS_REFERENCE_PATH), renderPropsReference());
console.log(`wrote ${PROPS_REFERENCE_PATH}`);
