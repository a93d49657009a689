/**
 * The publisher and `msgbridge events republish` against DynamoDB Local, through the real stream:
 * the local stream poller (Lambda's retry rules) feeds publish-events, whose bus keeps refusing
 * two events; the mark of one of them cannot be written (an unprocessed batch item), so that one
 * ends in the on-failure destination (an SQS queue, with Lambda's invocation record pointing at
 * the stream), the other is marked `unpublished`. Then the CLI, reading that queue and the stream
 * and putting events through EventBridge's API as on a deployed stack, publishes both from the
 * table — each event on the bus once.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportBody } from '../../fixtures/gateway-bodies.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { DynamoDbPublishLedger } from '../../functions/publishing/adapters/dynamodb-publish-ledger.ts';
import { storedMessageStatus } from '../../functions/publishing/adapters/stored-message-status.ts';
import type { BusEntry, BusEntryResult, EventBus } from '../../functions/publishing/ports.ts';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import { type LocalJsonServices, startLocalJsonServices } from '../../local/aws/json-services.ts';
import type { LocalDynamoDb } from '../../local/dynamodb-local.ts';
import { LOCAL_REGION, localClientConfig } from '../../local/dynamodb-local.ts';
import { republishLocally } from '../../local/republish.ts';
import type { StreamPoller } from '../../local/stream-poller.ts';
import { startWebhookServer, type WebhookServer } from '../../local/webhook-server.ts';
import type { Target } from '../../ops/target.ts';
import { captureIo, runCli } from '../support/cli-gateway.ts';
import { startPublishingPoller, startWithSharedTables } from '../support/dynamodb-local.ts';

const CONTROL_TOKEN = 'republish-test-token';

/** EventBridge that refuses the events whose detail contains one of `refusing`. */
class RefusingBus implements EventBus {
  readonly entries: BusEntry[] = [];
  refusing = ['M0000000004', 'M0000000011'];
  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    return entries.map((entry) => {
      if (this.refusing.some((needle) => entry.Detail.includes(needle))) {
        return { ok: false, errorCode: 'InternalFailure', errorMessage: 'refused' };
      }
      this.entries.push(entry);
      return { ok: true };
    });
  }
  copies(): Map<string, number> {
    const copies = new Map<string, number>();
    for (const entry of this.entries) {
      const id = JSON.parse(entry.Detail).metadata.id as string;
      copies.set(id, (copies.get(id) ?? 0) + 1);
    }
    return copies;
  }
}

let dynamo: LocalDynamoDb;
let poller: StreamPoller;
let webhooks: WebhookServer;
let documents: DynamoDBDocumentClient;
let fauxqs: FauxqsServer;
let services: LocalJsonServices;
let sqs: SQSClient;
let onFailureQueue: { queueUrl: string; queueName: string };
const bus = new RefusingBus();
const failed: DynamoDBRecord[] = [];
const silent = new Logger({ logLevel: 'SILENT' });
const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });

beforeAll(async () => {
  let streamArn: string;
  ({ server: dynamo, documents, streamArn } = await startWithSharedTables());
  fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
  onFailureQueue = fauxqs.createQueue('publisher-on-failure');
  sqs = new SQSClient(localClientConfig(fauxqs.address));
  services = await startLocalJsonServices();
  services.addBus('bus', 'arn:aws:events:ap-northeast-2:000000000000:event-bus/bus', bus);
  const ledger = new DynamoDbPublishLedger('state', documents);
  // The mark of M0000000011 is left unprocessed, every time: the state table "fails" for it.
  const flaky = {
    redeliveryExpected: () => ledger.redeliveryExpected(),
    expectRedelivery: () => ledger.expectRedelivery(),
    find: (keys: Parameters<typeof ledger.find>[0]) => ledger.find(keys),
    write: async (markers: Parameters<typeof ledger.write>[0]) =>
      ledger.write(
        markers.filter(
          (marker) => !(marker.state === 'unpublished' && marker.key.pk.includes('M0000000011')),
        ),
      ),
  };
  poller = startPublishingPoller(dynamo, streamArn, {
    publish: {
      bus,
      messageStatus: storedMessageStatus('events', documents),
      ledger: flaky,
      maxAttempts: 2,
      backoffMs: () => 5,
      logger: silent,
      metrics,
    },
    failed,
    maxRetries: 1,
    onFailureQueue: { sqs, queueUrl: onFailureQueue.queueUrl },
  });
  webhooks = await startWebhookServer({
    controlToken: CONTROL_TOKEN,
    handlers: {
      report: async () => ({ statusCode: 404, body: '' }),
      mo: async () => ({ statusCode: 404, body: '' }),
    },
  });
});

afterAll(async () => {
  await poller?.stop();
  await webhooks?.close();
  await services?.close();
  await fauxqs?.stop();
  await dynamo?.stop();
});

const localTarget = (): Target =>
  ({
    kind: 'local',
    describe: () => 'local run under test',
    events: {
      kind: 'local',
      file: '/nonexistent',
      replayUrl: `${webhooks.url}/_bridge/replay`,
      controlToken: CONTROL_TOKEN,
      client: new EventBridgeClient(localClientConfig(services.url)),
      busName: 'bus',
      onFailureQueueUrl: onFailureQueue.queueUrl,
      streams: new DynamoDBStreamsClient(localClientConfig(dynamo.endpoint)),
    },
    sqs,
    tables: { events: 'events', state: 'state' },
    documents,
  }) as unknown as Target;

/** Stores a report webhook body through the real receiver, then lets the stream publish it. */
const storeReports = async (body: unknown): Promise<void> => {
  await receiveReports(JSON.stringify(body), {
    store: new DynamoDbEventStore('events', documents),
    now: () => new Date(),
    retentionDays: 35,
    concurrency: 4,
  });
  await poller.drained();
};

describe('events republish on the local run', () => {
  it('publishes what the publisher left, each event once, and nothing on a second run', async () => {
    // Prepare: 20 reports stored; the stream publishes them, refusing two.
    await storeReports(reportBody(20));
    expect(bus.entries).toHaveLength(18);
    expect(failed.map((record) => record.dynamodb?.Keys?.pk?.S)).toEqual([
      expect.stringContaining('M0000000011'),
    ]);
    const deps = { resolveTarget: async () => localTarget() };

    // A dry run lists both and changes nothing.
    const dry = await runCli(['events', 'republish', '--dry-run', '--json'], deps, captureIo());
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, toPublish: 2, batches: 1 });
    // Without a terminal and without --yes nothing is published.
    const refused = await runCli(['events', 'republish'], deps, captureIo());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('pass --yes');
    expect(bus.entries).toHaveLength(18);

    // Act: the bus works again; republish.
    bus.refusing = [];
    const run = await runCli(['events', 'republish', '--yes', '--json'], deps, captureIo());

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ published: 2, settled: 1, failed: [] });
    expect(bus.entries).toHaveLength(20);
    expect([...bus.copies().values()]).toEqual(Array(20).fill(1));
    // The batch the publisher gave up on is settled: its message left the on-failure queue.
    const left = fauxqs.inspectQueue(onFailureQueue.queueName)?.messages;
    expect([...(left?.ready ?? []), ...(left?.inflight ?? [])]).toEqual([]);
    const again = await runCli(['events', 'republish', '--yes', '--json'], deps, captureIo());
    expect(JSON.parse(again.stdout)).toMatchObject({ published: 0, settled: 0 });
    expect(bus.entries).toHaveLength(20);
  });

  it('republishes in the bridge process too, for code that holds the bridge (the fault-injection run)', async () => {
    // Prepare: five more reports, one refused and marked.
    bus.refusing = ['M0000000022'];
    await storeReports(reportBody(5, 20));
    expect(bus.entries).toHaveLength(24);

    // Act
    bus.refusing = [];
    const result = await republishLocally({
      bus,
      sqs,
      streams: new DynamoDBStreamsClient(localClientConfig(dynamo.endpoint)),
      onFailureQueueUrl: onFailureQueue.queueUrl,
      documents,
      tables: { events: 'events', state: 'state' },
    });

    // Assess
    expect(result).toMatchObject({ published: 1, failed: [], settled: 0 });
    expect([...bus.copies().values()]).toEqual(Array(25).fill(1));
  });
});
