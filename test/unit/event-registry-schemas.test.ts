import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv04Module from 'ajv-draft-04';
import { describe, expect, it } from 'vitest';
import type { EventTypeName } from '../../functions/catalogue/index.ts';
import {
  registrySchemaFile,
  registrySchemaOf,
  registrySchemaPath,
  registrySchemas,
} from '../../lib/event-registry-schemas.ts';
import { renderEventArtefacts } from '../../scripts/event-artefacts.ts';

// A CommonJS module whose `module.exports` is the class (its types describe `exports.default`).
const Ajv04 = Ajv04Module as unknown as typeof Ajv04Module.default;

import { busEvent } from '../support/bus-event.ts';

const root = join(import.meta.dirname, '../..');

/**
 * The keywords of JSON Schema draft 4 (core and validation; `format` as an annotation): the
 * registry's JSONSchemaDraft4 type reads only these. Later drafts' keywords (`const`,
 * `propertyNames`, `$defs`, `examples`, `if`, a numeric `exclusiveMinimum`, …) are not among them.
 */
const DRAFT_4_KEYWORDS = new Set([
  '$schema',
  'id',
  '$ref',
  'title',
  'description',
  'default',
  'type',
  'enum',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'items',
  'additionalItems',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'dependencies',
  'definitions',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
]);
/** The registry's own annotations, as its schemas of AWS events carry them. */
const REGISTRY_KEYWORDS = ['x-amazon-events-source', 'x-amazon-events-detail-type'];

/** Every keyword used anywhere in `schema` that draft 4 does not define. */
const foreignKeywords = (schema: unknown, path = '$'): string[] => {
  if (Array.isArray(schema))
    return schema.flatMap((item, i) => foreignKeywords(item, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([keyword, value]) => {
    // Names of properties and definitions are not keywords; their schemas are.
    if (keyword === 'properties' || keyword === 'definitions' || keyword === 'patternProperties')
      return Object.entries(value as Record<string, unknown>).flatMap(([name, child]) =>
        foreignKeywords(child, `${path}.${keyword}.${name}`),
      );
    if (keyword === 'enum' || keyword === 'required') return [];
    const own =
      DRAFT_4_KEYWORDS.has(keyword) || (path === '$' && REGISTRY_KEYWORDS.includes(keyword))
        ? []
        : [`${path}.${keyword}`];
    if (
      (keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum') &&
      typeof value !== 'boolean'
    )
      own.push(`${path}.${keyword} (a number: draft 6)`);
    return [...own, ...foreignKeywords(value, `${path}.${keyword}`)];
  });
};

const draft4 = () => {
  const ajv = new Ajv04({ strict: true, allowUnionTypes: true, validateFormats: false });
  for (const keyword of REGISTRY_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
};

/** An event as EventBridge delivers it, from the sender's path. */
const deliveredEvent = (type: EventTypeName, data: unknown, source?: string) =>
  busEvent(type, data as never, { via: 'send-queue', ...(source ? { source } : {}) });

const accepted = {
  cliKey: 'C1',
  channel: 'sms',
  phone: null,
  sqsMessageId: 'q-1',
  msgKey: 'M1',
  alreadyAccepted: false,
  code: '10000',
};

describe('the schema registry documents (docs/events/registry/)', () => {
  it('are committed exactly as generated from the schemas (run `npm run docs:events`)', () => {
    // Act
    const files = renderEventArtefacts();

    // Assess
    for (const schema of registrySchemas('msgbridge')) {
      const path = registrySchemaPath(schema.detailType);
      expect(files[path], path).toBe(registrySchemaFile(schema));
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(files[path]);
    }
  });

  it('are draft 4 JSON Schemas, with no keyword of a later draft', () => {
    const ajv = draft4();

    for (const { detailType, document } of registrySchemas('msgbridge')) {
      expect(ajv.validateSchema(document), `${detailType}: ${ajv.errorsText()}`).toBe(true);
      expect(foreignKeywords(document), detailType).toEqual([]);
      // Strict compilation refuses unknown keywords and ambiguous types as well.
      expect(() => ajv.compile(document), detailType).not.toThrow();
    }
  });

  it('notice a keyword draft 4 does not have', () => {
    expect(
      foreignKeywords({
        type: 'object',
        properties: { version: { const: '1' }, n: { exclusiveMinimum: 0 } },
      }),
    ).toEqual([
      '$.properties.version.const',
      '$.properties.n.exclusiveMinimum (a number: draft 6)',
    ]);
  });

  it('accept the events the publisher builds, and refuse others', () => {
    // Arrange
    const validate = draft4().compile(registrySchemaOf('messageAccepted', 'msgbridge').document);
    const event = deliveredEvent('messageAccepted', accepted);

    // Act / Assess
    expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...event, source: 'acme.messaging' })).toBe(false);
    expect(validate({ ...event, 'detail-type': 'Message Rejected' })).toBe(false);
    const { cliKey: _missing, ...withoutCliKey } = event.detail.data as Record<string, unknown>;
    expect(validate({ ...event, detail: { ...event.detail, data: withoutCliKey } })).toBe(false);
    expect(
      validate({ ...event, detail: { ...event.detail, data: { ...accepted, channel: 'fax' } } }),
    ).toBe(false);
  });

  it('name the deployment source when it is not the default', () => {
    const { document } = registrySchemaOf('messageAccepted', 'acme.messaging');
    const validate = draft4().compile(document);

    expect(document['x-amazon-events-source']).toBe('acme.messaging');
    expect(validate(deliveredEvent('messageAccepted', accepted, 'acme.messaging'))).toBe(true);
    expect(validate(deliveredEvent('messageAccepted', accepted))).toBe(false);
  });
});
