import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { typeNameOf } from '../functions/catalogue/detail-type-names.ts';

/*
 * The TypeScript types of the published events (`events/index.ts`, `msgbridge/events`), written
 * from the JSON Schema files that the catalogue generates from the zod schemas: plain interfaces
 * and small type guards, so that a subscriber needs neither zod nor this repository's code at run
 * time. Only the JSON Schema keywords the catalogue produces are read; any other keyword that
 * shapes a value (`$ref`, `oneOf`, `allOf`, …) fails the generation instead of being typed as
 * something it is not.
 */

export const EVENT_TYPES_PATH = 'events/index.ts';

const root = join(import.meta.dirname, '..');

/** A JSON Schema (2020-12) node as the catalogue writes them. */
interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly items?: JsonSchema;
  readonly description?: string;
  readonly title?: string;
}

/** Keywords that only constrain or describe a value, never change its TypeScript type. */
const IGNORED = new Set([
  '$schema',
  'title',
  'description',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'propertyNames',
]);
const TYPED = new Set([
  'type',
  'const',
  'enum',
  'anyOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
]);

const literal = (value: unknown): string => {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null)
    return String(value);
  throw new Error(`cannot type the constant ${JSON.stringify(value)}`);
};

const doc = (description: string | undefined, indent: string): string =>
  description ? `${indent}/** ${description.replace(/\*\//g, '*\\/')} */\n` : '';

const union = (members: readonly string[]): string => [...new Set(members)].join(' | ');

const primitive = (type: string, schema: JsonSchema, indent: string, path: string): string => {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (!schema.items) return 'unknown[]';
      const item = typeOf(schema.items, indent, `${path}[]`);
      return /[|&]/.test(item) && !item.startsWith('{') ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectType(schema, indent, path);
    default:
      throw new Error(`${path}: cannot type JSON Schema type "${type}"`);
  }
};

const objectType = (schema: JsonSchema, indent: string, path: string): string => {
  const properties = Object.entries(schema.properties ?? {});
  const open = schema.additionalProperties !== false;
  if (properties.length === 0) return open ? 'Record<string, unknown>' : 'Record<string, never>';
  if (open) throw new Error(`${path}: an object with both properties and others is not typed`);
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = properties.map(
    ([name, property]) =>
      `${doc(property.description, inner)}${inner}${/^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, inner, `${path}.${name}`)};`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
};

/** The TypeScript type of one schema node, written at `indent`. */
const typeOf = (schema: JsonSchema, indent: string, path: string): string => {
  for (const keyword of Object.keys(schema))
    if (!IGNORED.has(keyword) && !TYPED.has(keyword))
      throw new Error(`${path}: the keyword "${keyword}" is not supported by the type generator`);
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return union(schema.enum.map(literal));
  if (schema.anyOf) return union(schema.anyOf.map((member) => typeOf(member, indent, path)));
  if (schema.type === undefined) return 'unknown';
  const types = typeof schema.type === 'string' ? [schema.type] : schema.type;
  return union(types.map((type) => primitive(type, schema, indent, path)));
};

export interface EventTypeSchema {
  readonly detailType: string;
  /** The JSON Schema of the detail (`{ metadata, data }`), as in `docs/events/*.schema.json`. */
  readonly schema: JsonSchema;
}

const detailParts = (
  { detailType, schema }: EventTypeSchema,
  path: string,
): { metadata: JsonSchema; data: JsonSchema } => {
  const metadata = schema.properties?.metadata;
  const data = schema.properties?.data;
  if (!metadata || !data || String(schema.required) !== 'metadata,data')
    throw new Error(`${path}: the detail of "${detailType}" is not { metadata, data }`);
  return { metadata, data };
};

const HEADER = `// Generated by \`npm run docs:events\` (scripts/event-types.ts) from the event catalogue; do not edit by hand.
/*
 * The events msgbridge puts on its bus, as TypeScript types for subscribers, with a type guard per
 * detail-type, written from the event catalogue's zod schemas through the JSON Schema files in
 * docs/events/. Imports nothing: the types cost nothing at run time and the guards are a few
 * comparisons.
 */

/** The source of msgbridge's events unless the deployment sets \`eventSource\`. */
export const DEFAULT_EVENT_SOURCE = 'msgbridge';
`;

const ENVELOPE = `
/**
 * An EventBridge event as a rule's target receives it: the envelope EventBridge adds, with a
 * msgbridge detail. Structurally the same as \`EventBridgeEvent<T, D>\` of \`@types/aws-lambda\`.
 */
export interface EventEnvelope<T extends string, D> {
  version: string;
  /** EventBridge's id of this delivery; for msgbridge's own stable id see \`detail.metadata.id\`. */
  id: string;
  'detail-type': T;
  /** \`msgbridge\` unless the deployment sets \`eventSource\`. */
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  /** Set when the event was replayed from the bus archive. */
  'replay-name'?: string;
  detail: D;
}

/**
 * An event of the given detail-type(s); \`MsgbridgeEvent\` alone is the union of every event, narrowed
 * by its \`detail-type\`.
 */
export type MsgbridgeEvent<T extends DetailType = DetailType> = {
  [K in T]: EventEnvelope<K, EventDetails[K]>;
}[T];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const METADATA_STRINGS = [
  'id',
  'type',
  'version',
  'occurredAt',
  'receivedAt',
  'via',
  'idempotencyKey',
] as const;

/**
 * True when \`event\` is a msgbridge event of \`detailType\` from \`source\`: the envelope's \`source\`
 * and \`detail-type\`, and a detail of \`{ metadata, data }\` whose metadata has every field as a
 * string, names the same type and is of version 1. The \`data\` fields are not checked one by one:
 * the bus carries only what the publisher validated against the same schemas.
 */
export const isMsgbridgeEventOf = <T extends DetailType>(
  detailType: T,
  event: unknown,
  source: string = DEFAULT_EVENT_SOURCE,
): event is MsgbridgeEvent<T> => {
  if (!isRecord(event) || event.source !== source || event['detail-type'] !== detailType)
    return false;
  const detail = event.detail;
  if (!isRecord(detail) || !isRecord(detail.data)) return false;
  const metadata = detail.metadata;
  return (
    isRecord(metadata) &&
    METADATA_STRINGS.every((field) => typeof metadata[field] === 'string') &&
    metadata.type === detailType &&
    metadata.version === '1'
  );
};

/** True when \`event\` is any msgbridge event from \`source\`; narrow further on \`detail-type\`. */
export const isMsgbridgeEvent = (
  event: unknown,
  source: string = DEFAULT_EVENT_SOURCE,
): event is MsgbridgeEvent =>
  isRecord(event) &&
  typeof event['detail-type'] === 'string' &&
  (ALL_DETAIL_TYPES as readonly string[]).includes(event['detail-type']) &&
  isMsgbridgeEventOf(event['detail-type'] as DetailType, event, source);
`;

/** The source of `events/index.ts`, before formatting. */
const renderSource = (types: readonly EventTypeSchema[]): string => {
  const names = types.map(({ detailType }) => typeNameOf(detailType));
  if (new Set(names).size !== names.length) throw new Error('two detail-types share a type name');
  const metadataTypes = new Set<string>();
  const parts: string[] = [HEADER];

  parts.push(
    `\n/** Every detail-type, by the name of its type: \`DetailType.DeliveryReportReceived\`. */\nexport const DetailType = {\n${types.map(({ detailType }) => `  ${typeNameOf(detailType)}: ${literal(detailType)},`).join('\n')}\n} as const;\nexport type DetailType = (typeof DetailType)[keyof typeof DetailType];\n`,
    `\n/** Every detail-type msgbridge publishes. */\nexport const ALL_DETAIL_TYPES: readonly DetailType[] = Object.values(DetailType);\n`,
  );

  const first = types[0];
  if (!first) throw new Error('no event types');
  const metadataSchema = detailParts(first, first.detailType).metadata;
  parts.push(
    `\n/** \`detail.metadata\`: the same fields for every type. */\nexport interface EventMetadata ${typeOf(metadataSchema, '', 'metadata')}\n`,
  );

  parts.push(
    `\n/** The detail of each detail-type. */\nexport interface EventDetails {\n${types.map(({ detailType }) => `  ${literal(detailType)}: ${typeNameOf(detailType)}Detail;`).join('\n')}\n}\n`,
    ENVELOPE,
  );
  for (const type of types) {
    const name = typeNameOf(type.detailType);
    const { metadata, data } = detailParts(type, type.detailType);
    metadataTypes.add(typeOf(metadata, '', 'metadata'));
    parts.push(
      `\n${doc(`\`data\` of "${type.detailType}". ${type.schema.description ?? ''}`.trim(), '')}export interface ${name}Data ${typeOf(data, '', `${type.detailType}.data`)}\n`,
      `\n/** The detail of "${type.detailType}". */\nexport interface ${name}Detail {\n  metadata: EventMetadata;\n  data: ${name}Data;\n}\n`,
      `\n/** The event "${type.detailType}" as a rule's target receives it. */\nexport type ${name} = EventEnvelope<${literal(type.detailType)}, ${name}Detail>;\n`,
      `\n/** True when \`event\` is an event "${type.detailType}" from \`source\` (see \`isMsgbridgeEventOf\`). */\nexport const is${name} = (event: unknown, source: string = DEFAULT_EVENT_SOURCE): event is ${name} =>\n  isMsgbridgeEventOf(DetailType.${name}, event, source);\n`,
    );
  }
  if (metadataTypes.size !== 1) throw new Error('the event types do not share one metadata shape');

  return parts.join('');
};

/** Formats TypeScript source as the repository's formatter does (Biome, biome.json). */
export const formatted = (source: string, path: string): string => {
  const result = spawnSync(
    join(root, 'node_modules/.bin/biome'),
    ['format', `--stdin-file-path=${path}`],
    { cwd: root, input: source, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`biome could not format ${path}: ${result.stderr}`);
  return result.stdout;
};

/** `events/index.ts` from the catalogue's JSON Schemas, formatted as committed. */
export const renderEventTypes = (types: readonly EventTypeSchema[]): Record<string, string> => ({
  [EVENT_TYPES_PATH]: formatted(renderSource(types), EVENT_TYPES_PATH),
});
