/**
 * Scenario `scale`: each path's work per recipient on the local run (the synthesized stack), driven
 * as fast as this machine goes, and the capacity that work allows the deployed stack: the
 * concurrency each path's Lambda gets (the template's event source settings, Lambda's default
 * account concurrency for the receivers) times the recipients an invocation carries over its
 * time. Outbound: 1-recipient messages (the most work per recipient), a fifth of their reports
 * withheld by the gateway so the report checks query them; inbound: MO webhooks, 10 % MMS.
 *
 * The local handlers' times include DynamoDB Local, fauxqs and the simulator on the same cores,
 * so the ceilings are conservative; the stream consumers are judged per shard (a DynamoDB stream
 * shard carries at most one partition's 1,000 writes a second, and the shards grow with the
 * writes, so a consumer that keeps up with a full shard is no ceiling at any rate).
 *
 * Each path's ceiling is then projected at a default account's quotas in each priced Region
 * (bench/quota-ceilings.ts): the lower of the local figure and what the Region's default quotas
 * let through; the summary takes the deployed Region's lowest, and the quota that binds it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_QUOTAS, NEW_TABLE_STREAM_SHARDS } from '../aws-semantics/default-quotas.ts';
import { smsBody } from '../fixtures/send-bodies.ts';
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import { startLocalBridge } from '../local/bridge.ts';
import { elapseQueueTime } from '../local/queue-time.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { waitUntil } from './end-to-end-waits.ts';
import { benchBridgeOptions } from './local-bridge.ts';
import { DEFAULT_ASSUMPTIONS, quotaCeilings, scaleLoads } from './quota-ceilings.ts';
import { DEPLOYED_REGION, REGIONS } from './regional-cost.ts';
import { figuresTable, round, type ScenarioResult } from './report.ts';

const RECIPIENTS = 1_000;
const INBOUND = 300;
/** MO webhooks stored while the stream consumers are paused, then drained as a shard's backlog. */
const BACKLOG = 1_500;
const MMS_EVERY = 10;
const QUOTA = 10_000;
/** Lambda's default concurrency quota of an account: the receivers' (unreserved) limit. */
export const ACCOUNT_CONCURRENCY = DEFAULT_QUOTAS.lambdaConcurrency.otherRegions;
/** The most a DynamoDB stream shard carries: one partition's writes a second. */
export const SHARD_WRITES_PER_SECOND = DEFAULT_QUOTAS.partitionWrites.otherRegions;
/**
 * Stream shards of a new on-demand table: DynamoDB serves a new on-demand table up to 4,000 write
 * units a second, four partitions' worth, and a stream has a shard per partition. More come as
 * the table splits under load.
 */
export const INITIAL_SHARDS = NEW_TABLE_STREAM_SHARDS;

/**
 * The fewest shards the event table's stream has while it takes `recipientsPerSecond`: each
 * partition takes at most 1,000 writes a second, so at least writes ÷ 1,000 partitions, and a
 * shard per partition.
 */
export const shardsAt = (recipientsPerSecond: number, writesPerRecipient: number): number =>
  Math.max(
    INITIAL_SHARDS,
    Math.ceil((recipientsPerSecond * writesPerRecipient) / SHARD_WRITES_PER_SECOND),
  );
/** The goal: no path's ceiling below this. */
export const GOAL_RECIPIENTS_PER_SECOND = 5_000;

/** One function's measured invocations, their time, and the records they were handed. */
interface Meter {
  invocations: number;
  ms: number;
  records: number;
}

/** Records of an event: an SQS or stream batch's, else one (a webhook, a schedule). */
const recordsOf = (event: unknown): number => {
  const records = (event as { Records?: unknown[] } | undefined)?.Records;
  return Array.isArray(records) ? records.length : 1;
};

/**
 * A path's capacity in recipients a second: `concurrency` invocations at once, each handling
 * `itemsPerInvocation` items in `msPerInvocation`, with `itemsPerRecipient` items per recipient.
 */
export const ceiling = (
  concurrency: number,
  meter: Readonly<Meter>,
  itemsPerRecipient: number,
): number => {
  if (meter.invocations === 0 || meter.ms === 0 || itemsPerRecipient <= 0) return Number.NaN;
  const itemsPerSecondPerInvocation = (meter.records / meter.ms) * 1_000;
  return (concurrency * itemsPerSecondPerInvocation) / itemsPerRecipient;
};

export const runScale = async (): Promise<ScenarioResult> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-scale-'));
  const meters = new Map<string, Meter>();
  const meter = (name: string): Meter => {
    let found = meters.get(name);
    if (!found) {
      found = { invocations: 0, ms: 0, records: 0 };
      meters.set(name, found);
    }
    return found;
  };
  const bridge = await startLocalBridge({
    ...benchBridgeOptions(dataDir),
    tpsQuota: QUOTA,
    reconcileAfterMinutes: 15,
    instrument: {
      lambda: (name, handler) => async (event) => {
        const started = performance.now();
        try {
          return await handler(event);
        } finally {
          const m = meter(name);
          m.invocations += 1;
          m.ms += performance.now() - started;
          m.records += recordsOf(event);
        }
      },
    },
  });
  const count = (type: string) => bridge.bus.entries.filter((e) => e.DetailType === type).length;
  try {
    // The template's concurrency of each queue consumer.
    const mappings = bridge.stack.eventSourceMappings();
    const functionName = (id: string) =>
      bridge.stack.functions().find((fn) => fn.logicalId === id)?.name ?? id;
    const concurrencyOf = (name: string) =>
      mappings.find((m) => m.kind === 'sqs' && functionName(m.functionId) === name)
        ?.maxConcurrency ?? Number.NaN;

    // ---- outbound: 1-recipient messages, a fifth of the reports withheld ----
    bridge.sim.setFaults({ reportWithholdRate: 0.2 });
    const messages: SendMessageInput[] = Array.from(
      { length: RECIPIENTS },
      () => ({ channel: 'sms', ...smsBody(1) }) as SendMessageInput,
    );
    const outStarted = performance.now();
    const queued = await enqueueSend(bridge.sqs, bridge.urls.sendQueue, messages);
    if (queued.invalid.length + queued.failed.length > 0) throw new Error('scale: enqueue refused');
    const reported = () => count('Delivery Report Received');
    const withheld = () => bridge.sim.snapshot().reports.withheld;
    await waitUntil(
      () => reported() + withheld() >= RECIPIENTS,
      600_000,
      () => `scale: reports ${reported()} + withheld ${withheld()} of ${RECIPIENTS}`,
    );
    const outSeconds = (performance.now() - outStarted) / 1_000;
    bridge.sim.setFaults({ reportWithholdRate: 0 });
    // The checks come due: 16 minutes passed at once on reconcile-status's clock and the queue's.
    bridge.jobs.reconcileAhead(16 * 60_000);
    const checksStarted = performance.now();
    while (reported() < RECIPIENTS) {
      if (performance.now() - checksStarted > 300_000)
        throw new Error(`scale: reports ${reported()} of ${RECIPIENTS} after the checks`);
      await elapseQueueTime(bridge.fauxqs, bridge.sqs, bridge.queues.reportChecks.name);
      await sleep(1_000);
    }
    bridge.jobs.reconcileAhead(0);
    const checksMeter = { ...meter('reconcile-status') };
    const checksWallMs = performance.now() - checksStarted;

    // ---- inbound: MO webhooks, every tenth an MMS ----
    const moBefore = count('Inbound Message Received');
    const attachmentsBefore = count('Inbound Attachment Stored');
    const injectMo = (from: number, to: number) => {
      for (let i = from; i < to; i += 1) {
        const mms = i % MMS_EVERY === 0;
        bridge.sim.injectMo([
          {
            moType: mms ? 'MMSMO' : 'SMSMO',
            moCallback: `0101234${String(1000 + (i % 9000))}`,
            moNumber: '15880000',
            moMsg: `scale ${i}`,
            ...(mms
              ? {
                  attachments: [
                    { name: `p-${i}.jpg`, contentType: 'image/jpeg', sizeBytes: 50_000 },
                  ],
                }
              : {}),
          },
        ]);
      }
    };
    injectMo(0, INBOUND);
    const mmsCount = Math.ceil(INBOUND / MMS_EVERY);
    await waitUntil(
      () =>
        count('Inbound Message Received') - moBefore >= INBOUND &&
        count('Inbound Attachment Stored') - attachmentsBefore >= mmsCount,
      300_000,
      () => `scale: inbound ${count('Inbound Message Received') - moBefore} of ${INBOUND}`,
    );
    await sleep(2_000);
    const recordsPerRecipient = meter('publish-events').records / (RECIPIENTS + INBOUND);
    // Every write to the event table is a stream record, published or not.
    const writesPerRecipient = bridge.publisher.stats.recordsRead / (RECIPIENTS + INBOUND);
    const shards = shardsAt(GOAL_RECIPIENTS_PER_SECOND, writesPerRecipient);

    // The receivers' figures are the run's, before the backlog's burst of webhooks.
    const inboundMeter = { ...meter('receive-inbound') };

    // ---- the stream consumers with a backlog: MO webhooks stored while both are paused ----
    // A busy shard hands its consumer full batches, on every lane of its parallelization factor;
    // draining a backlog measures that, where the run above mostly handed them what had just come.
    await Promise.all([bridge.publisher.pause(), bridge.jobs.fetcher.pause()]);
    const backlogMoBefore = count('Inbound Message Received');
    const backlogAttachmentsBefore = count('Inbound Attachment Stored');
    const storedBefore = meter('receive-inbound').invocations;
    injectMo(INBOUND, INBOUND + BACKLOG);
    await waitUntil(
      () => meter('receive-inbound').invocations - storedBefore >= BACKLOG,
      600_000,
      () => `scale: backlog stored ${meter('receive-inbound').invocations - storedBefore}`,
    );
    const backlogMms = Math.ceil((INBOUND + BACKLOG) / MMS_EVERY) - mmsCount;
    const drained = async (
      name: string,
      done: () => boolean,
      resume: () => void,
    ): Promise<{
      records: number;
      seconds: number;
      invocations: number;
      invocationSeconds: number;
      concurrent: number;
    }> => {
      const before = { ...meter(name) };
      const started = performance.now();
      resume();
      await waitUntil(done, 600_000, () => `scale: ${name} draining its backlog`);
      const seconds = (performance.now() - started) / 1_000;
      return {
        records: meter(name).records - before.records,
        invocations: meter(name).invocations - before.invocations,
        seconds,
        invocationSeconds: (meter(name).ms - before.ms) / 1_000,
        // Invocations in flight at once on average (their time over the wall time).
        concurrent: (meter(name).ms - before.ms) / 1_000 / seconds,
      };
    };
    // Published first, then fetched: each drain has the machine to itself.
    const publishDrain = await drained(
      'publish-events',
      () => count('Inbound Message Received') - backlogMoBefore >= BACKLOG,
      () => bridge.publisher.resume(),
    );
    const fetchDrain = await drained(
      'fetch-attachments',
      () => count('Inbound Attachment Stored') - backlogAttachmentsBefore >= backlogMms,
      () => bridge.jobs.fetcher.resume(),
    );

    // ---- per path ----
    const events = bridge.bus.entries.length;
    const factorOf = (name: string) =>
      mappings.find((m) => m.kind === 'dynamodb' && functionName(m.functionId) === name)
        ?.parallelizationFactor ?? 1;
    // Deployed, each of a shard's `parallelizationFactor` batches runs in its own Lambda
    // environment: a shard's capacity is that many times what one invocation handles a second.
    // Here they shared two cores with everything else, so the figure is pessimistic; the local
    // drain's own rate (DynamoDB Local's stream has one shard) is this machine's, not Lambda's.
    const deployedPerShard = (drain: typeof publishDrain, name: string) =>
      drain.invocationSeconds > 0
        ? (factorOf(name) * drain.records) / drain.invocationSeconds
        : Number.NaN;
    const perShard = deployedPerShard(publishDrain, 'publish-events');
    const fetchPerShard = deployedPerShard(fetchDrain, 'fetch-attachments');
    const paths = [
      {
        path: 'sending (send-messages, per recipient)',
        concurrency: concurrencyOf('send-messages'),
        maxConcurrency: 1_000,
        meter: meter('send-messages'),
        itemsPerRecipient: 1,
      },
      {
        path: 'reports by webhook (receive-reports, per report)',
        concurrency: ACCOUNT_CONCURRENCY,
        maxConcurrency: ACCOUNT_CONCURRENCY,
        // A body carries several reports: its items are the reports the gateway handed out (the
        // withheld ones came by the checks), one per recipient.
        meter: { ...meter('receive-reports'), records: RECIPIENTS - withheld() },
        itemsPerRecipient: 1,
      },
      {
        path: 'report checks (reconcile-status on its queue, per check)',
        concurrency: concurrencyOf('reconcile-status'),
        maxConcurrency: 1_000,
        meter: checksMeter,
        itemsPerRecipient: 1,
      },
      {
        path: 'inbound by webhook (receive-inbound, per message)',
        concurrency: ACCOUNT_CONCURRENCY,
        maxConcurrency: ACCOUNT_CONCURRENCY,
        meter: inboundMeter,
        itemsPerRecipient: 1,
      },
    ].map((p) => {
      const atDefault = ceiling(p.concurrency, p.meter, p.itemsPerRecipient);
      const atMost = ceiling(p.maxConcurrency, p.meter, p.itemsPerRecipient);
      return {
        path: p.path,
        invocations: p.meter.invocations,
        itemsPerInvocation: round(p.meter.records / Math.max(1, p.meter.invocations), 2),
        msPerItem: round(p.meter.ms / Math.max(1, p.meter.records), 2),
        concurrency: p.concurrency,
        ceilingRecipientsPerSecond: Math.round(atDefault),
        ceilingAtMaxConcurrency: Math.round(atMost),
      };
    });
    /** A stream consumer's row: its drain, its capacity per shard and what a full shard needs. */
    const streamRow = (
      path: string,
      name: string,
      drain: typeof publishDrain,
      capacityPerShard: number,
      needPerShard: number,
    ) => {
      const run = meter(name);
      return {
        path,
        parallelizationFactor: factorOf(name),
        backlogRecords: drain.records,
        recordsPerInvocation: round(drain.records / Math.max(1, drain.invocations), 1),
        concurrentInvocations: round(drain.concurrent, 2),
        localDrainRecordsPerSecond: Math.round(drain.records / drain.seconds),
        recordsPerSecondPerShard: Math.round(capacityPerShard),
        needPerShard,
        keepsUpWithAShard: capacityPerShard >= needPerShard,
        msPerRecordInTheRun: round(run.ms / Math.max(1, run.records), 2),
      };
    };
    const streams = [
      // Each stream record is a write; a shard carries at most 1,000 a second.
      streamRow(
        'publishing (publish-events, per stream record)',
        'publish-events',
        publishDrain,
        perShard,
        SHARD_WRITES_PER_SECOND,
      ),
      // A tenth of the writes are MMS (the workload's share).
      streamRow(
        'attachments (fetch-attachments, per MMS)',
        'fetch-attachments',
        fetchDrain,
        fetchPerShard,
        SHARD_WRITES_PER_SECOND / MMS_EVERY,
      ),
    ];
    // A stream consumer keeps up while each shard brings it no more records than it handles: on
    // the shards the table has at the goal's rate, perShard × shards ÷ recordsPerRecipient
    // recipients a second. One that keeps up with a full shard (1,000 writes a second) keeps up
    // at any rate, as the shards grow with the writes.
    const publishCeiling = Math.round((perShard * shards) / recordsPerRecipient);
    // Attachments the same way: a tenth of inbound recipients are MMS.
    const attachmentCeiling = Math.round(fetchPerShard * shards * MMS_EVERY);
    const ceilings = [
      ...paths.map((p) => p.ceilingAtMaxConcurrency),
      publishCeiling,
      attachmentCeiling,
    ].filter(Number.isFinite);
    const minCeiling = ceilings.length > 0 ? Math.min(...ceilings) : Number.NaN;
    const measured = {
      paths,
      streams,
      eventTableWritesPerRecipient: round(writesPerRecipient, 2),
      publishing: {
        streamRecordsPerRecipient: round(recordsPerRecipient, 2),
        ceilingRecipientsPerSecond: publishCeiling,
      },
      attachments: { ceilingRecipientsPerSecond: attachmentCeiling },
    };
    // Each path's ceiling at a default account's quotas, in each priced Region; the summary takes
    // the deployed Region's.
    const atDefaultQuotas = Object.fromEntries(
      REGIONS.map((region) => [
        region,
        quotaCeilings(scaleLoads(measured), { region, ...DEFAULT_ASSUMPTIONS }),
      ]),
    );
    const deployedQuotas = atDefaultQuotas[DEPLOYED_REGION];
    const figures = {
      workload: {
        recipients: RECIPIENTS,
        withheldReports: withheld(),
        inbound: INBOUND,
        mms: mmsCount,
      },
      localRecipientsPerSecond: round(RECIPIENTS / outSeconds, 1),
      // How many check invocations ran at once on this machine's 2 cores, on average: each one's
      // time is that much longer than it would be alone, so the check ceilings are pessimistic.
      checksLocalConcurrency: round(checksMeter.ms / checksWallMs, 2),
      events,
      paths,
      streams,
      eventTableWritesPerRecipient: round(writesPerRecipient, 2),
      shardsAtGoal: shards,
      publishing: {
        streamRecordsPerRecipient: round(recordsPerRecipient, 2),
        shards,
        ceilingRecipientsPerSecond: publishCeiling,
      },
      attachments: {
        inboundRecipientsPerMms: MMS_EVERY,
        shards,
        ceilingRecipientsPerSecond: attachmentCeiling,
      },
      minCeilingRecipientsPerSecond: minCeiling,
      minCeilingAtDefaultsRecipientsPerSecond: Math.min(
        ...paths.map((p) => p.ceilingRecipientsPerSecond).filter(Number.isFinite),
        publishCeiling,
        attachmentCeiling,
      ),
      atDefaultQuotas,
      ceilingAtDefaultQuotasRecipientsPerSecond:
        deployedQuotas?.ceilingRecipientsPerSecond ?? Number.NaN,
      bindingQuota: deployedQuotas?.bindingQuota ?? null,
    };
    return {
      figures,
      tables: [
        {
          title: 'scale: per-path work on the local run and the capacity it allows deployed',
          columns: [
            'path',
            'invocations',
            'items/invocation',
            'ms/item',
            'concurrency',
            'ceiling (recipients/s)',
            'at max concurrency',
          ],
          rows: paths.map((p) => [
            p.path,
            p.invocations,
            p.itemsPerInvocation,
            p.msPerItem,
            p.concurrency,
            p.ceilingRecipientsPerSecond,
            p.ceilingAtMaxConcurrency,
          ]),
        },
        {
          title:
            'scale: stream consumers draining a backlog, per shard (a shard carries at most 1,000 writes/s)',
          columns: [
            'path',
            'parallelization',
            'records',
            'records/invocation',
            'in flight',
            'local drain (records/s)',
            'records/s per shard deployed',
            'needed',
            'keeps up',
          ],
          rows: streams.map((s) => [
            s.path,
            s.parallelizationFactor,
            s.backlogRecords,
            s.recordsPerInvocation,
            s.concurrentInvocations,
            s.localDrainRecordsPerSecond,
            s.recordsPerSecondPerShard,
            s.needPerShard,
            s.keepsUpWithAShard ? 'yes' : 'no',
          ]),
        },
        figuresTable('scale: stream consumers, projected on the shards at 5,000 recipients/s', [
          ['event table writes (stream records) per recipient', round(writesPerRecipient, 2)],
          ['published records per recipient', round(recordsPerRecipient, 2)],
          ['shards at 5,000 recipients/s, at least', shards],
          ['publishing ceiling (recipients/s)', publishCeiling],
          ['attachments ceiling (inbound recipients/s, 10 % MMS)', attachmentCeiling],
        ]),
        {
          title: `scale: ceilings at a default account's quotas in ${DEPLOYED_REGION} (one rule per event, full PutEvents batches)`,
          columns: ['path', 'local (recipients/s)', 'at default quotas', 'binds'],
          rows: (deployedQuotas?.paths ?? []).map((p) => [
            p.path,
            p.localCeiling,
            Math.round(p.ceiling),
            p.binding.quota === 'local'
              ? 'local measurement'
              : `${p.binding.name}${p.binding.quotaCode ? ` (${p.binding.quotaCode})` : ''}: ${p.binding.value}`,
          ]),
        },
        figuresTable('scale goals', [
          [
            'lowest ceiling of a path (recipients/s)',
            String(minCeiling),
            `≥ ${GOAL_RECIPIENTS_PER_SECOND}`,
          ],
          [
            `lowest ceiling at default quotas in ${DEPLOYED_REGION} (recipients/s)`,
            String(deployedQuotas?.ceilingRecipientsPerSecond ?? Number.NaN),
            deployedQuotas?.bindingQuota
              ? `binds: ${deployedQuotas.bindingQuota.name} on ${deployedQuotas.bindingQuota.path}`
              : '',
          ],
        ]),
      ],
    };
  } finally {
    await bridge.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
