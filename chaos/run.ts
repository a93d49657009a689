/**
 * `npm run chaos -- --seed S --items N`: the whole bridge on the local stack (the same handlers
 * and wiring as the Lambdas), a seeded workload, faults at every port with the seed's mix, then
 * the invariants checked from outside once the system has settled. Prints its figures and ends
 * with one line `chaos: seed=S items=N lost=L duplicated=D unavoidable=U ...`; exits 1 unless
 * every invariant holds. The workload goes in through `feed-workload.ts`; `settle.ts` waits for
 * the outcomes and runs the late jobs; `report.ts` prints the figures and the line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type LocalBridge, startLocalBridge } from '../local/bridge.ts';
import {
  FaultPlan,
  faultMixFor,
  faultyGateway,
  injectDynamoDbFaults,
  injectEventBridgeFaults,
  injectS3Faults,
  injectSqsFaults,
  killableLambda,
} from './faults.ts';
import { feedWorkload } from './feed-workload.ts';
import { checkInvariants, type GatewayLedger, holds, type Verdict } from './invariants.ts';
import { explainLostSends, gatewayFaults, printReport, seconds } from './report.ts';
import { awaitOutcomes, settle } from './settle.ts';
import { ReportTrail } from './trail.ts';
import { buildWorkload } from './workload.ts';

export interface ChaosOptions {
  readonly seed: number;
  readonly items: number;
  /** Longest time the faults run after the workload, while the sends are decided. @default 60 s */
  readonly faultWindowMs?: number;
  /** Longest wait for the system to settle once the faults stop. @default 120 s */
  readonly settleMs?: number;
  /**
   * Longest further wait, past `settleMs`, while a send still missing its outcome is in the send
   * queue (delayed by its backoff, in flight or ready): it is pending, not lost, and the run waits
   * for its last delivery rather than calling it lost. @default 60 s
   */
  readonly queuedGraceMs?: number;
  /** Where progress lines go. @default console.log */
  readonly log?: (line: string) => void;
  /**
   * Whether the bridge also publishes "Message Accepted" events (`sending.acceptedEvents`).
   * @default false, as deployed
   */
  readonly acceptedEvents?: boolean;
}

export interface ChaosResult {
  readonly seed: number;
  readonly items: number;
  readonly verdict: Verdict;
  readonly ok: boolean;
  readonly summary: string;
  readonly faults: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
}

const TPS_QUOTA = 20;
/**
 * The stack of the run: a gateway call times out after 1.5 s, so send-messages may have a timeout
 * of 8 s (twice that and 5 s, the least the stack accepts; deployed by default it is 60 s), and
 * its queue's visibility is six times that, as the stack sets it.
 */
const GATEWAY_TIMEOUT_MS = 1_500;
const SEND_TIMEOUT_SECONDS = 8;
/** The sender's redelivery backoff is sized for the default 60 s timeout: scaled to this one. */
const TIME_SCALE = SEND_TIMEOUT_SECONDS / 60;
const WEBHOOK_SECRET = 'chaos-secret-0123456789';

export const runChaos = async (options: ChaosOptions): Promise<ChaosResult> => {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const { seed, items } = options;
  const mix = faultMixFor(seed);
  const plan = new FaultPlan(seed, mix);
  const workload = buildWorkload(seed, items);
  const dataDir = mkdtempSync(join(tmpdir(), `msgbridge-chaos-${seed}-`));
  const unavoidable = new Set<string>();
  // Where each report goes on its way to the bus: printed under the report if it is lost.
  const trail = new ReportTrail(started);
  const unwatchGateway = trail.watchGateway();
  let bridge: LocalBridge | undefined;
  // The bridge logs every failure it meets on stderr; under injected faults that is thousands of
  // lines. They are counted (and the first few kept) instead.
  const stderr = { lines: 0, first: [] as string[] };
  const consoleError = console.error;
  console.error = (...args: unknown[]) => {
    stderr.lines += 1;
    if (stderr.first.length < 5) stderr.first.push(args.map(String).join(' ').slice(0, 200));
  };
  try {
    bridge = await startLocalBridge({
      // The invariants read every event the run put on the bus.
      eventsInMemoryBytes: Number.POSITIVE_INFINITY,
      port: 0,
      simulatorPort: 0,
      webhookSecret: WEBHOOK_SECRET,
      dataDir,
      apiKey: 'chaos-key',
      apiPassword: `chaos-password-${seed}`,
      tpsQuota: TPS_QUOTA,
      printEvents: false,
      reportDelivery: workload.reportDelivery,
      reconcileAfterMinutes: 1,
      acceptedEvents: options.acceptedEvents ?? false,
      simulator: {
        seed,
        reportDelayMs: 200,
        failureRate: 0.2,
        webhookRetryIntervalMs: 500,
        webhookTimeoutMs: 3_000,
        confirmWindowMs: 4_000,
        minEmptyPollIntervalMs: 1_000,
        reportBatchSize: 10,
      },
      loggerFor: trail.loggerFor,
      instrument: {
        clients: ({ dynamodb, s3, sqs, eventBridge }, functionName) => {
          injectDynamoDbFaults(dynamodb, plan);
          injectS3Faults(s3, plan);
          injectSqsFaults(sqs, plan, TIME_SCALE);
          // After the faults: it records what reached SQS (a lost delete did not).
          trail.watchSqs(sqs, functionName);
          injectEventBridgeFaults(eventBridge, plan, unavoidable);
        },
        gateway: (inner) => faultyGateway(plan)(trail.watchSends(inner)),
        // The trail outside: it sees a killed invocation end.
        lambda: (name, handler) => trail.watchInvocation(name, killableLambda(name, handler)),
        gatewayTimeoutMs: GATEWAY_TIMEOUT_MS,
        sendTimeoutSeconds: SEND_TIMEOUT_SECONDS,
      },
    });
    const running = bridge;
    trail.checkQueueUrl = running.queues.reportChecks.url;
    trail.gatewayPort = Number(new URL(running.sim.url).port);
    log(
      `chaos: seed ${seed}, ${items} items: ${workload.cliKeys.length} recipients in ${workload.sends.flat().length} send requests, ` +
        `${workload.mo.flat().length} inbound messages (${workload.attachments} attachments), ${workload.hostile.length} hostile bodies; reports by ${workload.reportDelivery}`,
    );
    log(
      `chaos: ${workload.emojiCliKeys.length} recipients with emoji; bad sends: ${workload.badSends
        .map(
          (bad) =>
            `${bad.kind} (${Buffer.byteLength(bad.body)} bytes, ${bad.sameBatch ? 'in' : 'after'} batch ${bad.batch})`,
        )
        .join(', ')}`,
    );

    // Faults on, then the workload, interleaved as it would arrive.
    plan.armed = true;
    running.sim.setFaults(mix.gateway);
    const fed = await feedWorkload(running, workload, plan);

    // Let the faults bite while the sends are decided, then stop them and let the system heal.
    await awaitOutcomes(running, workload, fed.badSends, options.faultWindowMs ?? 60_000);
    plan.armed = false;
    running.sim.setFaults({
      errorRate: 0,
      timeoutRate: 0,
      http200ErrorRate: 0,
      duplicateWebhookRate: 0,
      rateLimitBurst: 0,
      reportWithholdRate: 0,
    });
    log(`chaos: faults off after ${seconds(Date.now() - started)}; settling`);

    const verdictNow = () =>
      checkInvariants({
        workload,
        ledger: ledgerOf(running, fed.mo),
        entries: running.bus.entries,
        unavoidable,
        hostileAnswers: fed.hostileAnswers,
        acceptedEvents: options.acceptedEvents ?? false,
        badSends: fed.badSends,
      });
    await settle(running, verdictNow, {
      settleMs: options.settleMs ?? 120_000,
      queuedGraceMs: options.queuedGraceMs ?? 60_000,
      log,
    });
    // Late duplicates (a redelivered message, a retried stream batch) would show up now.
    await sleep(3_000);
    await running.publisher.drained().catch(() => undefined);
    const verdict = verdictNow();
    await explainLostSends(running, verdict, log);
    const trails = await trail.explain(running, verdict);
    const elapsedMs = Date.now() - started;
    const faults = { ...plan.injected, ...gatewayFaults(running) };
    const summary = printReport({
      seed,
      items,
      verdict,
      faults,
      notes: plan.notes,
      bridge: running,
      elapsedMs,
      log,
      trails,
      withheld: trail.withheldSummary(running),
    });
    return { seed, items, verdict, ok: holds(verdict), summary, faults, elapsedMs };
  } finally {
    plan.armed = false;
    unwatchGateway();
    await bridge?.stop();
    console.error = consoleError;
    if (stderr.lines > 0) {
      log(`  bridge stderr: ${stderr.lines} lines, the first: ${stderr.first.join(' | ')}`);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** The gateway simulator's ledger as the invariants read it, with the MO items it made. */
const ledgerOf = (bridge: LocalBridge, mo: GatewayLedger['mo']): GatewayLedger => ({
  acceptances: bridge.sim.acceptances().map((recipient) => ({
    cliKey: recipient.cliKey,
    msgKey: recipient.msgKey,
    ...(recipient.phone === undefined ? {} : { phone: recipient.phone }),
    requestedAt: recipient.requestedAt,
    deliverAt: recipient.deliverAt,
    reported: recipient.result !== undefined,
  })),
  tpsQuota: TPS_QUOTA,
  quotaRefusals: bridge.sim.snapshot().quotaRefusals,
  mo,
});

const main = async (): Promise<void> => {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      items: { type: 'string', default: '100' },
      'settle-seconds': { type: 'string', default: '120' },
      'accepted-events': { type: 'boolean', default: false },
    },
  });
  const seed = Number(values.seed);
  const items = Number(values.items);
  const settleSeconds = Number(values['settle-seconds']);
  if (!Number.isInteger(seed) || !Number.isInteger(items) || items < 10 || !(settleSeconds > 0)) {
    console.error(
      'usage: npm run chaos -- --seed <integer> --items <integer ≥ 10> [--settle-seconds 120] [--accepted-events]',
    );
    process.exit(2);
  }
  const result = await runChaos({
    seed,
    items,
    settleMs: settleSeconds * 1000,
    acceptedEvents: values['accepted-events'],
  });
  process.exit(result.ok ? 0 : 1);
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  main().catch((error: unknown) => {
    console.error('chaos: the run failed:', error);
    process.exit(1);
  });
}
