/**
 * docs/props.md, the props reference of `MsgBridge`, is what the declarations say: every prop of
 * the construct and of each props interface it holds, with its type and its default. So is
 * lib/context-schema.ts, the shape of the `cdk.json` context that sets the same props.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MSGBRIDGE_PROP_NAMES } from '../../lib/msgbridge-props.ts';
import { CONTEXT_SCHEMA_PATH, renderContextSchema } from '../../scripts/context-schema.ts';
import {
  PROPS_REFERENCE_PATH,
  type PropsSection,
  propsSections,
  renderPropsReference,
} from '../../scripts/props-reference.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('the props reference', () => {
  let sections: PropsSection[];
  beforeAll(() => {
    sections = propsSections();
  }, 60_000);

  it('is committed exactly as generated (run `npm run docs:props`)', () => {
    expect(readFileSync(join(ROOT, PROPS_REFERENCE_PATH), 'utf8')).toBe(
      renderPropsReference(sections),
    );
  });

  it('gives the context schema, committed exactly as generated (run `npm run generate:context`)', () => {
    expect(readFileSync(join(ROOT, CONTEXT_SCHEMA_PATH), 'utf8')).toBe(
      renderContextSchema(sections),
    );
  });

  it('lists every prop the construct accepts, and no other', () => {
    const [construct] = sections;
    expect(construct?.name).toBe('MsgBridgeProps');
    expect(construct?.props.map((prop) => prop.path).sort()).toEqual(
      [...MSGBRIDGE_PROP_NAMES].sort(),
    );
  });

  it('gives every optional prop a @default and every prop a description', () => {
    const props = sections.flatMap((section) => section.props);
    expect(props.length).toBeGreaterThan(60);
    expect(props.filter((prop) => !prop.required && prop.defaultValue === undefined)).toEqual([]);
    expect(props.filter((prop) => prop.description === '')).toEqual([]);
  });

  it('has a table for each props interface a prop names, under that prop’s path', () => {
    const paths = sections.map((section) => section.path);
    expect(paths).toEqual(
      expect.arrayContaining(['gateway', 'gateway.hosts', 'sending', 'webhooks', 'egress']),
    );
    const sending = sections.find((section) => section.path === 'sending');
    expect(sending?.props.find((prop) => prop.path === 'sending.maxConcurrency')).toMatchObject({
      type: 'number',
      defaultValue: 'max(2, min(250, ceil(gateway.tpsQuota / 34))): 3 at a quota of 100',
      required: false,
    });
  });
});
