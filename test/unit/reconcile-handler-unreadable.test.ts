/**
 * reconcile-status's scheduled run with an item of the unknown-outcome index that is no readable
 * entry: the handler counts it in its metrics (`UnknownOutcomesUnreadable`) and logs it at ERROR
 * with its key and why, since nothing decides it until it is mended (docs/operations.md).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { Lease } from '../../functions/commons/lease.ts';
import { createReconcileStatusHandler } from '../../functions/reconcile/handler.ts';
import type { SqsReportChecks } from '../../functions/send-records/adapters/sqs-report-checks.ts';
import { ago, HOUR, NOW, world } from '../support/reconcile-world.ts';

const lease: Lease = {
  acquire: async () => true,
  renew: async () => true,
  release: async () => undefined,
};

const context = {
  awsRequestId: 'request-1',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

describe('the reconcile-status handler on its schedule', () => {
  it.each([
    [['SEND#mangled: ✖ Invalid input: expected string, received undefined → at channel'], 1],
    [[], 0],
  ])('counts and logs the unreadable index items %o', async (unreadable, count) => {
    // Prepare: one readable unknown outcome, and the index's unreadable items beside it.
    const w = world();
    w.unanswered('u1', ago(3 * HOUR));
    const page = w.unknown.unknownPage.bind(w.unknown);
    w.unknown.unknownPage = async (...args) => ({ ...(await page(...args)), unreadable });
    const logger = new Logger({ serviceName: 'reconcile-status', logLevel: 'SILENT' });
    const error = vi.spyOn(logger, 'error');
    const metrics = new Metrics({ namespace: 'msgbridge', serviceName: 'reconcile-status' });
    const handler = createReconcileStatusHandler({
      deps: w.deps(),
      checkQueue: {} as SqsReportChecks,
      lease,
      now: () => new Date(NOW),
      batchBudgetMs: 1_000,
      logger,
      metrics,
    });

    // Act
    const run = await handler({ source: 'aws.scheduler' }, context);

    // Assess
    expect(run).toMatchObject({ unknownExamined: 1, unknownUnreadable: count });
    const emf = metrics.serializeMetrics() as unknown as Record<string, unknown>;
    expect(emf.UnknownOutcomesUnreadable).toBe(count);
    expect(error.mock.calls).toEqual(
      count > 0
        ? [
            [
              'unknown-outcome items that are no readable entry: never decided until mended',
              { unreadable: count, items: unreadable },
            ],
          ]
        : [],
    );
  });
});
