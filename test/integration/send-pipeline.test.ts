/**
 * The sender against the gateway simulator and a DynamoDB-protocol table (dynalite): acceptance,
 * duplicates, 29002 bursts, 5xx, timeouts, a crash between the gateway's acceptance and our
 * record, and the same queue message delivered twice at once.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import { withRecipients } from '../../functions/send-contract/queue-message-recipients.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import type { ReportCheck, SendStore } from '../../functions/send-records/ports.ts';
import { sendRecordKey } from '../../functions/send-records/send-record.ts';
import { DynamoDbRateLimiter } from '../../functions/sending/adapters/dynamodb-rate-limiter.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { QueueDelivery, SendDeps } from '../../functions/sending/ports.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import { SessionTokenProvider } from '../../gateway/bearer/session-token-provider.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { recordingSendStore } from '../support/recording-send-store.ts';

const credentials = { apiKey: 'send-key', apiPassword: 'send-password' };
let dynalite: LocalDynalite;
let documents: DynamoDBDocumentClient;
let sim: Simulator;
let tableNumber = 0;
let store: DynamoDbSendStore;
let deps: (overrides?: Partial<SendDeps>) => SendDeps;
const stored: EventRecord[] = [];
/** Report checks the sender queued (the queue itself is tested with fauxqs elsewhere). */
const checks: ReportCheck[] = [];

beforeAll(async () => {
  dynalite = await startDynalite();
  const client = localDynamoDbClient(dynalite.endpoint);
  documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  sim = await startSimulator({ ...credentials, clock: 'real', tpsQuota: 1_000 });
  const auth = new GatewayAuthApi({ hosts: sim.hosts });
  const gatewayClient = new GatewayClient({
    hosts: sim.hosts,
    tokens: new SessionTokenProvider({ auth, credentials: () => credentials }),
    timeoutMs: 1_000,
  });
  const gateway = new GatewaySender(gatewayClient);
  deps = (overrides = {}) => ({
    store: recordingStore(store),
    awaiting: { expect: async (check) => void checks.push(check) },
    acceptedEvents: true,
    gateway,
    rateLimiter: new DynamoDbRateLimiter(`state-${tableNumber}`, { quota: 1_000 }, documents),
    now: () => new Date(),
    retentionDays: 35,
    claimLeaseMs: 30_000,
    deadline: Date.now() + 20_000,
    ...overrides,
  });
});

afterAll(async () => {
  await sim.close();
  await dynalite.stop();
});

beforeEach(async () => {
  tableNumber += 1;
  await createTables(localDynamoDbClient(dynalite.endpoint), {
    eventTable: `events-${tableNumber}`,
    stateTable: `state-${tableNumber}`,
  });
  store = new DynamoDbSendStore(`events-${tableNumber}`, 35, documents);
  stored.length = 0;
  checks.length = 0;
  sim.setFaults({ errorRate: 0, timeoutRate: 0, rateLimitBurst: 0 });
});

/** The real store, recording every event item it writes. */
const recordingStore = (inner: SendStore): SendStore => recordingSendStore(inner, stored);

const delivery = (
  message: unknown,
  receiveCount = 1,
  messageId = `m-${Math.random()}`,
): QueueDelivery => ({
  body: JSON.stringify(message),
  messageId,
  sentAt: new Date(),
  receiveCount,
  maxReceiveCount: 6,
});
const events = (detailType: string) =>
  stored
    .filter((record) => record.detailType === detailType)
    .map((record) => JSON.parse(record.detail).data as Record<string, unknown>);
const accepted = () => sim.snapshot().recipientsAccepted;

describe('send-messages against the simulator', () => {
  it('accepts a 10-recipient message with one gateway call and one event per recipient', async () => {
    const before = sim.snapshot().sends;
    const message = { channel: 'sms', ...smsBody(10) };

    const result = await sendQueuedMessage(delivery(message), deps());

    expect(result).toEqual({
      kind: 'done',
      accepted: 10,
      rejected: 0,
      scheduled: 0,
      unknown: 0,
      skipped: 0,
    });
    expect(sim.snapshot().sends).toBe(before + 1);
    expect(events('Message Accepted').map((data) => data.msgKey)).toEqual(
      Array(10).fill(expect.any(String)),
    );
  });

  it('reads a cliKey the gateway already accepted (sent outside this table) as already accepted', async () => {
    const first = { channel: 'sms', ...smsBody(1) };
    await sendQueuedMessage(delivery(first), deps());
    // A new table has no record of it; the gateway still remembers the cliKey.
    tableNumber += 1;
    await createTables(localDynamoDbClient(dynalite.endpoint), {
      eventTable: `events-${tableNumber}`,
      stateTable: `state-${tableNumber}`,
    });
    store = new DynamoDbSendStore(`events-${tableNumber}`, 35, documents);
    const mixed = { ...first, recvInfoLst: [...first.recvInfoLst, ...smsBody(1).recvInfoLst] };

    const result = await sendQueuedMessage(delivery(mixed), deps());

    expect(result).toMatchObject({ kind: 'done', accepted: 2 });
    expect(events('Message Accepted').map((data) => data.alreadyAccepted)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('retries after a 29002 burst and then accepts', async () => {
    sim.setFaults({ rateLimitBurst: 1 });
    const message = { channel: 'sms', ...smsBody(3) };

    const first = await sendQueuedMessage(delivery(message, 1, 'burst'), deps());
    const second = await sendQueuedMessage(delivery(message, 2, 'burst'), deps());

    expect(first).toMatchObject({ kind: 'retry', pending: 3 });
    expect(second).toMatchObject({ kind: 'done', accepted: 3 });
  });

  it('retries after a 5xx and after a timeout, without a second acceptance', async () => {
    const message = { channel: 'sms', ...smsBody(2) };
    sim.setFaults({ errorRate: 1 });
    const afterError = await sendQueuedMessage(delivery(message, 1, 'faults'), deps());
    sim.setFaults({ errorRate: 0, timeoutRate: 1 });
    const afterTimeout = await sendQueuedMessage(delivery(message, 2, 'faults'), deps());
    sim.setFaults({ timeoutRate: 0 });
    const before = accepted();

    const finally_ = await sendQueuedMessage(delivery(message, 3, 'faults'), deps());

    expect(afterError).toMatchObject({ kind: 'retry' });
    expect(afterTimeout).toMatchObject({ kind: 'retry' });
    expect(finally_).toMatchObject({ kind: 'done', accepted: 2 });
    expect(accepted()).toBe(before + 2);
  });

  it('survives a crash between the gateway accepting and the outcome being recorded, without sending twice', async () => {
    const message = { channel: 'sms', ...smsBody(2) };
    const crashing: SendStore = {
      ...recordingStore(store),
      putEvent: async () => {
        throw new Error('the process died here');
      },
    };
    const before = accepted();

    await expect(
      sendQueuedMessage(
        delivery(message, 1, 'crash'),
        deps({ store: crashing, claimLeaseMs: 200 }),
      ),
    ).rejects.toThrow('the process died here');
    await new Promise((resolve) => setTimeout(resolve, 250)); // the dead attempt's claim expires
    const retry = await sendQueuedMessage(delivery(message, 2, 'crash'), deps());

    expect(retry).toMatchObject({ kind: 'done', accepted: 2 });
    expect(accepted()).toBe(before + 2);
    expect(events('Message Accepted').map((data) => data.alreadyAccepted)).toEqual([true, true]);
  });

  it('sends each recipient once when the same queue message is delivered twice at once', async () => {
    const message = { channel: 'sms', ...smsBody(10) };
    const before = accepted();

    const results = await Promise.all([
      sendQueuedMessage(delivery(message, 1, 'twice'), deps()),
      sendQueuedMessage(delivery(message, 1, 'twice-copy'), deps()),
    ]);
    const settled = await sendQueuedMessage(delivery(message, 2, 'twice'), deps());

    expect(accepted()).toBe(before + 10);
    expect(events('Message Accepted')).toHaveLength(10);
    expect(results.map((r) => r.kind).sort()).toEqual(expect.arrayContaining(['done']));
    expect(settled).toMatchObject({ kind: 'done', skipped: 10 });
  });

  it('lets one of two deliveries with the same receive count hold the claim (visibility expiry)', async () => {
    // Prepare: SQS hands the same message to two invocations, both with ApproximateReceiveCount 2.
    const message = { channel: 'sms', ...smsBody(5) };
    const sendsBefore = sim.snapshot().sends;

    // Act
    const results = await Promise.all([
      sendQueuedMessage(delivery(message, 2, 'same-count'), deps()),
      sendQueuedMessage(delivery(message, 2, 'same-count'), deps()),
    ]);

    // Assess: one gateway call; the other attempt found every recipient claimed.
    expect(sim.snapshot().sends).toBe(sendsBefore + 1);
    expect(results.map((r) => r.kind).sort()).toEqual(['done', 'retry']);
    expect(events('Message Accepted')).toHaveLength(5);
  });

  it('tells a claim taken over from a dead attempt from a fresh one and from one given back', async () => {
    const now = Date.now();
    const dead = sendRecordKey(['claim-dead']);
    const released = sendRecordKey(['claim-released']);
    const fresh = sendRecordKey(['claim-fresh']);
    await store.claim(dead, 'attempt-1', now - 1);
    await store.claim(released, 'attempt-1', now + 60_000);
    await store.release(released, 'attempt-1');

    expect(await store.claim(dead, 'attempt-2', now + 60_000)).toMatchObject({
      result: 'taken-over',
      existed: true,
    });
    expect(await store.claim(released, 'attempt-2', now + 60_000)).toMatchObject({
      result: 'claimed',
      existed: true,
    });
    expect(await store.claim(fresh, 'attempt-2', now + 60_000)).toMatchObject({
      result: 'claimed',
      existed: false,
    });
    expect((await store.claim(fresh, 'attempt-3', now + 60_000)).result).toBe('busy');
  });

  it('lets a claim given back as maybe sent be claimed at once, and be taken over', async () => {
    const now = Date.now();
    const released = sendRecordKey(['claim-maybe-sent']);
    const listed = sendRecordKey(['claim-maybe-sent-listed']);
    await store.claim(released, 'attempt-1', now + 60_000);
    await store.release(released, 'attempt-1', true);
    await store.claim(listed, 'attempt-1', now + 60_000);
    await store.recordAccepted(
      listed,
      'attempt-1',
      [
        {
          cliKey: 'claim-maybe-sent-listed',
          acceptedAt: new Date(now).toISOString(),
          alreadyAccepted: false,
        },
      ],
      { release: true, maybeSent: true },
    );

    expect((await store.claim(released, 'attempt-2', now + 60_000)).result).toBe('taken-over');
    const next = await store.claim(listed, 'attempt-2', now + 60_000);
    expect(next.result).toBe('taken-over');
    expect([...next.accepted.keys()]).toEqual(['claim-maybe-sent-listed']);
  });

  it('counts a claim written by its own request, sent again after a lost answer, as taken over', async () => {
    const now = Date.now();
    const dead = sendRecordKey(['claim-repeated-dead']);
    const fresh = sendRecordKey(['claim-repeated-fresh']);
    await store.claim(dead, 'attempt-1', now - 1);
    const takeOver = () => store.claim(dead, 'attempt-2', now + 60_000);
    const create = () => store.claim(fresh, 'attempt-2', now + 60_000);

    // The first answer of each is lost; the SDK sends the same request again.
    await takeOver();
    await create();

    // What the first write replaced is unknown to the second: never a fresh claim.
    expect((await takeOver()).result).toBe('taken-over');
    expect((await create()).result).toBe('taken-over');
  });

  it('stores a send-rejected event for an invalid message and calls nothing', async () => {
    const before = sim.snapshot().sends;

    const result = await sendQueuedMessage(delivery({ channel: 'fax', msg: 'hi' }), deps());

    expect(result.kind).toBe('invalid');
    expect(sim.snapshot().sends).toBe(before);
    expect(events('Send Rejected')[0]?.problems).toEqual([
      expect.objectContaining({ path: '$.channel' }),
    ]);
  });

  it('answers a 29024 to a scheduled send by sending each recipient alone, accepting only the one the gateway had', async () => {
    // Prepare: an earlier attempt of the message got the first recipient scheduled alone (as its
    // own one-at-a-time resend would) and died before recording it.
    const resvReqDt = formatKst(Date.now() + 86_400_000, 'YYYY-MM-DD HH:mm');
    const message = { channel: 'sms', ...smsBody(3), resvYn: 'Y', resvReqDt };
    const [first] = message.recvInfoLst;
    const crashing: SendStore = {
      ...recordingStore(store),
      putEvent: async () => {
        throw new Error('the process died here');
      },
    };
    const { gateway } = deps();
    const firstOnly: SendDeps['gateway'] = {
      send: (sent, options) => gateway.send(withRecipients(sent, [first?.cliKey ?? '']), options),
    };
    await expect(
      sendQueuedMessage(
        delivery(message, 1, 'scheduled-crash'),
        deps({ store: crashing, claimLeaseMs: 1, gateway: firstOnly }),
      ),
    ).rejects.toThrow('died');
    // Its claim has expired by the time the message is delivered again.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = stored.length;

    // Act
    const result = await sendQueuedMessage(delivery(message, 1, 'scheduled-again'), deps());

    // Assess
    expect(result).toMatchObject({ kind: 'done', accepted: 1, scheduled: 2 });
    const recorded = stored.slice(before).map((record) => JSON.parse(record.detail));
    expect(
      recorded.filter((d) => d.metadata.type === 'Message Accepted').map((d) => d.data.cliKey),
    ).toEqual([first?.cliKey]);
    expect(
      recorded.filter((d) => d.metadata.type === 'Message Scheduled').map((d) => d.data.cliKey),
    ).toEqual(message.recvInfoLst.slice(1).map((r) => r.cliKey));
  });
});
