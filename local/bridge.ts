/**
 * The whole bridge on one machine, with no AWS account: the synthesized stack (`synthesizeStack`)
 * deployed onto local servers (`deployLocally`): DynamoDB Local with the stack's tables and
 * streams, fauxqs for its queues and buckets, local Secrets Manager and EventBridge endpoints, the
 * gateway simulator, and the webhook front door on a local port. Every function runs its Lambda
 * composition on the environment the template sets, wired as the template wires it; events put on
 * the bus are printed and appended to a JSON-lines file.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StackTemplate } from '../aws-semantics/cloudformation-template.ts';
import type { composeSweepAttachments } from '../functions/attachments/compose.ts';
import { ContentUrlPolicy } from '../functions/attachments/content-url-policy.ts';
import { createSweepHandler } from '../functions/attachments/handler.ts';
import type { EventStore } from '../functions/event-table/ports.ts';
import type { PollingGateway, ReportDelivery } from '../functions/polling/poll-use-case.ts';
import type { composeReconcileStatus } from '../functions/reconcile/compose.ts';
import { reconcileStatusExclusively } from '../functions/reconcile/reconcile-use-case.ts';
import type { SendGateway } from '../functions/sending/ports.ts';
import { SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';
import { type SimulatorOptionsInput, startSimulator } from '../simulator/index.ts';
import { AwsCallRecorder } from './aws/call-recorder.ts';
import { startLocalJsonServices } from './aws/json-services.ts';
import type { InvocationWrapper } from './aws/lambda-runtime.ts';
import { startLocalQueues } from './aws/local-queues.ts';
import { notifyBridgeObservers } from './bridge-observers.ts';
import { ownerOnlyDataDir } from './data-dir.ts';
import { deployLocally, type FunctionClients, type LocalDeployment } from './deployment.ts';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  localClientConfig,
  localDynamoDbClient,
  startDynamoDbLocal,
} from './dynamodb-local.ts';
import { LocalEventBus } from './event-bus.ts';
import { loadFirstUseModules } from './first-use-modules.ts';
import { replayOnBus } from './replay.ts';
import type { FunctionOverrides } from './stack/compositions.ts';
import { cdkJsonContext, synthesizeStack } from './stack/synthesize.ts';
import { stateTableCheckpoints } from './stream-checkpoints.ts';
import { startWebhookServer, type WebhookFunction } from './webhook-server.ts';

/** The account of the local deployment: fauxqs's, so its queue ARNs are the model's. */
export const LOCAL_ACCOUNT = '000000000000';

export interface LocalBridgeOptions {
  /** Webhook routes' port; 0 picks one. */
  readonly port: number;
  /**
   * Prefixes of the webhook server a handler is mounted at once the run is up (`npm start`'s
   * console): they answer "starting" (503, `Retry-After`) until then. @default none
   */
  readonly reservedMounts?: readonly string[];
  /** Gateway simulator's port; 0 picks one. */
  readonly simulatorPort: number;
  readonly webhookSecret: string;
  /** Where `events.jsonl` goes. */
  readonly dataDir: string;
  /** The simulator's credentials (the bridge authenticates with them). */
  readonly apiKey: string;
  readonly apiPassword: string;
  /** Recipients per second the simulator accepts and the stack budgets for (`gateway.tpsQuota`). */
  readonly tpsQuota: number;
  /** Extra simulator settings (outcome mix, faults, delays). */
  readonly simulator?: Partial<SimulatorOptionsInput>;
  /** Print one line per event. @default true */
  readonly printEvents?: boolean;
  /** Deliveries before a send goes to the DLQ (`sending.maxReceiveCount`). @default the stack's */
  readonly maxReceiveCount?: number;
  /** For tests: the first N event-table writes of the webhook receivers fail, as a throttled table would. */
  readonly failFirstWebhookWrites?: number;
  /** How delivery reports arrive (`reportDelivery`). @default 'webhook' */
  readonly reportDelivery?: ReportDelivery;
  /** Minutes before reconcile-status asks about a recipient (`reconcile.afterMinutes`). @default the stack's */
  readonly reconcileAfterMinutes?: number;
  /** Whether accepted recipients are published as "Message Accepted" (`sending.acceptedEvents`). @default false */
  readonly acceptedEvents?: boolean;
  /** For tests: the poller's first N report confirmations are lost, so the gateway redelivers them. */
  readonly loseFirstConfirms?: number;
  /**
   * Keep DynamoDB Local's tables under `dataDir/dynamodb`, so that a restart remembers every item
   * and where each stream consumer was (`npm start` does). @default false: in memory, about twice
   * as fast, for tests that never restart
   */
  readonly persistTables?: boolean;
  /** Further `msgbridge` settings of the synthesized stack, over those of `cdk.json`. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Run the schedules on their timers. @default true */
  readonly runSchedules?: boolean;
  /** For the fault-injection run (`chaos/`): wraps or instruments what the functions use. */
  readonly instrument?: LocalBridgeInstrument;
  /**
   * How much of the latest events the bus keeps in memory (`bus.entries`); the events file has
   * them all. `Infinity` keeps every event (the chaos run checks them all). @default 16 MiB
   */
  readonly eventsInMemoryBytes?: number;
  /**
   * For measurement (the benchmark counts log bytes): the logger each function's composition gets,
   * by function name (`receive-reports`, `send-messages`, `reconcile-status`, ...). @default a
   * silent logger for all
   */
  readonly loggerFor?: (functionName: string) => Logger;
  /** Where every function's AWS calls are recorded. @default a recorder of the bridge's own */
  readonly recorder?: AwsCallRecorder;
}

/**
 * Hooks of the fault-injection run. Every function gets the instrumented clients, so a fault
 * injected here reaches the same code a deployed Lambda runs.
 */
export interface LocalBridgeInstrument {
  /**
   * Called with the clients of each execution environment of a function before it is composed,
   * and of each of its event sources: add middleware here. The DynamoDB client's middleware stack
   * is its document client's too.
   */
  readonly clients?: (
    clients: {
      readonly dynamodb: DynamoDBClient;
      readonly streams: DynamoDBStreamsClient;
      readonly s3: S3Client;
      readonly sqs: SQSClient;
      readonly eventBridge: EventBridgeClient;
    },
    functionName: string,
  ) => void;
  /** Wraps the gateway send-messages sends through. */
  readonly gateway?: (gateway: SendGateway) => SendGateway;
  /** Wraps every invocation: the wrapper can end one early, as a killed Lambda ends. */
  readonly lambda?: InvocationWrapper;
  /** `gateway.timeoutMs` of the stack. @default the stack's */
  readonly gatewayTimeoutMs?: number;
  /** `sending.functionTimeoutSeconds` of the stack. @default the stack's */
  readonly sendTimeoutSeconds?: number;
}

const SILENT = new Logger({ logLevel: 'SILENT' });
// CloudWatch metrics mean nothing locally; without this, Powertools prints EMF lines whenever 100
// metrics have piled up. An explicit setting in the environment wins.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

/** The buckets the example messages' MMS attachments are in. */
const EXAMPLE_ATTACHMENT_BUCKETS = SEND_MESSAGE_EXAMPLES.flatMap(({ message }) =>
  'attachments' in message ? (message.attachments ?? []).map((each) => each.bucket) : [],
);

/** The stack settings a local run's options stand for, over those of cdk.json. */
const stackSettings = (options: LocalBridgeOptions): Record<string, unknown> => {
  const base = (cdkJsonContext().msgbridge ?? {}) as Record<string, unknown>;
  const gateway = base.gateway as Record<string, unknown>;
  const sending = (base.sending ?? {}) as Record<string, unknown>;
  const reconcile = (base.reconcile ?? {}) as Record<string, unknown>;
  return {
    gateway: {
      ...gateway,
      tpsQuota: options.tpsQuota,
      ...(options.instrument?.gatewayTimeoutMs === undefined
        ? {}
        : { timeoutMs: options.instrument.gatewayTimeoutMs }),
    },
    sending: {
      ...sending,
      // The example MMS (`npm run demo`) reads its attachment from this bucket: as a deployment
      // sending it must, the local run lists it, so send-messages' role may read it.
      attachmentBuckets: [
        ...new Set([
          ...((sending.attachmentBuckets ?? []) as string[]),
          ...EXAMPLE_ATTACHMENT_BUCKETS,
        ]),
      ],
      acceptedEvents: options.acceptedEvents ?? false,
      ...(options.maxReceiveCount === undefined
        ? {}
        : { maxReceiveCount: options.maxReceiveCount }),
      ...(options.instrument?.sendTimeoutSeconds === undefined
        ? {}
        : { functionTimeoutSeconds: options.instrument.sendTimeoutSeconds }),
    },
    reportDelivery: options.reportDelivery ?? 'webhook',
    ...(options.reconcileAfterMinutes === undefined
      ? {}
      : { reconcile: { ...reconcile, afterMinutes: options.reconcileAfterMinutes } }),
    ...options.settings,
  };
};

/** Starts every part; `stop()` stops them all, in reverse order. */
export const startLocalBridge = async (options: LocalBridgeOptions) => {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.reverse())
      await fn().catch((error: unknown) => console.error('stopping:', error));
  };
  try {
    // Events, tables and journal hold phone numbers and texts: the directory is its owner's only.
    await ownerOnlyDataDir(options.dataDir);
    // What the functions import on first use, imported now: in one process it would stall the
    // calls of the others in flight.
    await loadFirstUseModules();
    const synthesized = synthesizeStack({
      stackName: 'msgbridge',
      settings: stackSettings(options),
    });
    const stack = new StackTemplate(synthesized.template);

    // Storage: DynamoDB Local (streams, TTL), fauxqs (SQS, S3), Secrets Manager and EventBridge.
    // Under the data directory, so a restart remembers every item and the streams' positions.
    const dynamo = await startDynamoDbLocal(
      options.persistTables ? { dataDir: join(options.dataDir, 'dynamodb') } : {},
    );
    stops.push(() => dynamo.stop());
    const dynamoClient = localDynamoDbClient(dynamo.endpoint);
    const documents = DynamoDBDocumentClient.from(dynamoClient, {
      marshallOptions: { removeUndefinedValues: true },
    });
    // fauxqs, taking the bodies SQS takes (emoji included) and refusing the rest.
    const fauxqs = await startLocalQueues();
    stops.push(() => fauxqs.stop());
    const services = await startLocalJsonServices();
    stops.push(() => services.close());
    const sqs = new SQSClient(localClientConfig(fauxqs.address));
    const s3 = new S3Client({ ...localClientConfig(fauxqs.address), forcePathStyle: true });
    const streams = new DynamoDBStreamsClient(localClientConfig(dynamo.endpoint));

    const bus = new LocalEventBus(
      join(options.dataDir, 'events.jsonl'),
      options.printEvents === false ? undefined : (line) => console.log(line),
      ...(options.eventsInMemoryBytes === undefined ? [] : [options.eventsInMemoryBytes]),
    );
    const metrics = new Metrics({ namespace: 'msgbridge-local', serviceName: 'local' });
    const loggerFor = options.loggerFor ?? (() => SILENT);
    const recorder = options.recorder ?? new AwsCallRecorder();

    // The webhook front door, which the simulator posts to; its functions are set once deployed.
    const receivers: { report?: WebhookFunction; mo?: WebhookFunction } = {};
    let deployed: LocalDeployment | undefined;
    const front = stack.functionUrlTargets().length > 0 ? 'function-url' : 'rest-api';
    // What the control routes require: the CLI reads it from the owner-only bridge.json.
    const controlToken = randomBytes(32).toString('base64url');
    const webhooks = await startWebhookServer({
      port: options.port,
      front,
      handlers: {
        report: (event) => {
          if (!receivers.report) throw new Error('receive-reports is not deployed yet');
          return receivers.report(event);
        },
        mo: (event) => {
          if (!receivers.mo) throw new Error('receive-inbound is not deployed yet');
          return receivers.mo(event);
        },
      },
      replay: (body) => replayOnBus(bus, body),
      status: () => deployed?.status() ?? { mappings: [], schedules: [] },
      controlToken,
      ...(options.reservedMounts ? { reservedMounts: options.reservedMounts } : {}),
    });
    stops.push(() => webhooks.close());
    const urls = webhooks.webhookUrls(options.webhookSecret);
    const sim = await startSimulator({
      apiKey: options.apiKey,
      apiPassword: options.apiPassword,
      port: options.simulatorPort,
      tpsQuota: options.tpsQuota,
      reportWebhookUrl: urls.report,
      moWebhookUrl: urls.mo,
      reportDelivery: options.reportDelivery ?? 'webhook',
      ...options.simulator,
    });
    stops.push(() => sim.close());

    // Each function's own clients, every call recorded under its name.
    const clientsFor = (functionName: string): FunctionClients => {
      const dynamodb = recorder.attach(
        new DynamoDBClient(localClientConfig(dynamo.endpoint)),
        functionName,
      );
      const clients = {
        dynamodb,
        documents: DynamoDBDocumentClient.from(dynamodb, {
          marshallOptions: { removeUndefinedValues: true },
        }),
        streams: recorder.attach(
          new DynamoDBStreamsClient(localClientConfig(dynamo.endpoint)),
          functionName,
        ),
        s3: recorder.attach(
          new S3Client({ ...localClientConfig(fauxqs.address), forcePathStyle: true }),
          functionName,
        ),
        sqs: recorder.attach(new SQSClient(localClientConfig(fauxqs.address)), functionName),
        secrets: recorder.attach(
          new SecretsManagerClient(localClientConfig(services.url)),
          functionName,
        ),
        eventBridge: recorder.attach(
          new EventBridgeClient(localClientConfig(services.url)),
          functionName,
        ),
      };
      options.instrument?.clients?.(clients, functionName);
      return clients;
    };

    let failuresLeft = options.failFirstWebhookWrites ?? 0;
    const failingStore = (store: EventStore): EventStore => ({
      putIfAbsent: async (record) => {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          throw Object.assign(new Error('injected write failure'), {
            name: 'ProvisionedThroughputExceededException',
          });
        }
        return store.putIfAbsent(record);
      },
    });
    let confirmsToLose = options.loseFirstConfirms ?? 0;
    const losingConfirms = (gateway: PollingGateway): PollingGateway => ({
      pollReports: () => gateway.pollReports(),
      listMo: () => gateway.listMo(),
      confirmReports: async (rptKeyLst) => {
        if (confirmsToLose > 0) {
          confirmsToLose -= 1;
          return;
        }
        await gateway.confirmReports(rptKeyLst);
      },
    });
    // How far reconcile-status's clock runs ahead of the wall clock (`jobs.reconcileAhead`).
    let reconcileAheadMs = 0;
    const overridesFor = (functionName: string): Partial<FunctionOverrides> => ({
      logger: loggerFor(functionName),
      ...(functionName === 'reconcile-status'
        ? { now: () => new Date(Date.now() + reconcileAheadMs) }
        : {}),
      metrics,
      ...(functionName === 'receive-reports' || functionName === 'receive-inbound'
        ? { wrapStore: failingStore }
        : {}),
      ...(functionName === 'poll-reports' ? { wrapPollingGateway: losingConfirms } : {}),
      ...(functionName === 'send-messages' && options.instrument?.gateway
        ? { wrapGateway: options.instrument.gateway }
        : {}),
      // The simulator serves content URLs over http on loopback: that one origin, and nothing else.
      ...(functionName === 'fetch-attachments' || functionName === 'sweep-attachments'
        ? { contentUrls: new ContentUrlPolicy({ hosts: [], localSimulatorOrigin: sim.url }) }
        : {}),
    });

    const deployment = await deployLocally({
      stack,
      environment: {
        region: LOCAL_REGION,
        account: LOCAL_ACCOUNT,
        partition: 'aws',
        stackName: synthesized.stackName,
      },
      dynamodb: dynamoClient,
      fauxqs,
      services,
      bus,
      secretValue: (constructId) =>
        constructId === 'webhook-secret/secret'
          ? JSON.stringify({ current: options.webhookSecret })
          : constructId === 'gateway-credentials'
            ? JSON.stringify({ apiKey: options.apiKey, apiPassword: options.apiPassword })
            : undefined,
      // The gateway is the simulator.
      substitutions: {
        GATEWAY_API_URL: sim.url,
        GATEWAY_SEND_URL: sim.url,
        GATEWAY_MNT_URL: sim.url,
      },
      clientsFor,
      overridesFor,
      ...(options.instrument?.lambda ? { wrapInvocation: options.instrument.lambda } : {}),
      streamCheckpoints: ({ functionName, streamArn, stateTable }) =>
        stateTableCheckpoints(documents, stateTable, functionName, streamArn),
      runSchedules: options.runSchedules ?? true,
      onError: (name, error) => {
        if (isRetryLaterBatch(error)) return;
        console.error(`${name} failed:`, error instanceof Error ? error.message : error);
      },
    });
    stops.push(() => deployment.stop());
    deployed = deployment;
    receivers.report = (event) =>
      deployment.fn('receive-reports').invoke(event) as ReturnType<WebhookFunction>;
    receivers.mo = (event) =>
      deployment.fn('receive-inbound').invoke(event) as ReturnType<WebhookFunction>;

    const tables = {
      events: deployment.named('event-table'),
      state: deployment.named('state-table'),
    } as const;
    const sendQueue = deployment.queue('send-pipeline/send-queue');
    const sendDlq = deployment.queue('send-pipeline/send-dlq');
    const reportChecks = deployment.queue('report-checks/report-check-queue');
    const reportCheckDlq = deployment.queue('report-checks/report-check-dlq');
    const publisherFailures = deployment.queue('event-publisher/on-failure-queue');
    const attachmentBucket = deployment.named('inbound-attachments/bucket');
    const eventBusName = deployment.named('event-bus');
    const publisher = deployment.streamSources.get('publish-events');
    const fetcher = deployment.streamSources.get('fetch-attachments');
    const sender = deployment.queueSources.get('send-messages');
    if (!publisher || !fetcher || !sender)
      throw new Error('the stack has no publisher, attachment fetcher or sender event source');

    type Sweep = ReturnType<typeof composeSweepAttachments>;
    type Reconciler = ReturnType<typeof composeReconcileStatus>;
    const sweep = deployment.fn('sweep-attachments').composed as unknown as Sweep;
    const reconciler = deployment.fn('reconcile-status').composed as unknown as Reconciler;

    notifyBridgeObservers({ deployment, recorder });
    return {
      sim,
      bus,
      fauxqs,
      sqs,
      s3,
      documents,
      streams,
      stack,
      deployment,
      recorder,
      publisher,
      sender,
      jobs: {
        fetcher,
        /**
         * Runs the attachment sweep once now, as if at `at` (the chaos run uses it for a sweep
         * hours later, when the markers it left have come due).
         */
        sweepAt: (at: Date) => createSweepHandler({ ...sweep.deps, now: () => at })({}, undefined),
        /**
         * Lets reconcile-status's clock run `ms` ahead of the wall clock from now on, for the
         * report checks its event source hands it (a bench or chaos run has checks come due
         * without waiting for them).
         */
        reconcileAhead: (ms: number) => {
          reconcileAheadMs = ms;
        },
        /**
         * Runs reconcile-status once now, as if at `at` (the chaos run uses it for the run that
         * resolves unknown send outcomes minutes after the attempt).
         */
        reconcileAt: (at: Date) =>
          reconcileStatusExclusively(
            {
              ...reconciler.deps,
              owner: 'local-reconciler',
              now: () => at,
              hasTimeLeft: () => true,
            },
            { lease: reconciler.lease, owner: 'local-reconciler', ttlMs: 60_000 },
          ),
      },
      tables,
      queues: { sendQueue, sendDlq, reportChecks, reportCheckDlq, publisherFailures },
      /**
       * Messages waiting in the publisher's on-failure queue: the stream batches publish-events
       * gave up on (`msgbridge events republish` publishes their events).
       */
      publisherFailureCount: (): number => {
        const queue = fauxqs.inspectQueue(publisherFailures.name);
        if (!queue) return 0;
        const { ready, delayed, inflight } = queue.messages;
        return ready.length + delayed.length + inflight.length;
      },
      /** Serves a path prefix on the webhook server's port (the operator console). */
      mount: webhooks.mount,
      urls: {
        reportWebhook: urls.report,
        moWebhook: urls.mo,
        // As the stack's outputs give them: the secret is read from the secret, not from here.
        webhookUrlTemplates: {
          report: `${webhooks.url}/webhooks/<secret>/report`,
          mo: `${webhooks.url}/webhooks/<secret>/mo`,
        },
        template: synthesized.file,
        resources: deployment.physicalIds(),
        secrets: {
          gatewayCredentials: deployment.secretArn('gateway-credentials'),
          webhook: deployment.secretArn('webhook-secret/secret'),
        },
        webhooks: webhooks.url,
        controlToken,
        simulator: sim.url,
        dynamodb: dynamo.endpoint,
        sqs: fauxqs.address,
        services: services.url,
        sendQueue: sendQueue.url,
        sendDlq: sendDlq.url,
        reportChecks: reportChecks.url,
        reportCheckDlq: reportCheckDlq.url,
        publisherFailures: publisherFailures.url,
        s3: fauxqs.address,
        attachmentBucket,
        eventBusName,
        eventsFile: join(options.dataDir, 'events.jsonl'),
      },
      credentials: LOCAL_CREDENTIALS,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

/** A batch Powertools failed whole because every record asked to be tried again later. */
const isRetryLaterBatch = (error: unknown): boolean => {
  if (!(error instanceof Error) || error.name !== 'FullBatchFailureError') return false;
  const causes = (error as { recordErrors?: unknown[] }).recordErrors ?? [];
  return causes.every((cause) => cause instanceof Error && cause.name === 'SendRetryLaterError');
};

export type LocalBridge = Awaited<ReturnType<typeof startLocalBridge>>;
