import { slugOf, typeNameOf } from '../functions/catalogue/detail-type-names.ts';
import {
  EVENT_TYPES,
  type EventTypeName,
  eventDetailSchema,
} from '../functions/catalogue/index.ts';
import * as z from '../gateway/schemas/zod.ts';

/*
 * The documents of the EventBridge schema registry (EventSchemaRegistry), apart from the construct
 * so that the generator of docs/events/registry/ and its tests build them without the CDK.
 */

/** The registry's schema format: JSON Schema draft 4, the one besides OpenAPI 3 it accepts. */
export const REGISTRY_SCHEMA_TYPE = 'JSONSchemaDraft4';

/** One schema of the registry: the event type, its name there and its document. */
export interface RegistrySchema {
  readonly type: EventTypeName;
  readonly detailType: string;
  /** `DeliveryReportReceived`: the name of the schema and of its detail's definition. */
  readonly schemaName: string;
  readonly document: Record<string, unknown>;
}

/**
 * The registry document of one event type: the whole EventBridge event as a subscriber receives
 * it, with the detail (`{ metadata, data }`, written from the catalogue's zod schema with zod's
 * draft-4 target) as a definition, and the `x-amazon-events-source` and
 * `x-amazon-events-detail-type` keys that the registry's schemas of AWS's own events carry.
 */
export const registrySchemaOf = (type: EventTypeName, eventSource: string): RegistrySchema => {
  const { detailType, data } = EVENT_TYPES[type];
  const schemaName = typeNameOf(detailType);
  const { $schema: _draft, ...detail } = z.toJSONSchema(eventDetailSchema(data), {
    target: 'draft-04',
    io: 'output',
  });
  const text = { type: 'string' };
  return {
    type,
    detailType,
    schemaName,
    document: {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: schemaName,
      description: `The "${detailType}" event of msgbridge as its subscribers receive it (docs/events.md).`,
      type: 'object',
      properties: {
        version: text,
        id: { ...text, description: "EventBridge's id of this delivery." },
        'detail-type': { ...text, enum: [detailType] },
        source: { ...text, enum: [eventSource] },
        account: text,
        time: { ...text, format: 'date-time' },
        region: text,
        resources: { type: 'array', items: text },
        'replay-name': { ...text, description: 'Set on events replayed from the archive.' },
        detail: { $ref: `#/definitions/${schemaName}` },
      },
      required: [
        'version',
        'id',
        'detail-type',
        'source',
        'account',
        'time',
        'region',
        'resources',
        'detail',
      ],
      definitions: { [schemaName]: detail },
      'x-amazon-events-detail-type': detailType,
      'x-amazon-events-source': eventSource,
    },
  };
};

/** Every event type's registry schema, in the catalogue's order. */
export const registrySchemas = (eventSource: string): RegistrySchema[] =>
  (Object.keys(EVENT_TYPES) as EventTypeName[]).map((type) => registrySchemaOf(type, eventSource));

/** Where the generated documents are kept (for the default source), by detail-type. */
export const registrySchemaPath = (detailType: string): string =>
  `docs/events/registry/${slugOf(detailType)}.json`;

/** A registry document as committed: two-space JSON and a final newline. */
export const registrySchemaFile = (schema: RegistrySchema): string =>
  `${JSON.stringify(schema.document, null, 2)}\n`;
