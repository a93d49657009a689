import { parseGatewayDateTime } from '../protocol/kst.ts';
import * as z from './zod.ts';

/*
 * What the simulated gateway accepts on the tracking-URL endpoints, written from spec 01 §2
 * (Tracking URL), §4.16 and §8 alone, never from the bridge's schemas. Choices where the spec is
 * silent are named here and in the simulator README.
 */

/** Spec 01 §8: URL, channel and recipient statistics reach over at most 31 days. */
export const STATS_RANGE_DAYS = 31;
/** Spec 01 §8: send-day/hour and click-day/hour statistics reach over at most 15 days. */
export const STATS_PERIOD_RANGE_DAYS = 15;

const DAY_MS = 86_400_000;

/** A string in `pattern` that is also a real calendar date-time (no February 30). */
const dateText = (pattern: RegExp, format: string) =>
  z
    .string()
    .check(
      z.refine(
        (value) => pattern.test(value) && parseGatewayDateTime(value) !== undefined,
        `must be a real ${format}`,
      ),
    );

/** `from` / `to` of the statistics: `YYYY-MM-DD`. */
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DateSchema = dateText(DATE, 'YYYY-MM-DD');
/** `expDt` of a tracking URL: `YYYY-MM-DD HH:mm:ss`, KST (spec 01 §2). */
const DateTimeSchema = dateText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'YYYY-MM-DD HH:mm:ss');

const required = z.string().check(z.minLength(1, 'is required'));

/**
 * Calendar days from `from` to `to`, both ends counted, or undefined unless both are real
 * `YYYY-MM-DD` dates. The spec's "31 days" does not say whether both ends count; counting both
 * is the stricter reading: 01-01..01-31 passes, 01-01..02-01 is refused.
 */
export const daysCovered = (from: unknown, to: unknown): number | undefined => {
  if (typeof from !== 'string' || typeof to !== 'string') return undefined;
  if (!DATE.test(from) || !DATE.test(to)) return undefined;
  const start = parseGatewayDateTime(from);
  const end = parseGatewayDateTime(to);
  if (start === undefined || end === undefined) return undefined;
  return Math.round((Date.parse(end) - Date.parse(start)) / DAY_MS) + 1;
};

/**
 * Body of `createClickUrl`: all three required strings. The spec asks only that `orgUrl` start
 * with `http://` or `https://` (lower case, as written); something must follow the scheme.
 */
export const CreateClickUrlSchema = z.strictObject({
  urlTitle: required,
  orgUrl: z
    .string()
    .check(z.refine((value) => /^https?:\/\/./.test(value), 'must start with http:// or https://')),
  expDt: DateTimeSchema,
});

/** `urlId` of `deleteClickUrl` (query parameter in the spec's sample, or a JSON body). */
export const DeleteClickUrlSchema = z.strictObject({ urlId: required });

/** `page` of `getClickUrl`: an integer from 1, given as a query parameter of digits. */
export const readListPage = (query: URLSearchParams): number | undefined => {
  const raw = query.get('page');
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  const page = Number(raw);
  return page >= 1 ? page : undefined;
};

const rangeShape = { from: DateSchema, to: DateSchema };

/**
 * `stat/url/msg`: from, to and at least one of urlId, title, orgUrl. A filter given as an empty
 * string is refused, not read as absent (silent in the spec).
 */
export const StatsByUrlSchema = z
  .strictObject({
    ...rangeShape,
    urlId: z.optional(required),
    title: z.optional(required),
    orgUrl: z.optional(required),
  })
  .check(
    z.refine(
      (body) => body.urlId !== undefined || body.title !== undefined || body.orgUrl !== undefined,
      'give at least one of urlId, title, orgUrl',
    ),
  );

/** `stat/url/channel` and the four period statistics: from, to, urlId. */
export const StatsForUrlSchema = z.strictObject({ ...rangeShape, urlId: required });

/**
 * `stat/url/receiver`: from, to, urlId, page required; phone optional. The spec gives `page` no
 * type here; the simulator takes the list's reading (an integer from 1) and wants a JSON number.
 * `phone` follows the field notes' recipient pattern (digits and `-`, at most 20).
 */
export const StatsByReceiverSchema = z.strictObject({
  ...rangeShape,
  urlId: required,
  page: z.int().check(z.minimum(1)),
  phone: z.optional(z.string().check(z.regex(/^[0-9-]{1,20}$/, 'must be 1-20 digits or "-"'))),
});
