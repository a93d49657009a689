/**
 * The scheduled Lambdas of the stack, on timers, against the local servers: refresh-token, the
 * report (and MO) poller, reconcile-status, the attachment fetcher (on the table's stream) and its
 * sweep, and the statistics export (tracking URLs only: at start, then daily). Each runs the same
 * use case as its Lambda, with the same adapters.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDbAttachmentEvents,
  DynamoDbPendingAttachments,
} from '../functions/attachments/adapters/dynamodb-attachment-store.ts';
import { GatewayAttachmentDownloads } from '../functions/attachments/adapters/gateway-attachment-downloads.ts';
import { S3ObjectStorage } from '../functions/attachments/adapters/s3-object-storage.ts';
import {
  createFetchAttachmentsHandler,
  createSweepHandler,
} from '../functions/attachments/attachment-handlers.ts';
import { ContentUrlPolicy } from '../functions/attachments/content-url-policy.ts';
import { isAttachmentRecord } from '../functions/attachments/stream-filter.ts';
import { DynamoDbLease } from '../functions/commons/dynamodb-lease.ts';
import type {
  GatewayAuthApi,
  GatewayCredentials,
} from '../functions/commons/gateway/gateway-auth.ts';
import type { GatewayClient } from '../functions/commons/gateway/gateway-client.ts';
import type { ReceiveDeps } from '../functions/inbound/receive-webhook.ts';
import {
  type ReportDelivery,
  resolvePollTiming,
  runPolling,
} from '../functions/polling/poll-reports.ts';
import { S3PolledPageQuarantine } from '../functions/polling/s3-polled-page-quarantine.ts';
import { DynamoDbAwaitingReports } from '../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';
import {
  RECONCILE_DEFAULTS,
  ReconcileSettingsSchema,
  reconcileStatusExclusively,
} from '../functions/reconcile/reconcile-status.ts';
import {
  exportStatistics,
  StatisticsSettingsSchema,
  throwIfIncomplete,
} from '../functions/statistics/export-statistics.ts';
import { S3StatisticsSink } from '../functions/statistics/s3-statistics-sink.ts';
import { DynamoDbTokenStore } from '../functions/tokens/adapters/dynamodb-token-store.ts';
import { refreshToken } from '../functions/tokens/refresh-token.ts';
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
  readonly logger: Logger;
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
  const { documents, logger, metrics } = options;
  const lease = new DynamoDbLease(options.stateTable, documents);
  const timers: Timer[] = [];

  timers.push(
    every('refresh-token', 60_000, () =>
      refreshToken({
        store: new DynamoDbTokenStore(options.stateTable, { logger, client: documents }),
        auth: options.auth,
        credentials: async () => options.credentials,
        now: Date.now,
        logger,
      }),
    ),
  );

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
    const timing = resolvePollTiming({
      // The simulator answers in milliseconds: a page needs far less than a deployed call's budget.
      pageBudgetMs: 10_000,
      confirmMarginMs: 5_000,
      leaseTtlMs: 45_000,
    });
    timers.push(
      every('poll-reports', 5_000, () =>
        runPolling(
          { reportDelivery: options.reportDelivery, moPolling: options.moPolling },
          {
            gateway: pollingGateway,
            receive: options.receive,
            // As deployed: below quarantine/polled/ of the attachment bucket.
            quarantine: new S3PolledPageQuarantine(
              new S3ObjectStorage(options.attachmentBucket, { client: options.s3 }),
            ),
            lease,
            owner: 'local-poller',
            now: Date.now,
            sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
            deadline: Date.now() + 30_000,
            logger,
            timing,
          },
        ),
      ),
    );
  }

  const awaiting = new DynamoDbAwaitingReports(options.eventTable, documents);
  const settings = ReconcileSettingsSchema.parse({
    afterMinutes: options.reconcileAfterMinutes,
    horizonHours: RECONCILE_DEFAULTS.horizonHours,
    maxRecipients: RECONCILE_DEFAULTS.maxRecipients,
  });
  const reconcile = (now: () => Date) =>
    reconcileStatusExclusively(
      {
        index: awaiting,
        ledger: awaiting,
        unknown: awaiting,
        guards: awaiting,
        gateway: options.gateway,
        receive: options.receive,
        now,
        settings,
        hasTimeLeft: () => true,
      },
      { lease, owner: 'local-reconciler', ttlMs: 60_000 },
    );
  timers.push(every('reconcile-status', 60_000, () => reconcile(() => new Date())));

  const attachmentDeps = {
    downloads: new GatewayAttachmentDownloads(options.gateway, {
      timeoutMs: 10_000,
      // The simulator's content URLs are http on loopback: that one origin, and nothing else.
      contentUrls: new ContentUrlPolicy({
        hosts: [],
        ...(options.simulatorOrigin === undefined
          ? {}
          : { localSimulatorOrigin: options.simulatorOrigin }),
      }),
    }),
    storage: new S3ObjectStorage(options.attachmentBucket, { client: options.s3 }),
    pending: new DynamoDbPendingAttachments(options.stateTable, documents),
    events: new DynamoDbAttachmentEvents(options.eventTable, documents),
    now: () => new Date(),
    retentionDays: options.receive.retentionDays,
    keyPrefix: 'inbound/',
    logger,
    metrics,
  };
  const fetcher: StreamPoller = startStreamPoller({
    streamsClient: options.streams,
    streamArn: options.streamArn,
    filter: isAttachmentRecord,
    handler: createFetchAttachmentsHandler(attachmentDeps),
    onFailure: (records) =>
      console.error(`fetch-attachments gave up on ${records.length} record(s)`),
    pollIntervalMs: 200,
    batchSize: 10,
    // As deployed (lib/inbound-attachments.ts): five retries before the on-failure queue.
    maxRetries: 5,
  });
  const sweep = createSweepHandler({ ...attachmentDeps, marginMs: 0 });
  timers.push(every('sweep-attachments', 60_000, () => sweep({}, undefined)));

  // The daily statistics export, as `statisticsExport: { s3Export: true }` deploys it but without
  // messenger channels (none is registered locally): the events reach the local bus through the
  // stream, the JSON lines go below statistics/ of the attachment bucket.
  const statisticsSink = new S3StatisticsSink(options.attachmentBucket, options.s3);
  const statisticsSettings = StatisticsSettingsSchema.parse({});
  timers.push(
    every('export-statistics', 24 * 60 * 60_000, async () =>
      throwIfIncomplete(
        await exportStatistics({
          trackingUrls: options.gateway,
          store: options.receive.store,
          sink: statisticsSink,
          now: () => new Date(),
          retentionDays: options.receive.retentionDays,
          settings: statisticsSettings,
        }),
      ),
    ),
  );

  return {
    fetcher,
    /**
     * Runs the attachment sweep once now, as if at `at` (the chaos run uses it for a sweep hours
     * later, when the markers it left have come due).
     */
    sweepAt: (at: Date) =>
      createSweepHandler({ ...attachmentDeps, now: () => at, marginMs: 0 })({}, undefined),
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
