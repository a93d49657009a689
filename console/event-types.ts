import { EVENT_TYPES as CATALOGUE } from '../functions/catalogue/index.ts';

/** Every detail-type of the event catalogue, for the flow's filter. */
export const EVENT_TYPES = Object.values(CATALOGUE).map((type) => type.detailType) as [
  string,
  ...string[],
];
