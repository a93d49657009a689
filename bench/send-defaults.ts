/**
 * Scenario `send-defaults`: how much of a 100 TPS quota the local run uses with the sending
 * settings a deployment gets by default (cdk.json's `sending` and the constructs' defaults; only
 * `gateway.tpsQuota` is set, to 100), against the simulator answering every gateway call in a
 * seeded uniform 50–150 ms.
 *
 * A backlog of 1-recipient SMS, then one of 10-recipient SMS, goes through the send queue, its
 * event source and `send-messages` as deployed. Figures per phase: recipients the simulator
 * counted against the quota per second (its own counts, by the second each call arrived in) over
 * a steady window (the first seconds, while the pollers and execution environments start, are
 * left out), as a ratio of the quota; the busiest second of the phase; `29002` refusals; and
 * where an invocation's time goes (its records, the gateway calls, the state and event table
 * writes), which is what sets the recipients one invocation sustains.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { smsBody } from '../fixtures/send-bodies.ts';
import { startLocalBridge } from '../local/bridge.ts';
import { benchBridgeOptions } from './local-bridge.ts';
import { figuresTable, round, type ScenarioResult } from './report.ts';

const QUOTA = 100;
const SILENT = new Logger({ logLevel: 'SILENT' });
/** The simulator's answer time: 50 ms plus a seeded uniform 0–100 ms. */
const LATENCY = { latencyMs: 50, latencyJitterMs: 100 } as const;
/** Seconds from a phase's first accepted recipient left out of its rate. */
const WARM_UP_SECONDS = 5;
/** Seconds the rate is judged over. */
const WINDOW_SECONDS = 20;
/** The backlog is enqueued hidden and appears at once, this long after a phase starts. */
const RELEASE_AFTER_MS = 10_000;
/** The backlog outlasts the window even at the full quota. */
const BACKLOG_SECONDS = WARM_UP_SECONDS + WINDOW_SECONDS + 5;

type LogItemLike = Parameters<Logger['printLog']>[1];

/**
 * The sender's warnings, counted by message instead of printed: a message delivered again
 * (`retry` with its reason) costs the backoff, which the quota use would show only as a dip.
 */
class WarningCounter extends Logger {
  constructor(readonly counts: Map<string, number>) {
    super({ logLevel: 'WARN' });
  }

  protected override printLog(_logLevel: number, log: LogItemLike): void {
    const attributes = log.getAttributes() as { message?: string; reason?: string };
    const key = [attributes.message, attributes.reason].filter(Boolean).join(': ');
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  protected override createLogger(): Logger {
    return new WarningCounter(this.counts);
  }
}

/** What one timed thing took: how many, and their mean in ms. */
interface Timing {
  count: number;
  totalMs: number;
}
const timed = (into: Map<string, Timing>, key: string, ms: number) => {
  const timing = into.get(key) ?? { count: 0, totalMs: 0 };
  timing.count += 1;
  timing.totalMs += ms;
  into.set(key, timing);
};
const meanMs = (timing: Timing | undefined) =>
  timing && timing.count > 0 ? round(timing.totalMs / timing.count, 1) : null;

const sendDefaultsFigures = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-send-defaults-'));
  // Timings of the current phase, reset between phases.
  let invocations: { records: number; ms: number; at: number }[] = [];
  let calls = new Map<string, Timing>();
  // Cleared, never replaced: each execution environment's logger keeps this map.
  const warnings = new Map<string, number>();
  const bridge = await startLocalBridge({
    ...benchBridgeOptions(dataDir),
    tpsQuota: QUOTA,
    // Reports far later than the run: the run measures sending, not the report webhooks.
    simulator: { faults: { ...LATENCY }, reportDelayMs: 3_600_000 },
    runSchedules: false,
    loggerFor: (name) => (name === 'send-messages' ? new WarningCounter(warnings) : SILENT),
    instrument: {
      lambda: (name, handler) => async (event) => {
        if (name !== 'send-messages') return handler(event);
        const started = performance.now();
        try {
          return await handler(event);
        } finally {
          invocations.push({
            records: (event as SQSEvent).Records?.length ?? 0,
            ms: performance.now() - started,
            at: Date.now(),
          });
        }
      },
      // The sender's DynamoDB and SQS calls, timed by table (or queue) and operation.
      clients: (clients, functionName) => {
        if (functionName !== 'send-messages') return;
        for (const client of [clients.dynamodb, clients.sqs] as const)
          (
            client.middlewareStack as {
              add: (
                m: (
                  next: (args: { input: unknown }) => Promise<unknown>,
                  context: { commandName?: string },
                ) => (args: { input: unknown }) => Promise<unknown>,
                o: object,
              ) => void;
            }
          ).add(
            (next, context) => async (args) => {
              const input = args.input as { TableName?: string; RequestItems?: object };
              const table = input.TableName ?? Object.keys(input.RequestItems ?? {})[0] ?? 'sqs';
              const started = performance.now();
              try {
                return await next(args);
              } finally {
                timed(
                  calls,
                  `${table.includes('state') ? 'state' : table.includes('event') ? 'event' : table} ${context.commandName?.replace(/Command$/, '')}`,
                  performance.now() - started,
                );
              }
            },
            { step: 'initialize', name: 'benchTimeSenderCalls' },
          );
      },
      // The gateway call from the limiter's reservation (beforeSend) to the answer, and the
      // whole send with its wait for the quota.
      gateway: (gateway) => ({
        send: async (message, options) => {
          const started = performance.now();
          let reserved = started;
          try {
            return await gateway.send(message, {
              ...options,
              beforeSend: async () => {
                await options?.beforeSend?.();
                reserved = performance.now();
              },
            });
          } finally {
            const ended = performance.now();
            timed(calls, 'gateway: quota wait and token', reserved - started);
            timed(calls, 'gateway: HTTP call', ended - reserved);
          }
        },
      }),
    },
  });
  const sim = bridge.sim;
  const sender = bridge.stack.functions().find((fn) => fn.name === 'send-messages')?.logicalId;
  const mapping = bridge.stack
    .eventSourceMappings()
    .find((each) => each.kind === 'sqs' && each.functionId === sender);

  /** A backlog of `recipients`-recipient messages through the bridge, measured by the simulator. */
  const phase = async (recipients: 1 | 10, backlogSeconds = BACKLOG_SECONDS) => {
    invocations = [];
    calls = new Map();
    warnings.clear();
    const before = sim.snapshot();
    const messages = Math.ceil((QUOTA * backlogSeconds) / recipients);
    const total = messages * recipients;
    const started = Date.now();
    // The backlog is put on the queue all at once, hidden until one instant: enqueued while the
    // sender ran, it would share this process (and the sender's event loop) with the producer.
    const release = started + RELEASE_AFTER_MS;
    const perSecond = new Map<number, number>();
    // The simulator keeps its latest 60 seconds: read them as they go.
    const sample = () => {
      for (const [second, count] of Object.entries(sim.snapshot().quotaUsedBySecond))
        if (Number(second) >= Math.floor(release / 1000)) perSecond.set(Number(second), count);
    };
    const sampler = setInterval(sample, 2_000);
    try {
      const bodies = Array.from({ length: messages }, () =>
        JSON.stringify({ channel: 'sms', ...smsBody(recipients) }),
      );
      const batches = Array.from({ length: Math.ceil(messages / 10) }, (_, index) =>
        bodies.slice(index * 10, index * 10 + 10),
      );
      let next = 0;
      const producer = async () => {
        for (let batch = batches[next++]; batch; batch = batches[next++]) {
          const delaySeconds = Math.max(0, Math.ceil((release - Date.now()) / 1_000));
          const answer = await bridge.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: bridge.urls.sendQueue,
              Entries: batch.map((body, id) => ({
                Id: String(id),
                MessageBody: body,
                DelaySeconds: delaySeconds,
              })),
            }),
          );
          if ((answer.Failed ?? []).length > 0) throw new Error('send-defaults: enqueue refused');
        }
      };
      await Promise.all(Array.from({ length: 8 }, producer));
      const enqueuedMs = Date.now() - started;
      if (Date.now() > release)
        throw new Error(`send-defaults: the backlog took ${enqueuedMs} ms to enqueue`);
      const deadline = Date.now() + (BACKLOG_SECONDS * 4 + 30) * 1_000;
      while (
        sim.snapshot().recipientsAccepted - before.recipientsAccepted < total &&
        Date.now() < deadline
      )
        await sleep(250);
      sample();
      const after = sim.snapshot();
      const seconds = [...perSecond.keys()].sort((a, b) => a - b);
      const first = seconds[0] ?? 0;
      const window = Array.from(
        { length: WINDOW_SECONDS },
        (_, index) => first + WARM_UP_SECONDS + index,
      );
      const windowRecipients = window.reduce(
        (sum, second) => sum + (perSecond.get(second) ?? 0),
        0,
      );
      const steady = invocations.filter(
        (each) =>
          each.at >= (first + WARM_UP_SECONDS) * 1000 &&
          each.at < (first + WARM_UP_SECONDS + WINDOW_SECONDS) * 1000,
      );
      const invocationMs = steady.reduce((sum, each) => sum + each.ms, 0) / steady.length;
      const records = steady.reduce((sum, each) => sum + each.records, 0) / steady.length;
      const concurrency = mapping?.maxConcurrency ?? Number.NaN;
      return {
        recipientsPerMessage: recipients,
        messages,
        recipientsAccepted: after.recipientsAccepted - before.recipientsAccepted,
        enqueuedMs,
        seconds: seconds.length,
        perSecondSeries: seconds.map((second) => perSecond.get(second) ?? 0),
        quotaUse: round(windowRecipients / (QUOTA * WINDOW_SECONDS), 3),
        highestSecondRatio: round(Math.max(...perSecond.values()) / QUOTA, 3),
        quotaRefusals: after.quotaRefusals - before.quotaRefusals,
        senderWarnings: Object.fromEntries(warnings),
        rateLimitedSends: after.rejectedSends - before.rejectedSends,
        invocations: steady.length,
        recordsPerInvocation: round(records, 2),
        invocationMs: round(invocationMs, 0),
        // Busy time of the window's invocations over the window × the concurrency: near 1, the
        // invocations (not the polling between them) set the rate.
        busyShare: round(
          steady.reduce((sum, each) => sum + each.ms, 0) / (WINDOW_SECONDS * 1000 * concurrency),
          2,
        ),
        recipientsPerSecondPerInvocation: round((records * recipients * 1000) / invocationMs, 1),
        callsMeanMs: Object.fromEntries(
          [...calls].sort(([a], [b]) => a.localeCompare(b)).map(([key, t]) => [key, meanMs(t)]),
        ),
        callsPerRecord: Object.fromEntries(
          [...calls]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, t]) => [key, round(t.count / (messages || 1), 2)]),
        ),
      };
    } finally {
      clearInterval(sampler);
    }
  };

  try {
    // Unmeasured: the execution environments' cold starts, their tokens, and DynamoDB Local's
    // JIT warm-up (a deployment's table has none), which would otherwise fill the first window.
    await phase(1, 5);
    const single = await phase(1);
    const ten = await phase(10);
    return {
      quota: QUOTA,
      gatewayLatencyMs: `${LATENCY.latencyMs}–${LATENCY.latencyMs + LATENCY.latencyJitterMs}`,
      warmUpSeconds: WARM_UP_SECONDS,
      windowSeconds: WINDOW_SECONDS,
      maxConcurrency: mapping?.maxConcurrency ?? null,
      batchSize: mapping?.batchSize ?? null,
      maxBatchingWindowSeconds: mapping?.maxBatchingWindowSeconds ?? null,
      singleRecipient: single,
      tenRecipients: ten,
      singleRecipientQuotaUse: single.quotaUse,
      tenRecipientQuotaUse: ten.quotaUse,
      highestSecondRatio: Math.max(single.highestSecondRatio, ten.highestSecondRatio),
    };
  } finally {
    await bridge.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const runSendDefaults = async (): Promise<ScenarioResult> => {
  const figures = await sendDefaultsFigures();
  const row = (name: string, pick: (p: typeof figures.singleRecipient) => unknown) => [
    name,
    String(pick(figures.singleRecipient)),
    String(pick(figures.tenRecipients)),
  ];
  const callKeys = [
    ...new Set([
      ...Object.keys(figures.singleRecipient.callsMeanMs),
      ...Object.keys(figures.tenRecipients.callsMeanMs),
    ]),
  ].sort();
  return {
    figures,
    tables: [
      {
        title: `send-defaults: the deployed sending defaults (maxConcurrency ${figures.maxConcurrency}, batchSize ${figures.batchSize}, batching window ${figures.maxBatchingWindowSeconds} s), quota ${QUOTA} recipients/s, gateway answering in ${figures.gatewayLatencyMs} ms (local run)`,
        columns: ['figure', '1 recipient', '10 recipients'],
        rows: [
          row(
            `quota use, seconds ${WARM_UP_SECONDS + 1}–${WARM_UP_SECONDS + WINDOW_SECONDS}`,
            (p) => p.quotaUse,
          ),
          row('highest second / quota (≤ 1.0)', (p) => p.highestSecondRatio),
          row('29002 refusals', (p) => p.quotaRefusals),
          row('sender warnings', (p) =>
            Object.entries(p.senderWarnings)
              .map(([warning, count]) => `${count} × ${warning}`)
              .join('; '),
          ),
          row('recipients per second (simulator)', (p) => p.perSecondSeries.join(' ')),
          row('invocations in the window', (p) => p.invocations),
          row('records per invocation', (p) => p.recordsPerInvocation),
          row('ms per invocation', (p) => p.invocationMs),
          row('recipients/s one invocation sustains', (p) => p.recipientsPerSecondPerInvocation),
          row('busy share of the concurrency', (p) => p.busyShare),
          ...callKeys.map((key) =>
            row(`${key}: mean ms (per message)`, (p) => {
              const ms = p.callsMeanMs[key];
              return ms === undefined ? '' : `${ms} (${p.callsPerRecord[key]})`;
            }),
          ),
        ],
      },
      figuresTable('send-defaults goals', [
        ['1-recipient quota use', figures.singleRecipientQuotaUse, '≥ 0.95'],
        ['10-recipient quota use', figures.tenRecipientQuotaUse, '≥ 0.95'],
        ['highest second / quota', figures.highestSecondRatio, '≤ 1.0'],
      ]),
    ],
  };
};
