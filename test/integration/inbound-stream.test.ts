/**
 * The inbound path end to end, through the real stream: the simulator posts report and MO
 * webhooks (with its retries and duplicate deliveries) to the receivers served on loopback; items
 * land in DynamoDB Local; the local stream poller reads the table's stream the way Lambda's event
 * source does and invokes publish-events; EventBridge is a recording fake.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rcsBody, smsBody } from '../../fixtures/send-bodies.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { WebhookServer } from '../../local/webhook-server.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { type SharedPublishing, startSharedPublishing } from '../support/dynamodb-local.ts';
import { RecordingBus } from '../support/recording-bus.ts';
import { simulatorClient } from '../support/simulator-gateway-client.ts';
import { startWebhookReceivers } from '../support/webhook-receivers.ts';

const SECRET = 'stream-test-secret-0123456789';
const credentials = { apiKey: 'stream-key', apiPassword: 'stream-password' };

let shared: SharedPublishing;
let webhooks: WebhookServer;
let sim: Simulator;
const bus = new RecordingBus();
const failedRecords: DynamoDBRecord[] = [];
/** Puts that must fail before the store works again: a transient outage on our side. */
let outagePuts = 0;

beforeAll(async () => {
  shared = await startSharedPublishing(bus, failedRecords);
  const realStore = new DynamoDbEventStore('events', shared.documents);
  const store = {
    putIfAbsent: async (record: EventRecord) => {
      if (outagePuts > 0) {
        outagePuts -= 1;
        throw Object.assign(new Error('Service unavailable'), { name: 'InternalServerError' });
      }
      return realStore.putIfAbsent(record);
    },
  };
  const receive = { store, now: () => new Date(), retentionDays: 35, concurrency: 16 };
  webhooks = await startWebhookReceivers(receive, SECRET);
  const urls = webhooks.webhookUrls(SECRET);
  sim = await startSimulator({
    ...credentials,
    clock: 'manual',
    reportWebhookUrl: urls.report,
    moWebhookUrl: urls.mo,
    reportDelayMs: 1_000,
    failureRate: 0.3,
    fallbackRate: 0.5,
    faults: { duplicateWebhookRate: 0.5 },
    seed: 7,
    reportBatchSize: 7,
    // Seed 7's outcome mix (at least one RCS fallback) is that of the draws without the shuffle's.
    reportOrder: 'ordered',
  });
}, 120_000);

afterAll(async () => {
  await shared?.poller.stop();
  await sim?.close();
  await webhooks?.close();
  await shared?.server.stop();
});

describe('reports and inbound messages through the stream', () => {
  it('turns every accepted recipient into exactly one delivery event, whatever the webhook does', async () => {
    // Prepare: 40 SMS recipients and 10 RCS recipients with an SMS fallback.
    const client = simulatorClient(sim, credentials);
    const accepted: string[] = [];
    for (let call = 0; call < 9; call++) {
      const outcome =
        call < 4 ? await client.sendSms(smsBody(10)) : await client.sendRcs('rcsV1', rcsBody());
      if (outcome.kind !== 'immediate') throw new Error('expected an immediate send');
      accepted.push(...outcome.results.map((result) => String(result.msgKey)));
    }
    // The first webhook bodies hit a storage outage: answered 400, delivered again 10 s later.
    outagePuts = 3;

    // Act
    await sim.advance(1_000);
    await sim.advance(10_000);
    await sim.advance(10_000);
    await shared.poller.drained();

    // Assess
    const reports = sim.snapshot().reports.webhook;
    expect(reports.retries).toBeGreaterThan(0);
    expect(reports.duplicatePosts).toBeGreaterThan(0);
    expect(reports.bodiesPending).toBe(0);
    expect(sim.snapshot().reports.fellBack).toBeGreaterThan(0);
    const events = bus.details('Delivery Report Received');
    expect(events.map((event) => event.data.msgKey).sort()).toEqual([...accepted].sort());
    expect(new Set(events.map((event) => event.metadata.id)).size).toBe(events.length);
    const fallback = events.find((event) => (event.data.fallbackReasons as unknown[]).length > 0);
    expect(fallback?.data).toMatchObject({ channel: 'SMS', delivered: true });
    expect(failedRecords).toEqual([]);
  });

  it('turns every inbound message into one event and keeps an unrecognised body', async () => {
    // Prepare
    const injected = sim.injectMo([
      { moType: 'SMSMO', moCallback: '01011112222', moNumber: '0212345678', moMsg: '문의드립니다' },
      {
        moType: 'LMSMO',
        moCallback: '01033334444',
        moNumber: '0212345678',
        moMsg: '긴 문의'.repeat(20),
        moTitle: '제목',
      },
      {
        moType: 'MMSMO',
        moCallback: '01055556666',
        moNumber: '0212345678',
        moMsg: '사진',
        attachments: [{ name: 'a.jpg', contentType: 'image/jpeg', sizeBytes: 4096 }],
      },
      { rawBody: { biCnt: 1, biLst: [{ replyId: 'r-1', postback: 'yes' }] } },
    ]) as Array<{ moKey?: string }>;

    // Act
    await sim.settle();
    await sim.advance(10_000);
    await shared.poller.drained();

    // Assess
    const inbound = bus.details('Inbound Message Received');
    const keys = injected.flatMap((item) => (item.moKey ? [item.moKey] : []));
    expect(inbound.map((event) => event.data.moKey).sort()).toEqual([...keys].sort());
    expect(inbound.find((event) => event.data.type === 'MMSMO')?.data).toMatchObject({
      attachmentCount: 1,
      sender: '01055556666',
      receivingNumber: '0212345678',
    });
    const unrecognised = bus.details('Unrecognised Inbound Body Received');
    expect(unrecognised).toHaveLength(1);
    expect(unrecognised[0]?.data.topLevelKeys).toEqual(['biCnt', 'biLst']);
    expect(failedRecords).toEqual([]);
  });
});
