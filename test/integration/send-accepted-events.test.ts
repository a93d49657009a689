/**
 * "Message Accepted" turned off (`acceptedEvents: false`), through the real stream: the sender
 * stores accepted recipients in DynamoDB Local, the local stream poller feeds publish-events with
 * Lambda's filter, EventBridge is a recording fake. Nothing of an accepted recipient reaches the
 * bus, yet its outcome still keeps its cliKey from being sent again, reconcile-status still finds
 * it, and `msgbridge trace` still shows it.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import { DynamoDbAwaitingReports } from '../../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';
import { ReconcileSettingsSchema } from '../../functions/reconcile/reconcile-ports.ts';
import { checkReports } from '../../functions/reconcile/reconcile-use-case.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { sendRecordKey } from '../../functions/send-records/send-record.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { SendDeps } from '../../functions/sending/ports.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import type { GatewayClient } from '../../gateway/client.ts';
import { traceKey } from '../../ops/trace.ts';
import type { Simulator } from '../../simulator/index.ts';
import { awaitingIndexPorts } from '../support/awaiting-index-ports.ts';
import { type SharedPublishing, startSharedPublishing } from '../support/dynamodb-local.ts';
import { MemoryReportChecks } from '../support/memory-report-checks.ts';
import { RecordingBus } from '../support/recording-bus.ts';
import { startPollingSimulator } from '../support/simulator-gateway-client.ts';
import { tableSendDeps } from '../support/table-send.ts';

const credentials = { apiKey: 'accepted-key', apiPassword: 'accepted-password' };
const MINUTE = 60_000;

let shared: SharedPublishing;
let documents: DynamoDBDocumentClient;
let sim: Simulator;
let client: GatewayClient;
const bus = new RecordingBus();
const failed: DynamoDBRecord[] = [];
/** The report checks the sender queues, on the simulator's clock. */
const checks = new MemoryReportChecks(() => sim.clock.now(), { visibilityMs: 10 * MINUTE });

const simNow = () => new Date(sim.clock.now());

beforeAll(async () => {
  shared = await startSharedPublishing(bus, failed);
  ({ documents } = shared);
  ({ sim, client } = await startPollingSimulator(credentials));
}, 120_000);

afterAll(async () => {
  await shared?.poller.stop();
  await sim?.close();
  await shared?.server.stop();
});

const sendDeps = (overrides: Partial<SendDeps>) =>
  tableSendDeps(
    { documents, eventTable: 'events', stateTable: 'state' },
    new GatewaySender(client),
    simNow,
    { awaiting: checks, ...overrides },
  );

/** Delivers `message` (its `receiveCount`-th delivery) to the sender. */
const deliver = (message: object, deps: SendDeps, receiveCount = 1, messageId = 'm-quiet') =>
  sendQueuedMessage(
    {
      body: JSON.stringify(message),
      messageId,
      sentAt: simNow(),
      receiveCount,
      maxReceiveCount: 6,
    },
    deps,
  );

describe('send-messages with "Message Accepted" turned off', () => {
  it('publishes nothing for accepted recipients, yet keeps them from a resend and for reconcile', async () => {
    // Prepare: a message with the events on (the control), one with them off
    const loud = { channel: 'sms', ...smsBody(2) };
    const quiet = { channel: 'sms', ...smsBody(3) };
    const quietKeys = quiet.recvInfoLst.map((r) => r.cliKey);
    const loudKeys = loud.recvInfoLst.map((r) => r.cliKey);

    // Act
    const on = await deliver(loud, sendDeps({}), 1, 'm-loud');
    const off = await deliver(quiet, sendDeps({ acceptedEvents: false }));
    const sendsBefore = sim.snapshot().sends;
    const again = await deliver(quiet, sendDeps({ acceptedEvents: false }), 2);
    await shared.poller.drained();

    // Assess: only the control's acceptances reach the bus
    expect(on).toMatchObject({ kind: 'done', accepted: 2 });
    expect(off).toMatchObject({ kind: 'done', accepted: 3 });
    const acceptedOnBus = bus.details('Message Accepted').map((e) => e.data.cliKey);
    expect(acceptedOnBus.sort()).toEqual([...loudKeys].sort());
    expect(failed).toEqual([]);
    // The stored outcome refuses a resend of the same cliKeys
    expect(again).toMatchObject({ kind: 'done', accepted: 0, skipped: 3 });
    expect(sim.snapshot().sends).toBe(sendsBefore);
    // No outcome item: the send record under the smallest cliKey lists the acceptances
    const smallest = sendRecordKey(quietKeys).pk.slice('SEND#'.length);
    const outcome = await documents.send(
      new GetCommand({ TableName: 'events', Key: { pk: `SEND#${smallest}`, sk: 'OUTCOME' } }),
    );
    expect(outcome.Item).toBeUndefined();
    const record = await documents.send(
      new GetCommand({ TableName: 'events', Key: sendRecordKey(quietKeys) }),
    );
    const listed = Object.keys(record.Item ?? {})
      .filter((name) => name.startsWith('accepted#'))
      .map((name) => name.slice('accepted#'.length));
    expect(listed.sort()).toEqual([...quietKeys].sort());
    expect(record.Item).not.toHaveProperty('detailType');
    // `msgbridge trace` shows the acceptance it finds on the record
    const trace = await traceKey(documents, 'events', smallest);
    const entry = trace.entries.find((e) => e.type === 'Message Accepted (not published)');
    expect(trace.msgKey).toEqual(expect.any(String));
    expect(entry?.summary).toContain(`msgKey ${trace.msgKey}`);
    expect(entry?.data).toMatchObject({ cliKey: smallest, channel: 'sms', alreadyAccepted: false });
    expect(trace.entries.map((e) => e.summary)).toContainEqual(
      expect.stringContaining('send record: 3 of 3 recipients accepted, claim released'),
    );

    // Act: the reports never come; reconcile-status asks the gateway
    await sim.advance(31 * MINUTE);
    const awaiting = new DynamoDbAwaitingReports(
      'events',
      documents,
      new DynamoDbSendStore('events', 1, documents),
    );
    const reconciled = await checkReports({
      checks,
      awaiting: checks,
      ...awaitingIndexPorts(awaiting),
      gateway: client,
      receive: {
        store: new DynamoDbEventStore('events', documents),
        now: simNow,
        retentionDays: 35,
        concurrency: 8,
      },
      now: simNow,
      settings: ReconcileSettingsSchema.parse({ horizonHours: 2 }),
    });
    await shared.poller.drained();

    // Assess: every recipient found and reported, the quiet ones too; still no acceptance events
    expect(reconciled).toMatchObject({ examined: 5, reportsReconciled: 5, stoppedBy: 'complete' });
    const reported = bus.details('Delivery Report Received').map((e) => e.data.cliKey);
    expect(reported.sort()).toEqual([...loudKeys, ...quietKeys].sort());
    expect(bus.details('Message Accepted')).toHaveLength(2);
  });
});
