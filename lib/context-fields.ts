/**
 * The JSON forms of the props whose types JSON cannot hold, as the context schema
 * (lib/context-schema.ts) reads them: a `Duration` in seconds, a `RetentionDays` in days.
 */
import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as z from '../gateway/schemas/zod.ts';

/** The retention periods CloudWatch Logs accepts, in days (0 is "never expire"). */
const RETENTION_DAYS = new Set(
  Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'),
);

/** A `Duration` given in seconds; the construct checks its range with the rest of its props. */
export const seconds = z.pipe(
  z.number(),
  z.transform((value) => Duration.seconds(value)),
);

/** A `RetentionDays` given as its number of days. */
export const retentionDays = z.pipe(
  z.number().check(
    z.refine((days) => RETENTION_DAYS.has(days), {
      message: `must be one of the CloudWatch Logs retention periods: ${[...RETENTION_DAYS].join(', ')}`,
    }),
  ),
  // The refinement admits only the numbers RetentionDays enumerates.
  z.transform((days) => days as RetentionDays),
);

/** Drops the keys whose value is undefined, so that absent settings stay absent. */
export const defined = <T extends object>(object: T): T =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
