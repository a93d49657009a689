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
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SendMessageInput } from '../functions/sending/queue-message.ts';
import { startLocalBridge } from '../local/bridge.ts';
import { elapseQueueTime } from '../local/queue-time.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { smsBody } from '../test/support/send-fixtures.ts';
import { waitUntil } from './end-to-end-waits.ts';
import { benchBridgeOptions } from './local-bridge.ts';
import { figuresTable, round, type ScenarioResult } from './report.ts';

const RECIPIENTS = 1_000;
const INBOUND = 300;
const MMS_EVERY = 10;
const QUOTA = 10_000;
/** Lambda's default concurrency quota of an account: the receivers' (unreserved) limit. */
export const ACCOUNT_CONCURRENCY = 1_000;
/** The most a DynamoDB stream shard carries: one partition's writes a second. */
export const SHARD_WRITES_PER_SECOND = 1_000;
/**
 * Stream shards of a new on-demand table: DynamoDB serves a new on-demand table up to 4,000 write
 * units a second, four partitions' worth, and a stream has a shard per partition. More come as
 * the table splits under load; this is the fewest the projection counts on.
 */
export const INITIAL_SHARDS = 4;
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
    for (let i = 0; i < INBOUND; i += 1) {
      const mms = i % MMS_EVERY === 0;
      bridge.sim.injectMo([
        {
          moType: mms ? 'MMSMO' : 'SMSMO',
          moCallback: `0101234${String(1000 + (i % 9000))}`,
          moNumber: '15880000',
          moMsg: `scale ${i}`,
          ...(mms
            ? {
                attachments: [{ name: `p-${i}.jpg`, contentType: 'image/jpeg', sizeBytes: 50_000 }],
              }
            : {}),
        },
      ]);
    }
    const mmsCount = Math.ceil(INBOUND / MMS_EVERY);
    await waitUntil(
      () =>
        count('Inbound Message Received') - moBefore >= INBOUND &&
        count('Inbound Attachment Stored') - attachmentsBefore >= mmsCount,
      300_000,
      () => `scale: inbound ${count('Inbound Message Received') - moBefore} of ${INBOUND}`,
    );
    await sleep(2_000);

    // ---- per path ----
    const events = bridge.bus.entries.length;
    const publish = meter('publish-events');
    const perShard = publish.ms > 0 ? (publish.records / publish.ms) * 1_000 : Number.NaN;
    const fetch = meter('fetch-attachments');
    const fetchPerShard = fetch.ms > 0 ? (fetch.records / fetch.ms) * 1_000 : Number.NaN;
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
        meter: meter('receive-inbound'),
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
    const streams = [
      {
        path: 'publishing (publish-events, per stream record)',
        recordsPerSecondPerShard: Math.round(perShard),
        keepsUpWithAShard: perShard >= SHARD_WRITES_PER_SECOND,
        msPerRecord: round(publish.ms / Math.max(1, publish.records), 2),
        invocations: publish.invocations,
      },
      {
        path: 'attachments (fetch-attachments, per stream record)',
        recordsPerSecondPerShard: Math.round(fetchPerShard),
        keepsUpWithAShard: fetchPerShard >= SHARD_WRITES_PER_SECOND / MMS_EVERY,
        msPerRecord: round(fetch.ms / Math.max(1, fetch.records), 2),
        invocations: fetch.invocations,
      },
    ];
    // The publisher keeps up while each shard brings it no more records than it handles: with
    // `INITIAL_SHARDS` shards and `recordsPerRecipient` stream records a recipient, that is
    // perShard × shards ÷ recordsPerRecipient recipients a second.
    const recordsPerRecipient = publish.records / (RECIPIENTS + INBOUND);
    const publishCeiling = Math.round((perShard * INITIAL_SHARDS) / recordsPerRecipient);
    const ceilings = [...paths.map((p) => p.ceilingAtMaxConcurrency), publishCeiling].filter(
      Number.isFinite,
    );
    const minCeiling = ceilings.length > 0 ? Math.min(...ceilings) : Number.NaN;
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
      publishing: {
        streamRecordsPerRecipient: round(recordsPerRecipient, 2),
        shards: INITIAL_SHARDS,
        ceilingRecipientsPerSecond: publishCeiling,
      },
      minCeilingRecipientsPerSecond: minCeiling,
      minCeilingAtDefaultsRecipientsPerSecond: Math.min(
        ...paths.map((p) => p.ceilingRecipientsPerSecond).filter(Number.isFinite),
        publishCeiling,
      ),
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
          title: 'scale: stream consumers, per shard (a shard carries at most 1,000 writes/s)',
          columns: ['path', 'invocations', 'ms/record', 'records/s per shard', 'keeps up'],
          rows: streams.map((s) => [
            s.path,
            s.invocations,
            s.msPerRecord,
            s.recordsPerSecondPerShard,
            s.keepsUpWithAShard ? 'yes' : 'no',
          ]),
        },
        figuresTable('scale: publishing, projected', [
          ['stream records per recipient', round(recordsPerRecipient, 2)],
          ['shards counted on (a new on-demand table)', INITIAL_SHARDS],
          ['ceiling (recipients/s)', publishCeiling],
        ]),
        figuresTable('scale goals', [
          [
            'lowest ceiling of a path (recipients/s)',
            String(minCeiling),
            `≥ ${GOAL_RECIPIENTS_PER_SECOND}`,
          ],
        ]),
      ],
    };
  } finally {
    await bridge.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
