import { EVENT_TYPES } from '../functions/events/catalogue.ts';
import { renderEventCatalogue, slug } from './event-catalogue-docs.ts';
import { renderEventTypes } from './event-types.ts';

/**
 * Everything generated from the event catalogue's zod schemas, by path relative to the repository
 * root: the JSON Schema files and the catalogue page (`renderEventCatalogue`) and the subscribers'
 * TypeScript types, which are written from those JSON Schema files.
 */
export const renderEventArtefacts = (): Record<string, string> => {
  const catalogue = renderEventCatalogue();
  const schemas = Object.values(EVENT_TYPES).map(({ detailType }) => {
    const path = `docs/events/${slug(detailType)}.schema.json`;
    const content = catalogue[path];
    if (content === undefined) throw new Error(`the catalogue has no ${path}`);
    return { detailType, schema: JSON.parse(content) };
  });
  return { ...catalogue, ...renderEventTypes(schemas) };
};
