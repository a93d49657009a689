/**
 * The whole bridge on one machine, with no AWS account: the gateway simulator, the webhook routes
 * calling the same handlers with API-Gateway-shaped events, DynamoDB Local with the stack's tables
 * and its stream feeding the publisher, fauxqs for the send queue (and S3), and a local event bus
 * that prints every event and appends it to a JSON-lines file.
 */
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { GatewayAuthApi } from '../functions/commons/gateway/gateway-auth.ts';
import { GatewayClient } from '../functions/commons/gateway/gateway-client.ts';
import { composePublisher } from '../functions/events/publish.ts';
import type { EventBus, EventStore } from '../functions/events/store-ports.ts';
import { PUBLISHABLE_RECORD_PATTERN } from '../functions/events/stream-filter.ts';
import { composeReceiver } from '../functions/inbound/webhook-handler.ts';
import type { ReportDelivery } from '../functions/polling/poll-reports.ts';
import type { SendGateway } from '../functions/sending/ports.ts';
import { composeSender } from '../functions/sending/queue-record-handler.ts';
import { stateTableTokenProvider } from '../functions/tokens/adapters/state-table-token-provider.ts';
import { type SimulatorOptionsInput, startSimulator } from '../simulator/index.ts';
import { compileFilterCriteria, criteriaOf } from './aws/lambda-event-filter.ts';
import {
  LOCAL_REGION,
  localClientConfig,
  localDynamoDbClient,
  startDynamoDbLocal,
} from './dynamodb-local.ts';
import { LocalEventBus } from './event-bus.ts';
import { startLocalJobs } from './jobs.ts';
import { publisherControl } from './publisher-control.ts';
import { replayOnBus } from './replay.ts';
import { startSqsPoller } from './sqs-poller.ts';
import { stateTableCheckpoints } from './stream-checkpoints.ts';
import { startStreamPoller } from './stream-poller.ts';
import { createTables } from './tables.ts';
import { startWebhookServer } from './webhook-server.ts';

export interface LocalBridgeOptions {
  /** Webhook routes' port; 0 picks one. */
  readonly port: number;
  /** Gateway simulator's port; 0 picks one. */
  readonly simulatorPort: number;
  readonly webhookSecret: string;
  /** Where `events.jsonl` goes. */
  readonly dataDir: string;
  /** The simulator's credentials (the bridge authenticates with them). */
  readonly apiKey: string;
  readonly apiPassword: string;
  /** Recipients per second the simulator accepts and the sender budgets for. */
  readonly tpsQuota: number;
  /** Extra simulator settings (outcome mix, faults, delays). */
  readonly simulator?: Partial<SimulatorOptionsInput>;
  /** Print one line per event. @default true */
  readonly printEvents?: boolean;
  /** Deliveries before a send goes to the DLQ. @default 6 */
  readonly maxReceiveCount?: number;
  /** For tests: the first N event-table writes of the webhook receivers fail, as a throttled table would. */
  readonly failFirstWebhookWrites?: number;
  /** How delivery reports arrive: by webhook, by polling, or both. @default 'webhook' */
  readonly reportDelivery?: ReportDelivery;
  /** Minutes before reconcile-status asks about an accepted recipient without a report. @default 30 */
  readonly reconcileAfterMinutes?: number;
  /**
   * Seconds a report check reconcile-status received stays hidden before it comes back (one not
   * yet due, or with a recipient still pending). @default 5
   */
  readonly reportCheckVisibilitySeconds?: number;
  /**
   * Whether accepted recipients are also published as "Message Accepted" events, as the
   * deployment's `sending.acceptedEvents`. @default false
   */
  readonly acceptedEvents?: boolean;
  /** For tests: the poller's first N report confirmations are lost, so the gateway redelivers them. */
  readonly loseFirstConfirms?: number;
  /**
   * Keep DynamoDB Local's tables under `dataDir/dynamodb`, so that a restart remembers every item
   * and where the publisher was (`npm start` does). @default false: in memory, about twice as
   * fast, for tests that never restart
   */
  readonly persistTables?: boolean;
  /** For the fault-injection run (`chaos/`): wraps or instruments the ports the handlers get. */
  readonly instrument?: LocalBridgeInstrument;
  /**
   * For measurement (the benchmark counts log bytes): the logger each function's composition gets,
   * by function name (`receive-reports`, `send-messages`, `reconcile-status`, ...). @default a
   * silent logger for all
   */
  readonly loggerFor?: (functionName: string) => Logger;
}

/**
 * Hooks of the fault-injection run. Every handler and job gets the instrumented clients, so a
 * fault injected here reaches the same code a deployed Lambda runs.
 */
export interface LocalBridgeInstrument {
  /** Called once, before any handler runs, with the clients they use: add middleware here. */
  readonly clients?: (clients: {
    readonly dynamodb: DynamoDBClient;
    readonly s3: S3Client;
    readonly sqs: SQSClient;
  }) => void;
  /** Wraps the bus publish-events puts to. */
  readonly bus?: (bus: EventBus) => EventBus;
  /** Wraps the gateway send-messages sends through. */
  readonly gateway?: (gateway: SendGateway) => SendGateway;
  /**
   * Wraps a Lambda's handler (`publish-events`, `send-messages`): the wrapper can end an
   * invocation early, as a killed or timed-out Lambda ends.
   */
  readonly lambda?: <E, R>(
    name: string,
    handler: (event: E) => Promise<R>,
  ) => (event: E) => Promise<R>;
  /** The gateway clients' per-call time limit (sending, authentication). @default 10 s */
  readonly gatewayTimeoutMs?: number;
  /** send-messages' Lambda timeout: the claim lease, the deadline and the queue's visibility follow it. @default 30 s */
  readonly sendTimeoutMs?: number;
}

const SILENT = new Logger({ logLevel: 'SILENT' });
// CloudWatch metrics mean nothing locally; without this, Powertools prints EMF lines whenever 100
// metrics have piled up. An explicit setting in the environment wins.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

/** Starts every part; `stop()` stops them all, in reverse order. */
export const startLocalBridge = async (options: LocalBridgeOptions) => {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.reverse())
      await fn().catch((error: unknown) => console.error('stopping:', error));
  };
  try {
    // Storage: DynamoDB Local (streams, TTL) and fauxqs (SQS, S3).
    // Under the data directory, so a restart remembers every item and the stream's position.
    const dynamo = await startDynamoDbLocal(
      options.persistTables ? { dataDir: join(options.dataDir, 'dynamodb') } : {},
    );
    stops.push(() => dynamo.stop());
    const dynamoClient = localDynamoDbClient(dynamo.endpoint);
    const tables = { events: 'msgbridge-events', state: 'msgbridge-state' } as const;
    const streamArn = await createTables(dynamoClient, {
      eventTable: tables.events,
      stateTable: tables.state,
    });
    if (!streamArn) throw new Error('DynamoDB Local created the event table without a stream');
    const documents = DynamoDBDocumentClient.from(dynamoClient, {
      marshallOptions: { removeUndefinedValues: true },
    });

    const fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
    stops.push(() => fauxqs.stop());
    const maxReceiveCount = options.maxReceiveCount ?? 6;
    const sendTimeoutMs = options.instrument?.sendTimeoutMs ?? 30_000;
    const lambda = <E, R>(name: string, handler: (event: E) => Promise<R>) =>
      options.instrument?.lambda?.(name, handler) ?? handler;
    const dlq = fauxqs.createQueue('msgbridge-send-dlq');
    const queue = fauxqs.createQueue('msgbridge-send', {
      attributes: {
        VisibilityTimeout: String(Math.ceil(sendTimeoutMs / 1000)),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount }),
      },
    });
    // The report checks the sender queues for reconcile-status. Deployed, the queue holds each
    // back 15 minutes; here they are visible at once and reconcile-status judges them by their time.
    const reportCheckDlq = fauxqs.createQueue('msgbridge-report-checks-dlq');
    const reportChecks = fauxqs.createQueue('msgbridge-report-checks', {
      attributes: {
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: reportCheckDlq.queueArn,
          maxReceiveCount: 1_000,
        }),
      },
    });
    const attachmentBucket = fauxqs.createBucket('msgbridge-attachments').bucketName;
    const sqs = new SQSClient(localClientConfig(fauxqs.address));
    const s3 = new S3Client({ ...localClientConfig(fauxqs.address), forcePathStyle: true });
    options.instrument?.clients?.({ dynamodb: dynamoClient, s3, sqs });

    // The bus and the publisher, fed from the table's stream like Lambda's event source.
    const bus = new LocalEventBus(
      join(options.dataDir, 'events.jsonl'),
      options.printEvents === false ? undefined : (line) => console.log(line),
    );
    const metrics = new Metrics({ namespace: 'msgbridge-local', serviceName: 'local' });
    const observed = { logger: SILENT, metrics };
    const loggerFor = options.loggerFor ?? (() => SILENT);
    const observedAs = (functionName: string) => ({ logger: loggerFor(functionName), metrics });
    // What the deployed stack sets on its Lambdas; each composition reads its part.
    const lambdaEnv = {
      EVENT_TABLE_NAME: tables.events,
      STATE_TABLE_NAME: tables.state,
      // Bodies too large for one item or one event, as the deployed receivers keep them.
      PAYLOAD_BUCKET: attachmentBucket,
      WEBHOOK_SECRET: options.webhookSecret,
    };
    // The on-failure destination: stream records publish-events gave up on (`events republish`).
    const poisoned: DynamoDBRecord[] = [];
    const streams = new DynamoDBStreamsClient(localClientConfig(dynamo.endpoint));
    const publishCheckpoints = stateTableCheckpoints(
      documents,
      tables.state,
      'publish-events',
      streamArn,
    );
    const publisher = startStreamPoller({
      streamsClient: streams,
      streamArn,
      // A restart resumes after the last published record (see stream-checkpoints.ts).
      checkpoints: await publishCheckpoints.load(),
      onCheckpoint: (shardId, sequenceNumber) => publishCheckpoints.save(shardId, sequenceNumber),
      filter: compileFilterCriteria(criteriaOf(PUBLISHABLE_RECORD_PATTERN), 'dynamodb'),
      handler: lambda(
        'publish-events',
        composePublisher(lambdaEnv, {
          ...observedAs('publish-events'),
          documents,
          bus: options.instrument?.bus?.(bus) ?? bus,
          // The local run's retries keep their fixed doubling, without the Lambda's jitter.
          backoffMs: (attempt) => 100 * 2 ** (attempt - 2),
        }).handler,
      ),
      onFailure: (records) => {
        poisoned.push(...records);
        console.error(`publish-events gave up on ${records.length} stream record(s)`);
      },
      pollIntervalMs: 100,
      // As deployed (lib/event-publisher.ts): five retries, bisecting, before the on-failure queue.
      maxRetries: 5,
    });
    stops.push(() => publisher.stop());

    // The webhook routes, then the simulator that posts to them.
    let failuresLeft = options.failFirstWebhookWrites ?? 0;
    const receiverOverrides = {
      ...observed,
      documents,
      s3,
      store: (store: EventStore): EventStore => ({
        putIfAbsent: async (record) => {
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            throw Object.assign(new Error('injected write failure'), {
              name: 'ProvisionedThroughputExceededException',
            });
          }
          return store.putIfAbsent(record);
        },
      }),
    };
    const reports = composeReceiver('report', lambdaEnv, {
      ...receiverOverrides,
      ...observedAs('receive-reports'),
    });
    const inbound = composeReceiver('mo', lambdaEnv, {
      ...receiverOverrides,
      ...observedAs('receive-inbound'),
    });
    // The jobs store what they poll as the receivers do, injected failures included.
    const { receive } = reports;
    const webhooks = await startWebhookServer({
      port: options.port,
      handlers: { report: reports.handler, mo: inbound.handler },
      replay: (body) => replayOnBus(bus, body),
      publisher: publisherControl({ bus, failed: poisoned }),
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

    // The sender, fed from the send queue like Lambda's SQS event source.
    const auth = new GatewayAuthApi({
      hosts: sim.hosts,
      timeoutMs: options.instrument?.gatewayTimeoutMs,
    });
    const credentials = { apiKey: options.apiKey, apiPassword: options.apiPassword };
    // The shared token in the state table, kept by the refresh-token job, as deployed.
    const tokens = stateTableTokenProvider('msgbridge-state', {
      auth,
      // The re-authentication lease outlasts one authentication call (the client's default 10 s).
      authTimeoutMs: options.instrument?.gatewayTimeoutMs ?? 10_000,
      credentials: async () => credentials,
      logger: loggerFor('send-messages'),
      client: documents,
    });
    const gatewayClient = new GatewayClient({
      hosts: sim.hosts,
      tokens,
      timeoutMs: options.instrument?.gatewayTimeoutMs,
    });
    const { recordHandler: sendRecord } = composeSender(
      {
        ...lambdaEnv,
        SEND_QUEUE_URL: queue.queueUrl,
        REPORT_CHECK_QUEUE_URL: reportChecks.queueUrl,
        ACCEPTED_EVENTS: options.acceptedEvents ? 'on' : 'off',
        TPS_QUOTA: String(options.tpsQuota),
        MAX_RECEIVE_COUNT: String(maxReceiveCount),
      },
      {
        ...observedAs('send-messages'),
        documents,
        s3,
        sqs,
        gateway: {
          client: gatewayClient,
          timeoutMs: options.instrument?.gatewayTimeoutMs ?? 10_000,
        },
        wrapGateway: options.instrument?.gateway,
        // Each local invocation has the whole timeout: the deadline is its end, the lease twice it.
        timeBudget: (remainingMs) => ({
          claimLeaseMs: 2 * remainingMs,
          deadline: Date.now() + remainingMs,
        }),
      },
    );
    const sender = startSqsPoller({
      sqs,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      handler: (record) => sendRecord(record, sendTimeoutMs),
      invocation: (run) => lambda('send-messages', run)(undefined),
      concurrency: 2,
      onError: (error) => console.error('send-messages failed:', error),
    });
    stops.push(() => sender.stop());

    const jobs = startLocalJobs({
      documents,
      eventTable: 'msgbridge-events',
      stateTable: 'msgbridge-state',
      streams,
      streamArn,
      s3,
      attachmentBucket,
      gateway: gatewayClient,
      auth,
      credentials,
      receive,
      reportDelivery: options.reportDelivery ?? 'webhook',
      moPolling: false,
      reconcileAfterMinutes: options.reconcileAfterMinutes ?? 30,
      sqs,
      reportCheckQueueUrl: reportChecks.queueUrl,
      reportCheckVisibilitySeconds: options.reportCheckVisibilitySeconds ?? 5,
      acceptedEvents: options.acceptedEvents ?? false,
      loseFirstConfirms: options.loseFirstConfirms ?? 0,
      // The simulator serves content URLs over http on loopback: allowed for its origin only.
      simulatorOrigin: sim.url,
      logger: SILENT,
      loggerFor,
      metrics,
    });
    stops.push(() => jobs.stop());

    return {
      sim,
      bus,
      fauxqs,
      sqs,
      s3,
      documents,
      streams,
      publisher,
      sender,
      jobs,
      poisoned,
      tables,
      /** Serves a path prefix on the webhook server's port (the operator console). */
      mount: webhooks.mount,
      urls: {
        reportWebhook: urls.report,
        moWebhook: urls.mo,
        webhooks: webhooks.url,
        simulator: sim.url,
        dynamodb: dynamo.endpoint,
        sqs: fauxqs.address,
        sendQueue: queue.queueUrl,
        sendDlq: dlq.queueUrl,
        reportChecks: reportChecks.queueUrl,
        reportCheckDlq: reportCheckDlq.queueUrl,
        s3: fauxqs.address,
        attachmentBucket,
        eventsFile: join(options.dataDir, 'events.jsonl'),
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

export type LocalBridge = Awaited<ReturnType<typeof startLocalBridge>>;
