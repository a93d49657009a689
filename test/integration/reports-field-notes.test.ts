/**
 * The bridge against the simulator's field-note report behaviours (spec 01 §2, §3, §4.11, §4.12,
 * §6, §8; gateway field notes "Polling", "Webhooks", "Dates and times"): empty polls in both
 * shapes, `fbReasonLst` null or missing, date-times with a zone, reports out of order, and the
 * 81-hour expiry after a polling outage. The bridge's real poll-reports job, report webhook
 * receiver, sender and status reconciliation run on dynalite, with the simulator on a manual clock
 * that every wait of the poller advances.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../functions/catalogue/index.ts';
import { storedDetail } from '../../functions/event-table/stored-detail.ts';
import {
  pollInbound,
  pollReports,
  type ReportPollingGateway,
} from '../../functions/polling/poll-use-case.ts';
import { DynamoDbAwaitingReports } from '../../functions/reconcile/adapters/dynamodb-awaiting-reports.ts';
import { ReconcileSettingsSchema } from '../../functions/reconcile/reconcile-ports.ts';
import { checkReports } from '../../functions/reconcile/reconcile-use-case.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { GatewaySender } from '../../functions/sending/adapters/gateway-sender.ts';
import type { SimulatorOptionsInput } from '../../simulator/index.ts';
import { awaitingIndexPorts } from '../support/awaiting-index-ports.ts';
import { cleanups, documents, useDynalite } from '../support/dynalite-documents.ts';
import { MemoryReportChecks } from '../support/memory-report-checks.ts';
import { scanItems } from '../support/scan-items.ts';
import { type PollBridge, startPollBridge } from '../support/simulated-poll-bridge.ts';
import { asObject, authenticate, callGateway } from '../support/simulator-http.ts';
import { sendSms, tableSendDeps } from '../support/table-send.ts';
import { startWebhookReceivers } from '../support/webhook-receivers.ts';

const credentials = { apiKey: 'notes-key', apiPassword: 'notes-password' };
const SECRET = 'field-notes-secret-0123456789';
const HOUR = 3_600_000;
const MINUTE = 60_000;
const REPORT_DELAY_MS = 1_000;

useDynalite();

interface Bridge extends PollBridge {
  /** Sends one SMS to `count` recipients through the bridge's sender; answers their cliKeys. */
  send(count: number): Promise<string[]>;
  /** One status-reconciliation run, as of the simulated clock. */
  reconcile(): ReturnType<typeof checkReports>;
}

/**
 * Fresh tables, a simulator on a manual clock and the bridge around it. With `webhook`, the
 * bridge's real report and MO webhook receivers listen on loopback and the simulator both posts
 * and is polled.
 */
const bridge = async (
  options: Partial<SimulatorOptionsInput>,
  webhook = false,
): Promise<Bridge> => {
  const polling = await startPollBridge({
    credentials,
    tablePrefix: 'notes-',
    owner: (now) => `run-${now}`,
    simulator: async (receive) => {
      let hooks: Partial<SimulatorOptionsInput> = {};
      if (webhook) {
        const server = await startWebhookReceivers(receive, SECRET);
        cleanups.push(() => server.close());
        hooks = { reportDelivery: 'both', reportWebhookUrl: server.webhookUrls(SECRET).report };
      }
      return {
        reportDelayMs: REPORT_DELAY_MS,
        reportBatchSize: 7,
        tpsQuota: 1_000,
        seed: 13,
        ...hooks,
        ...options,
      };
    },
  });
  const { sim, client, receive, eventTable, stateTable } = polling;
  const now = () => sim.clock.now();
  const awaiting = new DynamoDbAwaitingReports(
    eventTable,
    documents,
    new DynamoDbSendStore(eventTable, 1, documents),
  );
  // The report checks the sender queues, on the simulator's clock.
  const checks = new MemoryReportChecks(now, { visibilityMs: 10 * 60_000 });
  return {
    ...polling,
    send: async (count) => {
      const tables = { documents, eventTable, stateTable };
      const deps = tableSendDeps(tables, new GatewaySender(client), () => new Date(now()), {
        awaiting: checks,
      });
      const { result, cliKeys } = await sendSms(count, deps, new Date(now()));
      expect(result).toMatchObject({ kind: 'done', accepted: count });
      return cliKeys;
    },
    reconcile: () =>
      checkReports({
        checks,
        awaiting: checks,
        ...awaitingIndexPorts(awaiting),
        gateway: client,
        receive,
        now: () => new Date(now()),
        settings: ReconcileSettingsSchema.parse({ afterMinutes: 30, horizonHours: 96 }),
      }),
  };
};

/** Every event item (guards carry no event) whose `pk` starts with `prefix`. */
const eventsOf = async (b: Bridge, prefix: string) => {
  const items = await scanItems(documents, b.eventTable);
  return items
    .filter((item) => String(item.pk).startsWith(prefix) && item.detailType !== undefined)
    .map((item) => ({
      item,
      detail: JSON.parse(String(storedDetail(item))) as {
        metadata: { via: string };
        data: Record<string, unknown> & { raw: Record<string, unknown> };
      },
    }));
};

/** The msgKey the bridge recorded at acceptance for each cliKey. */
const acceptedMsgKeys = async (b: Bridge, cliKeys: readonly string[]) => {
  const byCliKey = new Map<string, string>();
  for (const cliKey of cliKeys) {
    const answer = await documents.send(
      new GetCommand({ TableName: b.eventTable, Key: { pk: `SEND#${cliKey}`, sk: 'OUTCOME' } }),
    );
    byCliKey.set(cliKey, String(answer.Item?.msgKey));
  }
  return byCliKey;
};

/** A gateway that records when each poll was sent, what it found, and the order of the items. */
const recordingGateway = (b: Bridge) => {
  const polls: Array<{ at: number; empty: boolean; msgKeys: string[] }> = [];
  const gateway: ReportPollingGateway = {
    pollReports: async () => {
      const at = b.sim.clock.now();
      const page = await b.client.pollReports();
      polls.push({
        at,
        empty: page === null,
        msgKeys: (page?.rptLst ?? []).map((item) => String(asObject(item as never).msgKey)),
      });
      return page;
    },
    confirmReports: (rptKeyLst) => b.client.confirmReports(rptKeyLst),
  };
  return { gateway, polls };
};

const fbShape = (raw: Record<string, unknown>) =>
  !('fbReasonLst' in raw)
    ? 'absent'
    : raw.fbReasonLst === null
      ? 'null'
      : Array.isArray(raw.fbReasonLst) && raw.fbReasonLst.length === 0
        ? 'empty'
        : 'reasons';

describe('the bridge against the field-note report behaviours', () => {
  it.each([
    ['null', null],
    ['zero', { rptCnt: 0, rptLst: [] }],
  ] as const)(
    'handles empty polls answered %s: no error, at least 10 s before the next poll',
    async (style, shape) => {
      // Prepare: the run starts before the reports exist, so it meets empty polls on both sides.
      const b = await bridge({ emptyPollStyle: style });
      const cliKeys = await b.send(10);
      const { gateway, polls } = recordingGateway(b);

      // Act
      const outcome = await pollReports(b.deps(gateway), 'polling');
      await b.sim.advance(10_000);
      const { token } = await authenticate(b.sim, credentials);
      const raw = await callGateway(b.sim, { method: 'GET', path: '/msg/v1.2/report', token });

      // Assess: the simulator answered in the style asked for, and the bridge took it as empty.
      expect(asObject(raw.body).data).toEqual(
        shape === null ? null : expect.objectContaining(shape),
      );
      expect(outcome).toMatchObject({
        failedPolls: 0,
        rateLimitedPolls: 0,
        reportsStored: 10,
        pagesUnconfirmed: 0,
      });
      expect(outcome.emptyPolls).toBeGreaterThanOrEqual(2);
      expect(b.sim.snapshot().reports.polling).toMatchObject({ rejectedPolls: 0, confirmed: 10 });
      polls.forEach((poll, i) => {
        const previous = polls[i - 1];
        if (previous?.empty) expect(poll.at - previous.at).toBeGreaterThanOrEqual(10_000);
      });
      expect((await eventsOf(b, 'REPORT#')).map(({ detail }) => detail.data.cliKey).sort()).toEqual(
        [...cliKeys].sort(),
      );
    },
  );

  it.each(['polling', 'webhook'] as const)(
    'stores and publishes reports whose fbReasonLst is null or missing, by %s',
    async (via) => {
      // Prepare: SMS without fallback, half of them failing.
      const b = await bridge(
        { fbReasonStyle: 'mixed', failureRate: 0.5, reportDelivery: via },
        via === 'webhook',
      );
      const cliKeys = [...(await b.send(10)), ...(await b.send(10))];

      // Act
      if (via === 'polling') {
        const outcome = await pollReports(b.deps(b.client), 'polling');
        expect(outcome).toMatchObject({ failedPolls: 0, itemsQuarantined: 0, reportsStored: 20 });
      } else {
        await b.sim.advance(REPORT_DELAY_MS);
        expect(b.sim.snapshot().reports.webhook).toMatchObject({ bodiesPending: 0, retries: 0 });
      }

      // Assess: every report stored once, the raw item as sent, the event readable.
      const events = await eventsOf(b, 'REPORT#');
      expect(events.map(({ detail }) => detail.data.cliKey).sort()).toEqual([...cliKeys].sort());
      expect(new Set(events.map(({ detail }) => fbShape(detail.data.raw)))).toEqual(
        new Set(['absent', 'null', 'empty']),
      );
      for (const { detail } of events) {
        expect(detail.metadata.via).toBe(via);
        expect(detail.data.fallbackReasons).toEqual([]);
        expect(EVENT_TYPES.deliveryReport.data.safeParse(detail.data).success).toBe(true);
      }
      expect(events.some(({ detail }) => detail.data.delivered === false)).toBe(true);
    },
  );

  it('normalises report and MO date-times with and without a zone to the same instant', async () => {
    // Prepare: reports in send order, so each one's instant is the send time plus the delay.
    const b = await bridge({ dateStyle: 'mixed', reportOrder: 'ordered' }, true);
    const sentAt = b.sim.clock.now();
    const cliKeys = [...(await b.send(10)), ...(await b.send(10))];
    b.sim.injectMo(
      Array.from({ length: 10 }, (_, i) => ({
        moType: 'SMSMO' as const,
        moCallback: '01011112222',
        moNumber: '0212345678',
        moMsg: `문의 ${i}`,
      })),
    );
    const moAt = b.sim.clock.now();

    // Act
    await pollReports(b.deps(b.client), 'both');
    await pollInbound(b.deps(b.client, { owner: 'mo-run' }));

    // Assess: the instant, not the text, whatever format each value came in.
    const second = (at: number) => new Date(Math.floor(at / 1_000) * 1_000).toISOString();
    const reports = await eventsOf(b, 'REPORT#');
    expect(reports).toHaveLength(cliKeys.length);
    const rptDts = reports.map(({ detail }) => String(detail.data.raw.rptDt));
    expect(rptDts.some((text) => text.endsWith('+09:00'))).toBe(true);
    expect(rptDts.some((text) => text.endsWith('Z'))).toBe(true);
    expect(rptDts.some((text) => /^\d{14}$/.test(text))).toBe(true);
    for (const { detail } of reports) {
      expect(detail.data.reportedAt).toBe(second(sentAt + REPORT_DELAY_MS));
    }
    const mos = await eventsOf(b, 'MO#');
    expect(mos).toHaveLength(10);
    const moRecvDts = mos.map(({ detail }) => String(detail.data.raw.moRecvDt));
    expect(moRecvDts.some((text) => text.endsWith('+09:00'))).toBe(true);
    expect(moRecvDts.some((text) => text.endsWith('Z'))).toBe(true);
    for (const { detail } of mos) {
      expect(detail.data.receivedAtGateway).toBe(second(moAt));
    }
  });

  it('stores reports that arrive out of order and correlates each with its send', async () => {
    // Prepare: 30 recipients in three sends; pages and bodies shuffled.
    const b = await bridge({ reportOrder: 'shuffled', failureRate: 0.2 }, true);
    const cliKeys = [...(await b.send(10)), ...(await b.send(10)), ...(await b.send(10))];
    const msgKeys = await acceptedMsgKeys(b, cliKeys);
    const sendOrder = cliKeys.map((cliKey) => msgKeys.get(cliKey));
    const { gateway, polls } = recordingGateway(b);

    // Act
    const outcome = await pollReports(b.deps(gateway), 'both');
    await b.sim.advance(31 * MINUTE);
    const reconciled = await b.reconcile();

    // Assess: they did arrive out of order …
    const polledOrder = polls.flatMap((poll) => poll.msgKeys);
    expect(polledOrder.length).toBeGreaterThan(0);
    expect(polledOrder).not.toEqual(sendOrder.filter((key) => polledOrder.includes(String(key))));
    // … and each report sits under the msgKey its send was accepted with, with its cliKey.
    const events = await eventsOf(b, 'REPORT#');
    expect(events).toHaveLength(30);
    for (const { item, detail } of events) {
      expect(item.pk).toBe(`REPORT#${msgKeys.get(String(detail.data.cliKey))}`);
    }
    expect(outcome).toMatchObject({ failedPolls: 0, pagesUnconfirmed: 0 });
    // Reconciliation finds every accepted recipient already reported: nothing to ask.
    expect(reconciled).toMatchObject({ examined: 30, alreadyRecorded: 30, statusQueries: 0 });
  });

  it('settles the messages whose reports expired during a polling outage longer than 81 h', async () => {
    // Prepare: a poll run at 0 h, sends at 10 h, then no poll until 85 h.
    const b = await bridge({ reportDelivery: 'polling', accessTokenTtlSeconds: 3_600 });
    await pollReports(b.deps(b.client), 'polling');
    await b.sim.advance(10 * HOUR);
    const cliKeys = await b.send(10);
    await b.sim.advance(75 * HOUR);

    // Act: polling resumes, then status reconciliation runs.
    const expired = b.sim.snapshot().reports.polling.expired;
    const afterOutage = await pollReports(b.deps(b.client, { owner: 'after-outage' }), 'polling');
    const reconciled = await b.reconcile();
    const again = await b.reconcile();

    // Assess: gone from the gateway (81 h after the last poll, 71 h after they became
    // available), and settled from the status query instead, once each.
    expect(expired).toBe(10);
    expect(afterOutage).toMatchObject({ reportsPolled: 0, failedPolls: 0 });
    expect(reconciled).toMatchObject({
      examined: 10,
      statusQueries: 1,
      reportsReconciled: 10,
      stillPending: 0,
    });
    expect(again).toMatchObject({ examined: 0, statusQueries: 0 });
    const events = await eventsOf(b, 'REPORT#');
    expect(events.map(({ detail }) => detail.data.cliKey).sort()).toEqual([...cliKeys].sort());
    expect(events.every(({ detail }) => detail.metadata.via === 'status-query')).toBe(true);
  });
});
