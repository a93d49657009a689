import { slugOf } from '../functions/catalogue/detail-type-names.ts';
import { EVENT_TYPES } from '../functions/catalogue/index.ts';
import {
  registrySchemaFile,
  registrySchemaPath,
  registrySchemas,
} from '../lib/event-registry-schemas.ts';
import { renderEventCatalogue } from './event-catalogue-docs.ts';
import { renderEventTypes } from './event-types.ts';

/** The source the committed registry documents name: the stack's default. */
const DEFAULT_EVENT_SOURCE = 'msgbridge';

/**
 * Everything generated from the event catalogue's zod schemas, by path relative to the repository
 * root: the JSON Schema files and the catalogue page (`renderEventCatalogue`), the subscribers'
 * TypeScript types, which are written from those JSON Schema files, and the documents of the
 * EventBridge schema registry for the default source (the deployed ones name the stack's).
 */
export const renderEventArtefacts = (): Record<string, string> => {
  const catalogue = renderEventCatalogue();
  const schemas = Object.values(EVENT_TYPES).map(({ detailType }) => {
    const path = `docs/events/${slugOf(detailType)}.schema.json`;
    const content = catalogue[path];
    if (content === undefined) throw new Error(`the catalogue has no ${path}`);
    return { detailType, schema: JSON.parse(content) };
  });
  const registry = Object.fromEntries(
    registrySchemas(DEFAULT_EVENT_SOURCE).map((schema) => [
      registrySchemaPath(schema.detailType),
      registrySchemaFile(schema),
    ]),
  );
  return { ...catalogue, ...renderEventTypes(schemas), ...registry };
};
