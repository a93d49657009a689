import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { addCounts } from '../commons/observability.ts';
import {
  type ExportStatisticsDeps,
  exportStatistics,
  throwIfIncomplete,
} from './export-use-case.ts';

export interface ExportStatisticsHandlerDeps {
  readonly deps: ExportStatisticsDeps;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The scheduled run of `export-statistics`: runs `exportStatistics` and records
 * `StatisticsSubjectsCollected`, `StatisticsEventsStored` and `StatisticsSubjectsFailed`. A
 * subject that failed does not stop the others; the run then fails at the end, so the schedule's
 * retries and the dead-letter queue see it.
 */
export const createExportStatisticsHandler =
  ({ deps, logger, metrics }: ExportStatisticsHandlerDeps) =>
  async () => {
    const result = await exportStatistics(deps);
    addCounts(metrics, {
      StatisticsSubjectsCollected: result.subjectsCollected,
      StatisticsEventsStored: result.eventsStored,
      StatisticsSubjectsFailed: result.failures.length,
    });
    const { failures, ...summary } = result;
    if (failures.length === 0) logger.info('statistics export ended', { run: summary });
    else logger.error('statistics export ended with failed subjects', { run: summary, failures });
    throwIfIncomplete(result);
    return summary;
  };
