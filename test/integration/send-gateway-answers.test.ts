/**
 * The bridge's real send path (queue message → claim → rate limiter → typed gateway client →
 * event store on dynalite) against the simulator's field-note answers around sending: the whole
 * duplicate family, failures answered with HTTP 200, an expired file id, a fallback without
 * callback, and the channel-friend product codes brand messages reported before 2026.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { brandTemplateBody, mmsBody, rcsBody, smsBody } from '../../fixtures/send-bodies.ts';
import { DynamoDbLease } from '../../functions/commons/dynamodb-lease.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import { storedDetail } from '../../functions/event-table/stored-detail.ts';
import { pollReports } from '../../functions/polling/poll-use-case.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import type { SendStore } from '../../functions/send-records/ports.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { QueueDelivery, SendDeps, SendGateway } from '../../functions/sending/ports.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import type { GatewayClient } from '../../gateway/client.ts';
import { GatewayHttp } from '../../gateway/envelope.ts';
import { GatewayRejectedError } from '../../gateway/errors.ts';
import { formatKst } from '../../protocol/kst.ts';
import {
  type Simulator,
  type SimulatorOptionsInput,
  startSimulator,
} from '../../simulator/index.ts';
import { cleanups, documents, useDynalite } from '../support/dynalite-documents.ts';
import { MemoryPageQuarantine } from '../support/memory-page-quarantine.ts';
import { silent } from '../support/poll-harness.ts';
import { recordingSendStore } from '../support/recording-send-store.ts';
import { freshDynaliteTables } from '../support/simulated-poll-bridge.ts';
import { simulatorClient } from '../support/simulator-gateway-client.ts';
import { authenticate, callGateway } from '../support/simulator-http.ts';
import { tableSendDeps } from '../support/table-send.ts';

const credentials = { apiKey: 'answers-key', apiPassword: 'answers-password' };

useDynalite();

interface Gateway {
  readonly sim: Simulator;
  readonly client: GatewayClient;
  readonly sender: GatewaySender;
  /** The simulated time, epoch ms. */
  readonly now: () => number;
}

/** A simulator and the bridge's gateway client on its clock. */
const gatewayWith = async (options: Partial<SimulatorOptionsInput> = {}): Promise<Gateway> => {
  const sim = await startSimulator({ ...credentials, clock: 'real', tpsQuota: 1_000, ...options });
  cleanups.push(() => sim.close());
  const client = simulatorClient(sim, credentials, { timeoutMs: 2_000 });
  return { sim, client, sender: new GatewaySender(client), now: () => sim.clock.now() };
};

interface Tables {
  readonly eventTable: string;
  readonly stateTable: string;
  readonly store: SendStore;
  /** Every event item the send store wrote, in order. */
  readonly written: EventRecord[];
}

/** Fresh tables: a bridge that has recorded nothing yet (the gateway may still remember keys). */
const freshTables = async (): Promise<Tables> => {
  const { eventTable, stateTable } = await freshDynaliteTables();
  const inner = new DynamoDbSendStore(eventTable, 35, documents);
  const written: EventRecord[] = [];
  const store: SendStore = recordingSendStore(inner, written);
  return { eventTable, stateTable, store, written };
};

const depsFor = (gateway: Gateway, tables: Tables, overrides: Partial<SendDeps> = {}): SendDeps =>
  tableSendDeps({ documents, ...tables }, gateway.sender, () => new Date(gateway.now()), {
    store: tables.store,
    ...overrides,
  });

let deliveries = 0;
const delivery = (message: unknown, receiveCount = 1): QueueDelivery => ({
  body: JSON.stringify(message),
  messageId: `m-${++deliveries}`,
  sentAt: new Date(),
  receiveCount,
  maxReceiveCount: 6,
});

const eventsOf = (tables: Tables, detailType: string) =>
  tables.written
    .filter((record) => record.detailType === detailType)
    .map((record) => JSON.parse(record.detail).data as Record<string, unknown>);

/** How often the gateway accepted `cliKey` (a resend that went through would show twice). */
const acceptancesOf = (sim: Simulator, cliKey: string) =>
  sim.acceptances().filter((recipient) => recipient.cliKey === cliKey).length;

describe('the duplicate family is "already accepted", never a failure or a resend', () => {
  it.each(['29005', '29023', '29024'] as const)(
    'an immediate send answered %s for a cliKey the gateway had is recorded as accepted',
    async (duplicateCode) => {
      // Prepare: the gateway accepted the first recipient; the bridge's new table knows nothing.
      const gateway = await gatewayWith({ duplicateCode });
      const first = { channel: 'sms', ...smsBody(1) };
      await sendQueuedMessage(delivery(first), depsFor(gateway, await freshTables()));
      const tables = await freshTables();
      const mixed = { ...first, recvInfoLst: [...first.recvInfoLst, ...smsBody(1).recvInfoLst] };
      const before = gateway.sim.snapshot();

      // Act
      const result = await sendQueuedMessage(delivery(mixed), depsFor(gateway, tables));

      // Assess
      expect(gateway.sim.snapshot().duplicateRecipients).toBe(before.duplicateRecipients + 1);
      expect(result).toMatchObject({ kind: 'done', accepted: 2, rejected: 0, unknown: 0 });
      expect(eventsOf(tables, 'Message Accepted')).toEqual([
        expect.objectContaining({
          cliKey: first.recvInfoLst[0]?.cliKey,
          alreadyAccepted: true,
          code: duplicateCode,
        }),
        expect.objectContaining({ cliKey: mixed.recvInfoLst[1]?.cliKey, alreadyAccepted: false }),
      ]);
      expect(eventsOf(tables, 'Message Rejected')).toEqual([]);
      expect(acceptancesOf(gateway.sim, first.recvInfoLst[0]?.cliKey ?? '')).toBe(1);
    },
  );

  it.each(['29005', '29023', '29024'] as const)(
    'a scheduled send refused %s as a whole accepts only the recipient the gateway had',
    async (duplicateCode) => {
      // Prepare
      const gateway = await gatewayWith({ duplicateCode });
      const resvReqDt = formatKst(gateway.now() + 86_400_000, 'YYYY-MM-DD HH:mm');
      const message = { channel: 'sms', ...smsBody(3), resvYn: 'Y', resvReqDt };
      const [had] = message.recvInfoLst;
      await sendQueuedMessage(
        delivery({ ...message, recvInfoLst: [had] }),
        depsFor(gateway, await freshTables()),
      );
      const tables = await freshTables();

      // Act
      const result = await sendQueuedMessage(delivery(message), depsFor(gateway, tables));

      // Assess
      expect(result).toMatchObject({ kind: 'done', accepted: 1, scheduled: 2, rejected: 0 });
      expect(eventsOf(tables, 'Message Accepted')).toEqual([
        expect.objectContaining({
          cliKey: had?.cliKey,
          alreadyAccepted: true,
          code: duplicateCode,
        }),
      ]);
      expect(eventsOf(tables, 'Message Rejected')).toEqual([]);
      expect(acceptancesOf(gateway.sim, had?.cliKey ?? '')).toBe(1);
    },
  );
});

describe('permanent rejections', () => {
  it('an MMS naming an expired file id ends as rejected with 21029, without a retry', async () => {
    // Prepare
    const gateway = await gatewayWith();
    const fileId = `expired-${Date.now()}`;
    await callGateway(gateway.sim, {
      method: 'POST',
      path: '/_sim/files',
      body: { fileId, expiresInMs: 0 },
    });
    const message = { channel: 'mms', ...mmsBody(), fileIdLst: [fileId] };
    const tables = await freshTables();
    const before = gateway.sim.snapshot();

    // Act
    const result = await sendQueuedMessage(delivery(message), depsFor(gateway, tables));
    const again = await sendQueuedMessage(delivery(message, 2), depsFor(gateway, tables));

    // Assess
    expect(result).toMatchObject({ kind: 'done', accepted: 0, rejected: 2 });
    expect(eventsOf(tables, 'Message Rejected').map((data) => data.code)).toEqual([
      '21029',
      '21029',
    ]);
    expect(again).toMatchObject({ kind: 'done', skipped: 2 });
    expect(gateway.sim.snapshot().rejectedSends).toBe(before.rejectedSends + 1);
  });

  it('the bridge refuses an RCS fallback without callback itself, before any call', async () => {
    // Prepare
    const gateway = await gatewayWith();
    const { callback: _dropped, ...withoutCallback } = rcsBody();
    const tables = await freshTables();
    const before = gateway.sim.snapshot();

    // Act
    const result = await sendQueuedMessage(
      delivery({ channel: 'rcs', variant: 'v1.1', ...withoutCallback }),
      depsFor(gateway, tables),
    );

    // Assess
    expect(result.kind).toBe('invalid');
    expect(gateway.sim.snapshot().sends + gateway.sim.snapshot().rejectedSends).toBe(
      before.sends + before.rejectedSends,
    );
    expect(eventsOf(tables, 'Send Rejected')[0]?.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '$.callback' })]),
    );
  });

  it("the gateway's 21024 answer is a permanent rejection in the client and in the send path", async () => {
    // Prepare: a wire layer without the bridge's own validation, as if the callback were lost
    // on the way, so the simulator itself answers.
    const gateway = await gatewayWith();
    const { token } = await authenticate(gateway.sim, credentials);
    const http = new GatewayHttp({ hosts: gateway.sim.hosts });
    const endpoint = { host: 'api', method: 'POST', path: '/msg/v1.1/rcs' } as const;
    const { callback: _dropped, ...withoutCallback } = rcsBody();
    const losingCallback: SendGateway = {
      send: async (message, options) => {
        await options?.beforeSend?.();
        const { callback: _lost, ...body } = message.body as Record<string, unknown>;
        await http.call({ endpoint, auth: { bearer: token }, json: body });
        throw new Error('the gateway accepted a fallback without callback');
      },
    };
    const tables = await freshTables();

    // Act
    const direct = await http
      .call({ endpoint, auth: { bearer: token }, json: withoutCallback })
      .catch((error: unknown) => error);
    const result = await sendQueuedMessage(
      delivery({ channel: 'rcs', variant: 'v1.1', ...rcsBody() }),
      depsFor(gateway, tables, { gateway: losingCallback }),
    );

    // Assess
    expect(direct).toBeInstanceOf(GatewayRejectedError);
    expect(direct).toMatchObject({ code: '21024', retryable: false });
    expect(result).toMatchObject({ kind: 'done', accepted: 0, rejected: 2 });
    expect(eventsOf(tables, 'Message Rejected').map((data) => data.code)).toEqual([
      '21024',
      '21024',
    ]);
  });
});

describe('failures answered with HTTP 200 (29018, 29019, 29039)', () => {
  it('are judged by the envelope code: 29019 retried and then accepted once, 29018 and 29039 rejected', async () => {
    // Prepare: the bridge holds a token, then every gateway call fails with HTTP 200.
    const gateway = await gatewayWith();
    const tables = await freshTables();
    const warmUp = { channel: 'sms', ...smsBody(1) };
    await sendQueuedMessage(delivery(warmUp), depsFor(gateway, tables));
    const acceptedBefore = gateway.sim.acceptances().length;
    gateway.sim.setFaults({ http200ErrorRate: 1 });
    const messages = Array.from({ length: 12 }, () => ({ channel: 'sms', ...smsBody(1) }));

    // Act
    const results = [];
    for (const message of messages) {
      results.push(await sendQueuedMessage(delivery(message), depsFor(gateway, tables)));
    }
    const acceptedDuringFaults = gateway.sim.acceptances().length - acceptedBefore;
    gateway.sim.setFaults({ http200ErrorRate: 0 });
    const redelivered = [];
    for (const [index, message] of messages.entries()) {
      if (results[index]?.kind === 'retry') {
        redelivered.push(await sendQueuedMessage(delivery(message, 2), depsFor(gateway, tables)));
      }
    }

    // Assess
    const rejectedCodes = eventsOf(tables, 'Message Rejected').map((data) => data.code);
    const retryReasons = results.flatMap((result) =>
      result.kind === 'retry' ? [result.reason] : [],
    );
    expect(acceptedDuringFaults).toBe(0);
    expect(results.every((result) => result.kind === 'retry' || result.kind === 'done')).toBe(true);
    expect(retryReasons.length).toBeGreaterThan(0);
    for (const reason of retryReasons) expect(reason).toContain('29019');
    expect(new Set(rejectedCodes)).toEqual(new Set(['29018', '29039']));
    expect(rejectedCodes.length + retryReasons.length).toBe(messages.length);
    expect(redelivered).toEqual(
      retryReasons.map(() => expect.objectContaining({ kind: 'done', accepted: 1 })),
    );
    for (const message of messages) {
      expect(acceptancesOf(gateway.sim, message.recvInfoLst[0]?.cliKey ?? '')).toBeLessThanOrEqual(
        1,
      );
    }
  });
});

describe('brand product codes before 2026', () => {
  it('the report of a brand message sent in 2025 reaches the stored report with KFRT1', async () => {
    // Prepare: a manual simulated clock from 2025-12-31 23:00 KST (it starts at the wall clock).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-12-31T14:00:00Z'));
    let gateway: Gateway;
    try {
      gateway = await gatewayWith({ clock: 'manual', reportDelayMs: 1_000, failureRate: 0 });
    } finally {
      vi.useRealTimers();
    }
    const tables = await freshTables();
    const message = { channel: 'brand-template', ...brandTemplateBody() };
    const sent = await sendQueuedMessage(delivery(message), depsFor(gateway, tables));
    expect(sent).toMatchObject({ kind: 'done', accepted: 1 });
    const [accepted] = eventsOf(tables, 'Message Accepted');
    await gateway.sim.advance(1_000);

    // Act
    const now = gateway.now;
    await pollReports(
      {
        gateway: gateway.client,
        receive: {
          store: new DynamoDbEventStore(tables.eventTable, documents),
          now: () => new Date(now()),
          retentionDays: 35,
          concurrency: 4,
        },
        quarantine: new MemoryPageQuarantine(),
        lease: new DynamoDbLease(tables.stateTable, documents, now),
        owner: 'run-1',
        now,
        sleep: (ms) => gateway.sim.advance(ms),
        deadline: now() + 30_000,
        logger: silent,
      },
      'polling',
    );

    // Assess
    const reports = await reportItems(tables.eventTable);
    expect(reports).toEqual([
      expect.objectContaining({
        msgKey: accepted?.msgKey,
        channel: 'BRAND',
        productCode: 'KFRT1',
        raw: expect.objectContaining({ productCode: 'KFRT1' }),
      }),
    ]);
  });
});

/** The `data` of every stored delivery report of `table`. */
const reportItems = async (table: string): Promise<Record<string, unknown>[]> => {
  const page = await documents.send(new ScanCommand({ TableName: table }));
  return (page.Items ?? [])
    .filter((item) => String(item.pk).startsWith('REPORT#'))
    .map((item) => JSON.parse(String(storedDetail(item))).data as Record<string, unknown>);
};
