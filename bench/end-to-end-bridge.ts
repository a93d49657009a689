/**
 * The local bridge as the end-to-end scenario measures it: every function's AWS clients counted
 * (`call-counter.ts`) and their bytes metered (`traffic.ts`), each function's log lines counted
 * (`log-meter.ts`), reconcile-status's invocations timed, the events the bus is given and the
 * send-messages batches watched (`end-to-end-watch.ts`), and every HTTP request to the gateway
 * simulator and to the webhook routes counted.
 */
import { type LocalBridge, startLocalBridge } from '../local/bridge.ts';
import { checkpointKey } from '../local/stream-checkpoints.ts';
import { CallCounter, HttpCounter } from './call-counter.ts';
import type { Deployment } from './deployed.ts';
import type { Meters } from './end-to-end-figures.ts';
import { EventWatch, SendBatches } from './end-to-end-watch.ts';
import { benchBridgeOptions } from './local-bridge.ts';
import { CountingLogger, LogBytes } from './log-meter.ts';
import { LAMBDA_MEMORY_MB } from './prices.ts';
import { functionScope, TrafficMeter } from './traffic.ts';

/** A running bridge and what measures it. */
export interface MeasuredBridge {
  readonly bridge: LocalBridge;
  readonly counter: CallCounter;
  readonly events: EventWatch;
  readonly sendBatches: SendBatches;
  readonly meters: Meters;
  /** When the bridge had started, and with it the scheduled jobs' timers (`performance.now()`). */
  readonly jobsStartedAt: number;
  /** Stops the counting and the bridge. */
  stop(): Promise<void>;
}

export const startMeasuredBridge = async (options: {
  readonly dataDir: string;
  /** What `npx cdk deploy` of this repository deploys: each function's log level. */
  readonly deployment: Deployment;
  readonly tpsQuota: number;
  /** The local run's RECONCILE_AFTER_MINUTES. */
  readonly reconcileAfterMinutes: number;
  /** The deployment choice `sending.acceptedEvents`. */
  readonly acceptedEvents: boolean;
}): Promise<MeasuredBridge> => {
  const { deployment } = options;
  const counter = new CallCounter();
  const logs = new LogBytes();
  const traffic = new TrafficMeter();
  const meters = { logs, traffic, reconcile: { invocations: 0, ms: 0 } };
  const events = new EventWatch();
  const sendBatches = new SendBatches();
  /** The report-check queue, once the bridge has started (its URL names the checks' sends). */
  let reportCheckQueueUrl: string | undefined;
  const b = await startLocalBridge({
    ...benchBridgeOptions(options.dataDir),
    tpsQuota: options.tpsQuota,
    reconcileAfterMinutes: options.reconcileAfterMinutes,
    acceptedEvents: options.acceptedEvents,
    // Measurement only: each function's logger counts its lines' bytes, and each Lambda
    // stand-in runs inside a scope naming it, so its AWS calls' bytes are its own.
    loggerFor: (name) =>
      new CountingLogger(
        logs,
        name,
        LAMBDA_MEMORY_MB[name as keyof typeof LAMBDA_MEMORY_MB] ?? 256,
        {},
        // The level the stack deploys for this function (its advanced logging controls).
        deployment.functions[name]?.applicationLogLevel,
      ),
    instrument: {
      lambda: (name, handler) => async (event) => {
        if (name !== 'reconcile-status') return functionScope.run(name, () => handler(event));
        // reconcile-status's invocations (its schedule's and its check queue's) are metered.
        const started = performance.now();
        try {
          return await functionScope.run(name, () => handler(event));
        } finally {
          meters.reconcile.invocations += 1;
          meters.reconcile.ms += performance.now() - started;
        }
      },
      // Every function's own clients (and its event sources'), counted and metered.
      clients: (clients) => {
        counter.instrument(clients.dynamodb.middlewareStack, 'DynamoDB');
        counter.instrument(clients.streams.middlewareStack, 'DynamoDB Streams');
        counter.instrument(clients.sqs.middlewareStack, 'SQS', sendBatches.observe);
        counter.instrument(clients.s3.middlewareStack, 'S3');
        traffic.instrument(clients.dynamodb.middlewareStack, 'DynamoDB');
        // send-messages sends the report checks of a batch's requests together, outside any
        // one request's scope: they are its calls, through the NAT.
        traffic.instrument(clients.sqs.middlewareStack, 'SQS', (input, operation) =>
          operation.startsWith('SendMessage') &&
          reportCheckQueueUrl !== undefined &&
          input.QueueUrl === reportCheckQueueUrl
            ? 'send-messages'
            : undefined,
        );
        traffic.instrument(clients.s3.middlewareStack, 'S3');
      },
    },
    simulator: {
      // The simulator's outcome mix (10% failed, 70% of those delivered by fallback, 2%
      // uncertain), a few duplicate webhook deliveries, and short delays so the run is short.
      reportDelayMs: 1_000,
      webhookRetryIntervalMs: 1_000,
      faults: { duplicateWebhookRate: 0.05 },
      seed: 6,
    },
  });
  try {
    sendBatches.queueUrl = b.urls.sendQueue;
    reportCheckQueueUrl = b.urls.reportChecks;
    const jobsStartedAt = performance.now();
    // The local stream poller's checkpoints (written with the run's own client) stand in for the
    // event source mapping's own bookkeeping, which Lambda does not bill: counted apart, never
    // priced. The producers' sends go through the run's SQS client too.
    const checkpoint = checkpointKey('');
    counter.instrument(b.documents.middlewareStack, 'DynamoDB', undefined, (input) => {
      const key = (input.Key ?? input.Item) as { pk?: unknown } | undefined;
      return typeof key?.pk === 'string' && key.pk.startsWith(checkpoint);
    });
    counter.instrument(b.sqs.middlewareStack, 'SQS', sendBatches.observe);
    traffic.instrument(b.sqs.middlewareStack, 'SQS');
    const unwatch = traffic.watchHttp(b.urls.simulator, 'gateway');
    events.attach(b, counter);
    const http = new HttpCounter(
      counter,
      new Map([
        [b.urls.simulator.replace(/\/$/, ''), 'gateway'],
        [b.urls.webhooks.replace(/\/$/, ''), 'webhooks'],
      ]),
    );
    return {
      bridge: b,
      counter,
      events,
      sendBatches,
      meters,
      jobsStartedAt,
      stop: async () => {
        http.close();
        unwatch();
        await b.stop();
      },
    };
  } catch (error) {
    // The bridge started, but its counting did not: stopped, as the run's end would stop it.
    await b.stop();
    throw error;
  }
};
