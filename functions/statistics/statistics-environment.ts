import { z } from 'zod';
import { requiredEnv } from '../commons/environment.ts';
import { type StatisticsSettings, StatisticsSettingsSchema } from './export-statistics.ts';

/**
 * The export's settings from `STATISTICS_SETTINGS` (JSON of `StatisticsSettingsSchema`, written
 * by the `StatisticsExport` construct), read once at cold start; a malformed value stops the
 * function with every problem named.
 */
export const statisticsSettingsFromEnvironment = (): StatisticsSettings => {
  const raw = requiredEnv('STATISTICS_SETTINGS');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error('environment variable STATISTICS_SETTINGS is not JSON', { cause: error });
  }
  const parsed = StatisticsSettingsSchema.safeParse(json);
  if (!parsed.success) throw new Error(`STATISTICS_SETTINGS: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
};

/** `STATISTICS_BUCKET`: where the JSON-lines copy goes; absent, the export writes no objects. */
export const statisticsBucketFromEnvironment = (): string | undefined => {
  const bucket = process.env.STATISTICS_BUCKET;
  return bucket === undefined || bucket.trim() === '' ? undefined : bucket;
};
