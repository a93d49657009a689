/**
 * The scheduled Lambdas of the stack, on timers, against the local servers: refresh-token, the
 * report (and MO) poller, reconcile-status, the attachment fetcher (on the table's stream) and its
 * sweep, and the statistics export (tracking URLs only: at start, then daily). Each is composed by
 * the same function as its Lambda, from the environment the stack would set, with the local
 * clients, logger and gateway.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createSweepHandler } from '../functions/attachments/attachment-handlers.ts';
import {
  composeFetchAttachments,
  composeSweepAttachments,
} from '../functions/attachments/compose-attachments.ts';
import { ContentUrlPolicy } from '../functions/attachments/content-url-policy.ts';
import { ATTACHMENT_RECORD_PATTERN } from '../functions/attachments/stream-filter.ts';
import type {
  GatewayAuthApi,
  GatewayCredentials,
} from '../functions/commons/gateway/gateway-auth.ts';
import type { GatewayClient } from '../functions/commons/gateway/gateway-client.ts';
import type { ReceiveDeps } from '../functions/inbound/receive-webhook.ts';
import { composePollReports } from '../functions/polling/compose-poll-reports.ts';
import { type ReportDelivery, runPolling } from '../functions/polling/poll-reports.ts';
import { composeReconcileStatus } from '../functions/reconcile/compose-reconcile-status.ts';
import { reconcileStatusExclusively } from '../functions/reconcile/reconcile-status.ts';
import { composeExportStatistics } from '../functions/statistics/compose-export-statistics.ts';
import { exportStatistics, throwIfIncomplete } from '../functions/statistics/export-statistics.ts';
import { composeRefreshToken } from '../functions/tokens/compose-refresh-token.ts';
import { compileFilterCriteria, criteriaOf } from './aws/lambda-event-filter.ts';
import { type StreamPoller, startStreamPoller } from './stream-poller.ts';

export interface LocalJobsOptions {
  readonly documents: DynamoDBDocumentClient;
  readonly eventTable: string;
  readonly stateTable: string;
  readonly streams: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly s3: S3Client;
  readonly attachmentBucket: string;
  readonly gateway: GatewayClient;
  /**
   * The gateway simulator's origin (`http://127.0.0.1:<port>`), the one http loopback origin whose
   * content URLs may be fetched. Without it no content URL is fetched (the local run has no https
   * gateway host) and every attachment comes from the file endpoint.
   */
  readonly simulatorOrigin?: string;
  /** For tests: the first N report confirmations are lost on the way, so the gateway offers those reports again. */
  readonly loseFirstConfirms?: number;
  readonly auth: GatewayAuthApi;
  readonly credentials: GatewayCredentials;
  readonly receive: ReceiveDeps;
  readonly reportDelivery: ReportDelivery;
  readonly moPolling: boolean;
  /** Minutes before an accepted recipient without a report is asked about. */
  readonly reconcileAfterMinutes: number;
  /** The client of the report-check queue. */
  readonly sqs: SQSClient;
  /** The report checks the sender queues for reconcile-status. */
  readonly reportCheckQueueUrl: string;
  /** Seconds a received report check stays hidden before it comes back. */
  readonly reportCheckVisibilitySeconds: number;
  /** The sender's `ACCEPTED_EVENTS`: reconcile-status publishes acceptances it finds likewise. */
  readonly acceptedEvents: boolean;
  readonly logger: Logger;
  /** For measurement: each job's own logger, by function name. @default `logger` for all */
  readonly loggerFor?: (functionName: string) => Logger;
  readonly metrics: Metrics;
}

interface Timer {
  stop(): Promise<void>;
}

/**
 * Runs `job` every `everyMs`, never two at once, logging failures. stop() waits briefly for a
 * running job, then lets it end on its own as the servers it talks to close.
 */
const every = (name: string, everyMs: number, job: () => Promise<unknown>): Timer => {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = job()
      .catch((error: unknown) => {
        if (!stopped)
          console.error(`${name} failed:`, error instanceof Error ? error.message : error);
      })
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, everyMs);
  setImmediate(tick);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    },
  };
};

export const startLocalJobs = (options: LocalJobsOptions) => {
  const { documents, s3, logger, metrics } = options;
  const clients = { documents, s3, logger, metrics };
  const clientsOf = (functionName: string) => ({
    ...clients,
    logger: options.loggerFor?.(functionName) ?? logger,
  });
  // What the deployed stack sets on these Lambdas (lib/scheduled-jobs.ts and its neighbours).
  const env = {
    EVENT_TABLE_NAME: options.eventTable,
    STATE_TABLE_NAME: options.stateTable,
    EVENT_RETENTION_DAYS: String(options.receive.retentionDays),
    ATTACHMENT_BUCKET: options.attachmentBucket,
    // As deployed: kept pages below quarantine/polled/ of the attachment bucket.
    QUARANTINE_BUCKET: options.attachmentBucket,
    REPORT_DELIVERY: options.reportDelivery,
    MO_POLLING: options.moPolling ? 'on' : 'off',
    RECONCILE_AFTER_MINUTES: String(options.reconcileAfterMinutes),
    REPORT_CHECK_QUEUE_URL: options.reportCheckQueueUrl,
    REPORT_CHECK_VISIBILITY_SECONDS: String(options.reportCheckVisibilitySeconds),
    ACCEPTED_EVENTS: options.acceptedEvents ? 'on' : 'off',
    // As `statisticsExport: { s3Export: true }` deploys it but without messenger channels (none is
    // registered locally): the JSON lines go below statistics/ of the attachment bucket.
    STATISTICS_SETTINGS: '{}',
    STATISTICS_BUCKET: options.attachmentBucket,
  };
  const timers: Timer[] = [];

  const tokens = composeRefreshToken(env, {
    ...clients,
    auth: options.auth,
    credentials: async () => options.credentials,
  });
  timers.push(every('refresh-token', 60_000, () => tokens.handler()));

  let confirmsToLose = options.loseFirstConfirms ?? 0;
  const pollingGateway = {
    pollReports: () => options.gateway.pollReports(),
    listMo: () => options.gateway.listMo(),
    confirmReports: async (rptKeyLst: readonly string[]) => {
      if (confirmsToLose > 0) {
        confirmsToLose -= 1;
        return;
      }
      await options.gateway.confirmReports(rptKeyLst);
    },
  };

  if (options.reportDelivery !== 'webhook' || options.moPolling) {
    const polling = composePollReports(env, {
      ...clients,
      gateway: { client: pollingGateway, timeoutMs: 10_000 },
      receive: options.receive,
      // The simulator answers in milliseconds: a page needs far less than a deployed call's budget.
      timing: { pageBudgetMs: 10_000, confirmMarginMs: 5_000, leaseTtlMs: 45_000 },
    });
    timers.push(
      every('poll-reports', 5_000, () =>
        runPolling(polling.config, {
          ...polling.deps,
          owner: 'local-poller',
          deadline: Date.now() + 30_000,
        }),
      ),
    );
  }

  const reconciler = composeReconcileStatus(env, {
    ...clientsOf('reconcile-status'),
    sqs: options.sqs,
    gateway: { client: options.gateway, timeoutMs: 10_000 },
    receive: options.receive,
  });
  const reconcile = (now: () => Date) =>
    reconcileStatusExclusively(
      { ...reconciler.deps, now, hasTimeLeft: () => true },
      { lease: reconciler.lease, owner: 'local-reconciler', ttlMs: 60_000 },
    );
  timers.push(every('reconcile-status', 60_000, () => reconcile(() => new Date())));

  const attachmentOverrides = {
    ...clientsOf('fetch-attachments'),
    gateway: {
      client: options.gateway,
      timeoutMs: 10_000,
      // The simulator's content URLs are http on loopback: that one origin, and nothing else.
      contentUrls: new ContentUrlPolicy({
        hosts: [],
        ...(options.simulatorOrigin === undefined
          ? {}
          : { localSimulatorOrigin: options.simulatorOrigin }),
      }),
    },
  };
  const fetcher: StreamPoller = startStreamPoller({
    streamsClient: options.streams,
    streamArn: options.streamArn,
    filter: compileFilterCriteria(criteriaOf(ATTACHMENT_RECORD_PATTERN), 'dynamodb'),
    handler: composeFetchAttachments(env, attachmentOverrides).handler,
    onFailure: (records) =>
      console.error(`fetch-attachments gave up on ${records.length} record(s)`),
    pollIntervalMs: 200,
    batchSize: 10,
    // As deployed (lib/inbound-attachments.ts): five retries before the on-failure queue.
    maxRetries: 5,
  });
  // Run without an invocation context, the sweep never stops early for time (SWEEP_MARGIN_MS).
  const sweep = composeSweepAttachments(env, attachmentOverrides);
  timers.push(every('sweep-attachments', 60_000, () => sweep.handler({}, undefined)));

  // The daily statistics export; its events reach the local bus through the stream.
  const statistics = composeExportStatistics(env, {
    ...clients,
    gateway: { trackingUrls: options.gateway },
    store: options.receive.store,
  });
  timers.push(
    every('export-statistics', 24 * 60 * 60_000, async () =>
      throwIfIncomplete(await exportStatistics(statistics.deps)),
    ),
  );

  return {
    fetcher,
    /**
     * Runs the attachment sweep once now, as if at `at` (the chaos run uses it for a sweep hours
     * later, when the markers it left have come due).
     */
    sweepAt: (at: Date) => createSweepHandler({ ...sweep.deps, now: () => at })({}, undefined),
    /**
     * Runs reconcile-status once now, as if at `at` (the chaos run uses it for the run that
     * resolves unknown send outcomes minutes after the attempt).
     */
    reconcileAt: (at: Date) => reconcile(() => at),
    stop: async () => {
      await fetcher.stop();
      await Promise.all(timers.map((timer) => timer.stop()));
    },
  };
};
