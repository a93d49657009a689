import type { HandlerDeps } from '../commons/composition.ts';
import { addCounts } from '../commons/observability.ts';
import {
  type ExportStatisticsDeps,
  exportStatistics,
  throwIfIncomplete,
} from './export-use-case.ts';

/**
 * The scheduled run of `export-statistics`: runs `exportStatistics` and records
 * `StatisticsSubjectsCollected`, `StatisticsEventsStored` and `StatisticsSubjectsFailed`. A
 * subject that failed does not stop the others; the run then fails at the end, so the schedule's
 * retries and the dead-letter queue see it.
 */
export const createExportStatisticsHandler =
  ({ deps, logger, metrics }: HandlerDeps<ExportStatisticsDeps>) =>
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
