import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { HandlerDeps } from '../commons/composition.ts';
import type { Lease } from '../commons/lease.ts';
import { addCounts } from '../commons/observability.ts';
import {
  BatchReportChecks,
  type SqsReportChecks,
} from '../send-records/adapters/sqs-report-checks.ts';
import type { ReconcileCounts, ReconcileDeps } from './reconcile-ports.ts';
import { checkReports, reconcileStatusExclusively } from './reconcile-use-case.ts';

export interface ReconcileStatusHandlerDeps
  extends HandlerDeps<Omit<ReconcileDeps, 'owner' | 'now' | 'hasTimeLeft' | 'checks'>> {
  /** The report-check queue a batch of checks came from, and is put back on. */
  readonly checkQueue: SqsReportChecks;
  readonly lease: Lease;
  /** The clock that says which checks are due. */
  readonly now: () => Date;
  /** The time one status query batch needs; none starts with less left. */
  readonly batchBudgetMs: number;
}

/**
 * The handler of `reconcile-status`, with two triggers. On its schedule it runs
 * `reconcileStatusExclusively` under the `reconcile-status` lease, held at most until the
 * invocation's timeout. Invoked by the report-check queue's event source with a batch of checks,
 * it runs `checkReports` on them (no lease: SQS hands each check to one invocation) and answers
 * the checks it did not finish as batch item failures. Either starts a status query batch only
 * while `batchBudgetMs` is left, and records its metrics.
 */
export const createReconcileStatusHandler = ({
  deps,
  checkQueue,
  lease,
  now,
  batchBudgetMs,
  logger,
  metrics,
}: ReconcileStatusHandlerDeps) => {
  const hasTimeLeft = (context: Context) => () =>
    context.getRemainingTimeInMillis() > batchBudgetMs;
  const countMetrics = (run: ReconcileCounts) =>
    addCounts(metrics, {
      StatusQueries: run.statusQueries,
      ReportsReconciled: run.reportsReconciled,
      StatusUnavailable: run.statusUnavailable,
      StillPending: run.stillPending,
      ReconcileStoreFailures: run.storeFailures,
      NotQueried: run.notQueried,
    });

  /** A batch of report checks from the queue's event source. */
  const onChecks = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const batch = new BatchReportChecks(event.Records, checkQueue);
    const run = await checkReports({
      ...deps,
      checks: batch,
      owner: `reconcile-status#${context.awsRequestId}`,
      now,
      hasTimeLeft: hasTimeLeft(context),
    });
    countMetrics(run);
    addCounts(metrics, {
      ReportChecksFinished: run.checksFinished,
      ReportChecksPostponed: run.checksPostponed,
      ReportChecksExpired: run.checksExpired,
      ReportChecksInvalid: run.checksInvalid,
    });
    const unfinished = batch.unfinished();
    if (run.stoppedBy === 'complete' && unfinished.length === run.checksInvalid)
      logger.info('report checks done', { run });
    else logger.warn('report checks left for their next receipt', { run, unfinished });
    return { batchItemFailures: unfinished.map((itemIdentifier) => ({ itemIdentifier })) };
  };

  /** The scheduled run: the unknown outcomes. */
  const onSchedule = async (context: Context) => {
    const run = await reconcileStatusExclusively(
      {
        ...deps,
        owner: `reconcile-status#${context.awsRequestId}`,
        now,
        hasTimeLeft: hasTimeLeft(context),
      },
      // Held at most until this invocation's timeout, so a crashed run never blocks the next one.
      { lease, owner: context.awsRequestId, ttlMs: context.getRemainingTimeInMillis() + 5_000 },
    );
    if (run.kind === 'busy') {
      logger.info('another reconcile-status run holds the lease; nothing to do');
      return run;
    }
    countMetrics(run);
    addCounts(metrics, {
      UnknownOutcomesAccepted: run.unknownAccepted,
      UnknownOutcomesNotSent: run.unknownNotSent,
      UnknownOutcomesPending: run.unknownPending,
      UnknownOutcomesUnreadable: run.unknownUnreadable,
    });
    if (run.unknownUnreadable > 0)
      logger.error('unknown-outcome items that are no readable entry: never decided until mended', {
        unreadable: run.unknownUnreadable,
        items: run.unreadableUnknown,
      });
    if (run.stoppedBy === 'complete') logger.info('reconcile-status run ended', { run });
    else logger.warn('reconcile-status run stopped early; the next run goes on', { run });
    return run;
  };
  return async (event: unknown, context: Context) =>
    isQueueBatch(event) ? onChecks(event, context) : onSchedule(context);
};

/** An SQS event source's batch (the scheduler's event is not one). */
const isQueueBatch = (event: unknown): event is SQSEvent =>
  typeof event === 'object' &&
  event !== null &&
  Array.isArray((event as { Records?: unknown }).Records) &&
  (event as SQSEvent).Records.every((record) => record?.eventSource === 'aws:sqs');
