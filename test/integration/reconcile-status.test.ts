/**
 * Status reconciliation against the gateway simulator (manual clock, reports by polling only, so
 * no webhook interferes and nobody polls unless a test does) and a DynamoDB-protocol table
 * (dynalite) with the `awaiting-report` index: sends go through `sendQueuedMessage`, late reports
 * are filled in from the status query, and the real report arriving later causes no second event.
 */
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbLease } from '../../functions/commons/dynamodb-lease.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { EventStore } from '../../functions/event-table/ports.ts';
import { storedDetail } from '../../functions/event-table/stored-detail.ts';
import { type ReceiveDeps, receiveReports } from '../../functions/received-items/receive-items.ts';
import { DynamoDbAwaitingReports } from '../../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';
import {
  type ReconcileDeps,
  ReconcileSettingsSchema,
} from '../../functions/reconcile/reconcile-ports.ts';
import {
  checkReports,
  reconcileStatus,
  reconcileStatusExclusively,
  reportSortKey,
} from '../../functions/reconcile/reconcile-use-case.ts';
import type { StatusGateway } from '../../functions/reconcile/status-query.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { SendGateway } from '../../functions/sending/ports.ts';
import { GatewayTransportError } from '../../gateway/errors.ts';
import { type ReportItem, ReportItemSchema } from '../../gateway/schemas/index.ts';
import { formatKst } from '../../protocol/kst.ts';
import { awaitingIndexPorts } from '../support/awaiting-index-ports.ts';
import { documents } from '../support/dynalite-documents.ts';
import { MemoryReportChecks } from '../support/memory-report-checks.ts';
import { useReconcileTables } from '../support/reconcile-tables.ts';
import { sendSms, tableSendDeps } from '../support/table-send.ts';

const credentials = { apiKey: 'reconcile-key', apiPassword: 'reconcile-password' };
const MINUTE = 60_000;

let awaiting: DynamoDbAwaitingReports;
/** The report-check queue the sender fills and reconcile-status reads, on the simulator's clock. */
let checks: MemoryReportChecks;
/** Every item a put stored (not the duplicates), in order. */
let stored: EventRecord[];
let receive: ReceiveDeps;
let statusCalls: Array<Array<{ cliKey: string; reqDt: string }>>;

const world = useReconcileTables(credentials);

beforeEach(async () => {
  awaiting = new DynamoDbAwaitingReports(
    world.eventTable,
    documents,
    new DynamoDbSendStore(world.eventTable, 1, documents),
  );
  checks = new MemoryReportChecks(() => world.sim.clock.now(), { visibilityMs: 10 * MINUTE });
  stored = [];
  const events = new DynamoDbEventStore(world.eventTable, documents);
  const recording: EventStore = {
    putIfAbsent: async (record) => {
      const result = await events.putIfAbsent(record);
      if (result === 'stored') stored.push(record);
      return result;
    },
  };
  receive = { store: recording, now: world.now, retentionDays: 35, concurrency: 8 };
  statusCalls = [];
  // Reports of earlier tests are waiting in the simulator's polling queue: take them away.
  await pollAll();
});

const statusGateway: StatusGateway = {
  queryStatus: (keys) => {
    statusCalls.push(keys.map((key) => ({ ...key })));
    return world.client.queryStatus(keys);
  },
};

const reconcileDeps = (): ReconcileDeps => ({
  awaiting: checks,
  ...awaitingIndexPorts(awaiting),
  gateway: statusGateway,
  receive,
  now: world.now,
  settings: ReconcileSettingsSchema.parse({ afterMinutes: 30, horizonHours: 96 }),
});

/** reconcile-status invoked with the report checks on the queue (its event source's invocation). */
const checkRun = () => checkReports({ ...reconcileDeps(), checks });

/** The send use case on this test's tables, as of the simulator's clock. */
const sendDeps = (gateway: SendGateway) =>
  tableSendDeps(world.sendTables, gateway, world.now, {
    awaiting: checks,
  });

/** Sends one SMS to `count` recipients through the sender, as of the simulator's clock. */
const send = async (count: number): Promise<string[]> => {
  const { result, cliKeys } = await sendSms(
    count,
    sendDeps(new GatewaySender(world.client)),
    world.now(),
  );
  expect(result).toMatchObject({ kind: 'done', accepted: count });
  return cliKeys;
};

/** Polls until the simulator has nothing left, confirming each page; then waits out the 10 s rule. */
const pollAll = async (): Promise<ReportItem[]> => {
  const items: ReportItem[] = [];
  for (
    let page = await world.client.pollReports();
    page !== null;
    page = await world.client.pollReports()
  ) {
    // Polled pages are read item by item; the simulator's items all parse.
    items.push(...page.rptLst.map((item) => ReportItemSchema.parse(item)));
    await world.client.confirmReports([page.rptKey]);
  }
  await world.sim.advance(11_000);
  return items;
};

/** The event items (not report guards, which carry no event) whose `pk` starts with `prefix`. */
const itemsOf = async (prefix: string) => {
  const answer = await documents.send(
    new ScanCommand({
      TableName: world.eventTable,
      FilterExpression: 'begins_with(pk, :prefix) AND attribute_exists(detailType)',
      ExpressionAttributeValues: { ':prefix': prefix },
    }),
  );
  return answer.Items ?? [];
};

const viaOf = (item: Record<string, unknown>) =>
  (JSON.parse(String(storedDetail(item))) as { metadata: { via: string } }).metadata.via;

describe('reconcile-status against the simulator', () => {
  it('queries nothing before the wait, then fills in late reports; the real report adds nothing', async () => {
    // Prepare
    const cliKeys = [...(await send(10)), ...(await send(2))];
    await world.sim.advance(10 * MINUTE);

    // Act: before the 30 minutes are over
    const early = await checkRun();

    // Assess: both checks were looked at and put back for later
    expect(early).toMatchObject({
      examined: 0,
      statusQueries: 0,
      checksReceived: 2,
      checksNotDue: 2,
      checksPostponed: 2,
    });
    expect(statusCalls).toHaveLength(0);

    // Act: past the threshold
    await world.sim.advance(21 * MINUTE);
    const late = await checkRun();

    // Assess: one report per recipient, each via the status query
    expect(late).toMatchObject({
      examined: 12,
      statusQueries: 2,
      keysQueried: 12,
      reportsReconciled: 12,
      statusUnavailable: 0,
      stillPending: 0,
      checksFinished: 2,
      stoppedBy: 'complete',
    });
    expect(checks.size).toBe(0);
    expect(statusCalls.map((call) => call.length)).toEqual([10, 2]);
    const reports = await itemsOf('REPORT#');
    expect(
      reports.map((item) => JSON.parse(String(storedDetail(item))).data.cliKey).sort(),
    ).toEqual([...cliKeys].sort());
    expect(reports.map(viaOf)).toEqual(Array(12).fill('status-query'));
    expect(stored.map((record) => record.detailType)).toEqual(
      Array(12).fill('Delivery Report Received'),
    );

    // Act: the real reports arrive after all (polled, stored through the same path)
    const polled = (await pollAll()).filter((item) => cliKeys.includes(item.cliKey));
    const outcome = await receiveReports(JSON.stringify({ rptLst: polled }), receive, 'polling');
    const again = await checkRun();

    // Assess: duplicates only — no second item, no second event; nothing left to reconcile
    expect(polled).toHaveLength(12);
    expect(outcome).toMatchObject({ result: 'stored', stored: 0, duplicates: 12, failed: 0 });
    expect(await itemsOf('REPORT#')).toHaveLength(12);
    expect(stored).toHaveLength(12);
    expect(again).toMatchObject({ examined: 0, statusQueries: 0 });
  });

  it('does not query recipients whose real report arrived first', async () => {
    // Prepare
    const cliKeys = await send(3);
    await world.sim.advance(31 * MINUTE);
    const polled = (await pollAll()).filter((item) => cliKeys.includes(item.cliKey));
    await receiveReports(JSON.stringify({ rptLst: polled }), receive, 'polling');

    // Act
    const result = await checkRun();

    // Assess
    expect(result).toMatchObject({ examined: 3, alreadyRecorded: 3, statusQueries: 0 });
    expect(statusCalls).toHaveLength(0);
    expect((await itemsOf('REPORT#')).map(viaOf)).toEqual(['polling', 'polling', 'polling']);
  });

  it('stores one "Message Status Unavailable" event for a cliKey the gateway does not know', async () => {
    // Prepare: the report check of an acceptance for a send the gateway never saw
    const cliKey = `ghost-${world.eventTable}`;
    const acceptedAt = new Date(world.sim.clock.now() - 40 * MINUTE).toISOString();
    const check = {
      channel: 'sms',
      acceptedAt,
      recipients: [{ cliKey, msgKey: `M-${cliKey}` }],
    } as const;
    await checks.expect(check);

    // Act
    const first = await checkRun();
    const second = await checkRun();
    // A second copy of the check comes: the stored event is recognised.
    await checks.expect(check);
    const third = await checkRun();

    // Assess
    expect(first).toMatchObject({ examined: 1, statusUnavailable: 1, reportsReconciled: 0 });
    expect(statusCalls).toHaveLength(2); // the acceptance date, then the day before
    expect(second).toMatchObject({ examined: 0, statusQueries: 0 });
    expect(third).toMatchObject({ examined: 1, alreadyRecorded: 1, statusQueries: 0 });
    expect(checks.size).toBe(0);
    const events = await itemsOf('STATUS#');
    expect(events).toHaveLength(1);
    expect(stored).toHaveLength(1);
    const detail = JSON.parse(String(storedDetail(events[0] ?? {})));
    expect(events[0]).toMatchObject({
      sk: 'UNAVAILABLE',
      detailType: 'Message Status Unavailable',
    });
    expect(detail.metadata.via).toBe('status-query');
    expect(detail.data).toEqual({
      cliKey,
      msgKey: `M-${cliKey}`,
      status: 'INVALID_KEY',
      acceptedAt,
    });
    expect(await itemsOf('REPORT#')).toHaveLength(0);
  });

  it('finishes the report check of reconciled recipients, keeping their send record and outcome', async () => {
    // Prepare
    const [cliKey] = await send(1);
    await world.sim.advance(31 * MINUTE);

    // Act
    const run = await checkRun();

    // Assess: nothing left on the queue; the record still lists the acceptance
    expect(run).toMatchObject({ examined: 1, reportsReconciled: 1, checksFinished: 1 });
    expect(checks.size).toBe(0);
    const record = await documents.send(
      new GetCommand({ TableName: world.eventTable, Key: { pk: `SEND#${cliKey}`, sk: 'MESSAGE' } }),
    );
    expect(record.Item?.[`accepted#${cliKey}`]).toEqual(
      expect.objectContaining({ m: expect.any(String), t: expect.any(Number) }),
    );
    expect(record.Item?.claimedUntil).toBe(0);
    const outcome = await documents.send(
      new GetCommand({ TableName: world.eventTable, Key: { pk: `SEND#${cliKey}`, sk: 'OUTCOME' } }),
    );
    expect(outcome.Item).toMatchObject({ detailType: 'Message Accepted', cliKey });
    expect(outcome.Item).not.toHaveProperty('awaitingReportBucket');
  });
});

describe('unknown outcomes against the simulator', () => {
  const lostAnswer = () =>
    new GatewayTransportError('timeout', { code: 'TIMEOUT', message: 'no answer', endpoint: 'e' });

  /** The last delivery of a message whose answer is lost, after (or instead of) reaching the gateway. */
  const sendLastTime = async (
    count: number,
    reachesGateway: boolean,
    fields: Record<string, unknown> = {},
  ) => {
    const real = new GatewaySender(world.client);
    const gateway: SendGateway = {
      send: async (request, options) => {
        if (reachesGateway) await real.send(request, options);
        throw lostAnswer();
      },
    };
    const { result, cliKeys } = await sendSms(count, sendDeps(gateway), world.now(), 6, fields);
    expect(result).toMatchObject({ kind: 'done', rejected: 0, unknown: count });
    return cliKeys;
  };

  const outcomes = async () =>
    (await documents.send(new ScanCommand({ TableName: world.eventTable }))).Items ?? [];

  it('publishes "Message Accepted" for a send the gateway took although its answer was lost', async () => {
    // Prepare
    const keys = await sendLastTime(2, true);
    expect(stored.filter((r) => r.pk.startsWith('SEND#'))).toHaveLength(0);
    await world.sim.advance(3 * MINUTE);

    // Act
    const run = await reconcileStatus(reconcileDeps());

    // Assess
    expect(run).toMatchObject({ unknownAccepted: 2, unknownNotSent: 0 });
    const accepted = stored.filter((r) => r.detailType === 'Message Accepted');
    expect(accepted.map((r) => r.cliKey).sort()).toEqual([...keys].sort());
    const items = await outcomes();
    const unknown = items.filter((item) => item.sk === 'UNKNOWN');
    expect(unknown).toHaveLength(2);
    expect(unknown.every((item) => item.awaitingReportBucket === undefined)).toBe(true);
    expect(items.filter((item) => item.detailType === 'Message Rejected')).toHaveLength(0);
    // Each acceptance found is queued for its report check, from the time of the attempt.
    expect(checks.sent.flatMap((check) => check.recipients.map((r) => r.cliKey)).sort()).toEqual(
      [...keys].sort(),
    );
  });

  it("publishes a scheduled send's acceptance, with acceptances unpublished, and looks for no report", async () => {
    // Prepare: a send scheduled for tomorrow; the gateway registered it, its answer was lost.
    const resvReqDt = formatKst(world.now().getTime() + 86_400_000, 'YYYY-MM-DD HH:mm');
    const keys = await sendLastTime(1, true, { resvYn: 'Y', resvReqDt });
    await world.sim.advance(3 * MINUTE);
    const sends = new DynamoDbSendStore(world.eventTable, 1, documents);

    // Act: a deployment that publishes no "Message Accepted" (reconcile-status/compose.ts)
    const run = await reconcileStatus({ ...reconcileDeps(), unpublishedAcceptances: sends });

    // Assess: the outcome event every scheduled recipient ends with; its report comes when the
    // schedule is due, so no report check.
    expect(run).toMatchObject({ unknownAccepted: 1, unknownNotSent: 0 });
    expect(stored.filter((r) => r.detailType === 'Message Accepted').map((r) => r.cliKey)).toEqual(
      keys,
    );
    expect(checks.sent).toEqual([]);
    const unknown = (await outcomes()).filter((item) => item.sk === 'UNKNOWN');
    expect(unknown).toEqual([expect.objectContaining({ scheduled: true })]);
    expect(unknown[0]?.awaitingReportBucket).toBeUndefined();
  });

  it('counts and names an index item that is no readable entry, and leaves it where it is', async () => {
    // Prepare: one real unknown outcome and, beside it in the index, an item without its channel.
    const keys = await sendLastTime(1, true);
    const attemptedAt = new Date(world.now().getTime() - MINUTE).toISOString();
    await documents.send(
      new PutCommand({
        TableName: world.eventTable,
        Item: {
          pk: 'SEND#mangled',
          sk: 'UNKNOWN',
          cliKey: 'mangled',
          attemptedAt,
          awaitingReportBucket: 'UNKNOWN',
          acceptedAt: attemptedAt,
        },
      }),
    );
    await world.sim.advance(3 * MINUTE);

    // Act
    const run = await reconcileStatus(reconcileDeps());

    // Assess: the readable one decided, the other counted, named with why, and kept.
    expect(run).toMatchObject({ unknownAccepted: 1, unknownUnreadable: 1 });
    expect(run.unreadableUnknown).toEqual([expect.stringMatching(/^SEND#mangled: .*channel/)]);
    expect(stored.filter((r) => r.detailType === 'Message Accepted').map((r) => r.cliKey)).toEqual(
      keys,
    );
    const mangled = await documents.send(
      new GetCommand({ TableName: world.eventTable, Key: { pk: 'SEND#mangled', sk: 'UNKNOWN' } }),
    );
    expect(mangled.Item?.awaitingReportBucket).toBe('UNKNOWN');
  });

  it('lets only one of two overlapping scheduled runs query the gateway', async () => {
    // Prepare: three sends whose answers were lost, which the gateway took
    const keys = await sendLastTime(3, true);
    await world.sim.advance(3 * MINUTE);
    const lease = new DynamoDbLease(world.stateTable, documents);

    // Act
    const runs = await Promise.all(
      ['run-a', 'run-b'].map((owner) =>
        reconcileStatusExclusively(reconcileDeps(), { lease, owner, ttlMs: 60_000 }),
      ),
    );

    // Assess
    expect(runs.map((run) => run.kind).sort()).toEqual(['busy', 'done']);
    expect(statusCalls).toHaveLength(1);
    const accepted = stored.filter((r) => r.detailType === 'Message Accepted');
    expect(accepted.map((r) => r.cliKey).sort()).toEqual([...keys].sort());
  });

  it('publishes a not-sent rejection for a send the gateway never saw, once it has waited', async () => {
    // Prepare
    const [key] = await sendLastTime(1, false);
    await world.sim.advance(3 * MINUTE);
    const early = await reconcileStatus(reconcileDeps());
    await world.sim.advance(10 * MINUTE);

    // Act
    const late = await reconcileStatus(reconcileDeps());

    // Assess
    expect(early).toMatchObject({ unknownPending: 1, unknownNotSent: 0 });
    expect(late).toMatchObject({ unknownNotSent: 1 });
    const rejected = stored.filter((r) => r.detailType === 'Message Rejected');
    expect(rejected.map((r) => JSON.parse(r.detail).data)).toEqual([
      expect.objectContaining({ cliKey: key, category: 'not-sent', code: 'INVALID_KEY' }),
    ]);
  });
});

describe('report guards in the event table', () => {
  const report = (ch: string | null) =>
    JSON.stringify({
      rptLst: [{ msgKey: 'G-1', cliKey: 'g1', ch, resultCode: '10000', fbReasonLst: null }],
    });

  it("make a receiver's report of the same delivery under another ch a duplicate, and are no report themselves", async () => {
    // Prepare
    const expiresAt = Math.floor(Date.now() / 1000) + 3_600;
    const own = reportSortKey('10000', null);

    // Act
    const guarded = await awaiting.guard(
      'G-1',
      [reportSortKey('10000', 'SMS'), reportSortKey('10000', 'LMS')],
      own,
      expiresAt,
    );
    const onlyGuards = await awaiting.hasReport('G-1');
    const webhook = await receiveReports(report('LMS'), receive);
    const again = await awaiting.guard('G-1', [reportSortKey('10000', 'SMS')], own, expiresAt);

    // Assess
    expect(guarded).toBe('clear');
    expect(onlyGuards).toBe(false);
    expect(webhook.duplicates).toBe(1);
    expect(stored).toHaveLength(0);
    expect(again).toBe('clear');
    await receiveReports(report('MMS'), receive);
    expect(await awaiting.hasReport('G-1')).toBe(true);
    expect(await awaiting.guard('G-1', [reportSortKey('10000', 'MMS')], own, expiresAt)).toBe(
      'reported',
    );
  });
});
