import { describe, expect, it } from 'vitest';
import { receiveReports } from '../../functions/received-items/receive-items.ts';
import type { ReconcileDeps, ReportLedger } from '../../functions/reconcile/reconcile-ports.ts';
import {
  checkReports,
  reconcileStatus,
  reportSortKey,
} from '../../functions/reconcile/reconcile-use-case.ts';
import type { StatusGateway } from '../../functions/reconcile/status-query.ts';
import type { UnknownOutcome } from '../../functions/send-records/ports.ts';
import { MAYBE_SENT_UNTIL, sendRecordKey } from '../../functions/send-records/send-record.ts';
import { type StatusQueryData, StatusQueryDataSchema } from '../../gateway/schemas/index.ts';
import { formatKst } from '../../protocol/kst.ts';
import { FakeUnknownOutcomes, GuardedEventStore } from '../support/fake-reconcile-ports.ts';
import { MemoryReportChecks } from '../support/memory-report-checks.ts';
import { ago, NOW, reconcileDeps } from '../support/reconcile-world.ts';

const MINUTE = 60_000;

/** A status query that knows some cliKeys (each on the KST date it was sent) and answers the rest INVALID_KEY. */
class StatusByKey implements StatusGateway {
  readonly calls: Array<Array<{ cliKey: string; reqDt: string }>> = [];
  readonly known = new Map<string, { reqDt: string; item: Record<string, unknown> }>();

  async queryStatus(keys: Array<{ cliKey: string; reqDt: string }>): Promise<StatusQueryData> {
    this.calls.push(keys);
    return StatusQueryDataSchema.parse({
      cliKeyLst: keys.map(({ cliKey, reqDt }) => {
        const known = this.known.get(cliKey);
        return known && known.reqDt === reqDt
          ? { cliKey, ...known.item }
          : { cliKey, status: 'INVALID_KEY' };
      }),
    });
  }
}

const setup = () => {
  const store = new GuardedEventStore();
  const unknown = new FakeUnknownOutcomes(store);
  unknown.now = () => NOW;
  const gateway = new StatusByKey();
  const checks = new MemoryReportChecks(() => NOW);
  const ledger: ReportLedger = {
    hasReport: async (msgKey) => store.reportEvents().some((r) => r.pk === `REPORT#${msgKey}`),
    hasStatusUnavailable: async () => false,
  };
  const deps = (overrides: Partial<ReconcileDeps> = {}): ReconcileDeps =>
    reconcileDeps(
      { ledger, unknown, gateway, store },
      {},
      {
        owner: 'run-1',
        awaiting: checks,
        ...overrides,
      },
    );
  return { store, unknown, gateway, checks, deps };
};

const entry = (cliKey: string, attemptedAt: string): UnknownOutcome => ({
  cliKey,
  channel: 'sms',
  phone: '010-0000-0000',
  sqsMessageId: 'sqs-1',
  attemptedAt,
  code: 'TIMEOUT',
  message: 'no answer within 30000 ms',
  record: sendRecordKey([cliKey]),
});

const sendEvents = (store: GuardedEventStore, type: string) =>
  store
    .ofKind('send')
    .filter((r) => r.detailType === type)
    .map(
      (r) =>
        JSON.parse(r.detail) as {
          metadata: Record<string, unknown>;
          data: Record<string, unknown>;
        },
    );

/**
 * A world with one unknown outcome, `u1` attempted 3 minutes ago, which the gateway's status
 * query knows as accepted (REG, msgKey `M-u1`).
 */
const acceptedAttemptOfU1 = () => {
  const w = setup();
  const attemptedAt = ago(3 * MINUTE);
  w.unknown.add(entry('u1', attemptedAt));
  w.gateway.known.set('u1', {
    reqDt: formatKst(Date.parse(attemptedAt), 'YYYY-MM-DD'),
    item: { msgKey: 'M-u1', ch: 'SMS', status: 'REG' },
  });
  return { w, attemptedAt };
};

describe('reconcileStatus on unknown outcomes', () => {
  it('publishes "Message Accepted" for a cliKey the gateway knows, a few minutes after the attempt', async () => {
    // Prepare
    const { w, attemptedAt } = acceptedAttemptOfU1();

    // Act
    const result = await reconcileStatus(w.deps());

    // Assess
    expect(result).toMatchObject({ unknownExamined: 1, unknownAccepted: 1, unknownNotSent: 0 });
    const [accepted, ...others] = sendEvents(w.store, 'Message Accepted');
    expect(others).toHaveLength(0);
    expect(accepted?.data).toMatchObject({
      cliKey: 'u1',
      msgKey: 'M-u1',
      channel: 'sms',
      sqsMessageId: 'sqs-1',
    });
    expect(accepted?.metadata).toMatchObject({ via: 'status-query', idempotencyKey: 'send:u1' });
    // Queued for the late-report search from the time of the attempt.
    expect(w.checks.sent).toEqual([
      { channel: 'sms', acceptedAt: attemptedAt, recipients: [{ cliKey: 'u1', msgKey: 'M-u1' }] },
    ]);
    expect(w.unknown.entries.size).toBe(0);
    // Given back, marked as maybe sent: a redriven message's sender distrusts a refusal.
    expect([...w.unknown.claims.values()].map((c) => c.until)).toEqual([MAYBE_SENT_UNTIL]);
  });

  it('stores a found acceptance without its event where acceptances are not published', async () => {
    // Prepare: the deployment turned "Message Accepted" off (the send store writes such items).
    const { w, attemptedAt } = acceptedAttemptOfU1();
    const unpublished: Array<Record<string, unknown>> = [];
    const unpublishedAcceptances = {
      putEvent: async (record: object) => {
        unpublished.push({ ...record });
        return 'stored' as const;
      },
    };

    // Act
    const result = await reconcileStatus(w.deps({ unpublishedAcceptances }));

    // Assess: decided and listed for its report, but no event anywhere.
    expect(result).toMatchObject({ unknownExamined: 1, unknownAccepted: 1 });
    expect(sendEvents(w.store, 'Message Accepted')).toHaveLength(0);
    expect(w.store.items.has('SEND#u1|OUTCOME')).toBe(false);
    expect(unpublished).toEqual([
      expect.objectContaining({
        pk: 'SEND#u1',
        sk: 'OUTCOME',
        outcome: 'accepted',
        cliKey: 'u1',
        msgKey: 'M-u1',
        acceptedAt: attemptedAt,
      }),
    ]);
    expect(w.checks.sent.map((check) => check.recipients)).toEqual([
      [{ cliKey: 'u1', msgKey: 'M-u1' }],
    ]);
    expect(unpublished[0]).not.toHaveProperty('detailType');
    expect(w.unknown.entries.size).toBe(0);
  });

  it("publishes a scheduled recipient's acceptance even where acceptances are not, with no report check", async () => {
    // Prepare: a scheduled send whose last delivery ended unknown; "Message Accepted" turned off.
    const w = setup();
    const attemptedAt = ago(3 * MINUTE);
    w.unknown.add({ ...entry('u1', attemptedAt), scheduled: true });
    w.gateway.known.set('u1', {
      reqDt: formatKst(Date.parse(attemptedAt), 'YYYY-MM-DD'),
      item: { msgKey: 'M-u1', ch: 'SMS', status: 'REG' },
    });
    const unpublished: object[] = [];
    const unpublishedAcceptances = {
      putEvent: async (record: object) => {
        unpublished.push(record);
        return 'stored' as const;
      },
    };

    // Act
    const result = await reconcileStatus(w.deps({ unpublishedAcceptances }));

    // Assess: its outcome event, as the sender publishes for a scheduled send; its report comes
    // when the schedule is due, so nothing looks for it now.
    expect(result).toMatchObject({ unknownExamined: 1, unknownAccepted: 1 });
    expect(unpublished).toEqual([]);
    expect(sendEvents(w.store, 'Message Accepted').map((event) => event.data)).toEqual([
      expect.objectContaining({ cliKey: 'u1', msgKey: 'M-u1' }),
    ]);
    expect(w.checks.sent).toEqual([]);
    expect(w.unknown.entries.size).toBe(0);
  });

  it('waits before it believes the gateway does not know a cliKey, then publishes a not-sent rejection', async () => {
    // Prepare
    const w = setup();
    w.unknown.add(entry('young', ago(4 * MINUTE)));
    w.unknown.add(entry('old', ago(11 * MINUTE)));

    // Act
    const result = await reconcileStatus(w.deps());

    // Assess
    expect(result).toMatchObject({ unknownNotSent: 1, unknownPending: 1 });
    expect(sendEvents(w.store, 'Message Rejected').map((e) => e.data)).toEqual([
      expect.objectContaining({ cliKey: 'old', category: 'not-sent', code: 'INVALID_KEY' }),
    ]);
    expect([...w.unknown.entries.keys()]).toEqual(['young']);
    expect(sendEvents(w.store, 'Message Accepted')).toHaveLength(0);
  });

  it('leaves alone an attempt younger than the first wait', async () => {
    const w = setup();
    w.unknown.add(entry('fresh', ago(30_000)));

    const result = await reconcileStatus(w.deps());

    expect(result.unknownExamined).toBe(0);
    expect(w.gateway.calls).toHaveLength(0);
  });

  it('asks the next KST day too for an attempt just before midnight', async () => {
    // Prepare: attempted at 23:59:30 KST; the gateway dated it the next day.
    const w = setup();
    const attemptedAt = '2026-03-10T14:59:30.000Z';
    w.unknown.add(entry('midnight', attemptedAt));
    w.gateway.known.set('midnight', {
      reqDt: '2026-03-11',
      item: { msgKey: 'M-m', ch: 'SMS', status: 'DONE', resultCode: '10000' },
    });

    // Act
    await reconcileStatus(w.deps());

    // Assess
    expect(w.gateway.calls.map((call) => call[0]?.reqDt)).toEqual(['2026-03-10', '2026-03-11']);
    expect(sendEvents(w.store, 'Message Accepted')).toHaveLength(1);
    expect(sendEvents(w.store, 'Message Rejected')).toHaveLength(0);
  });

  it('takes off its index, without asking, an unknown outcome a later send has decided', async () => {
    const w = setup();
    w.unknown.add(entry('decided', ago(20 * MINUTE)));
    await w.store.putIfAbsent({
      pk: 'SEND#decided',
      sk: 'OUTCOME',
      kind: 'send',
      detailType: 'Message Accepted',
      detail: '{}',
      eventId: 'e',
      receivedAt: ago(MINUTE),
      expiresAt: 0,
    });

    const result = await reconcileStatus(w.deps());

    expect(result).toMatchObject({ unknownAlreadyDecided: 1, statusQueries: 0 });
    expect(w.unknown.entries.size).toBe(0);
  });

  it('does not decide a cliKey a sender is sending right now', async () => {
    const w = setup();
    w.unknown.add(entry('busy', ago(20 * MINUTE)));
    await w.unknown.claim(sendRecordKey(['busy']), '1#attempt', NOW + 60_000);

    const result = await reconcileStatus(w.deps());

    expect(result).toMatchObject({ unknownPending: 1, statusQueries: 0 });
    expect(w.store.ofKind('send')).toHaveLength(0);
  });
});

describe('a report found by the status query and by a receiver', () => {
  const MSG = 'M-r1';
  const webhookBody = (ch: string | null) =>
    JSON.stringify({
      rptLst: [
        {
          msgKey: MSG,
          cliKey: 'r1',
          ch,
          resultCode: '10000',
          resultCodeDesc: 'success',
          fbReasonLst: ch === 'SMS' ? [{ ch: 'RCS', fbResultCode: '54002' }] : null,
          telco: 'SKT',
          rptDt: '2026-03-11 14:00:00',
          productCode: 'SMS',
        },
      ],
    });

  /** A recipient accepted 2 hours ago whose status the gateway answers with `ch`. */
  const late = (ch: string | null) => {
    const w = setup();
    const acceptedAt = ago(120 * MINUTE);
    w.gateway.known.set('r1', {
      reqDt: formatKst(Date.parse(acceptedAt), 'YYYY-MM-DD'),
      item: { msgKey: MSG, ch, status: 'DONE', resultCode: '10000', fbReasonLst: null },
    });
    // The ledger never sees the receiver's report: its look-up ran just before the receiver wrote.
    const ledger: ReportLedger = {
      hasReport: async () => false,
      hasStatusUnavailable: async () => false,
    };
    const run = async () => {
      const checks = new MemoryReportChecks(() => NOW);
      await checks.expect({
        channel: 'sms',
        acceptedAt,
        recipients: [{ cliKey: 'r1', msgKey: MSG }],
      });
      return checkReports({ ...w.deps({ ledger }), checks });
    };
    return { ...w, run };
  };
  const receive = (w: ReturnType<typeof setup>, ch: string | null) =>
    receiveReports(webhookBody(ch), {
      store: w.store,
      now: () => new Date(NOW),
      retentionDays: 35,
      concurrency: 4,
    });

  it.each([
    ['the original channel', 'RCS', 'SMS'],
    ['no channel', null, 'SMS'],
    ['the fallback channel', 'SMS', 'LMS'],
    ['a channel where the webhook has none', 'MMS', null],
  ])(
    'makes one event when the status answers %s, whichever comes first',
    async (_, statusCh, webhookCh) => {
      // Reconcile first, then the webhook.
      const first = late(statusCh);
      await first.run();
      const answer = await receive(first, webhookCh);
      expect(answer.duplicates).toBe(1);
      expect(first.store.reportEvents()).toHaveLength(1);

      // The webhook first, then reconcile (its ledger look-up raced the webhook's write).
      const second = late(statusCh);
      await receive(second, webhookCh);
      const run = await second.run();
      expect(second.store.reportEvents()).toHaveLength(1);
      expect(run.reportsReconciled).toBe(0);
    },
  );

  it('files a status-built report under the receivers own key', async () => {
    const w = setup();
    await receive(w, 'LMS');
    await receive(w, null);

    expect(w.store.reportEvents().map((r) => r.sk)).toEqual([
      reportSortKey('10000', 'LMS'),
      reportSortKey('10000', null),
    ]);
  });
});
