import * as z from './zod.ts';

/*
 * The messenger channel id, which the management schemas (`messenger-management.ts`) and the
 * statistics ones (`messenger-statistics.ts`) both take: a module of its own, so that a bundle of
 * the statistics calls does not build every management schema at start.
 */

export const MSGR_CH_ID_MAX = 61;
/** Channel search id (`msgrChId`), max 61. */
export const MsgrChIdSchema = z.string().check(z.minLength(1), z.maxLength(MSGR_CH_ID_MAX));
