/** The reconciler's fakes (report-check queue, report ledger, status gateway) and the world that wires them. */

import {
  type ReconcileCounts,
  type ReconcileDeps,
  ReconcileSettingsSchema,
  type ReportLedger,
} from '../../functions/reconcile/reconcile-ports.ts';
import { checkReports } from '../../functions/reconcile/reconcile-use-case.ts';
import type { StatusGateway } from '../../functions/reconcile/status-query.ts';
import { sendRecordKey } from '../../functions/send-records/send-record.ts';
import { type StatusQueryData, StatusQueryDataSchema } from '../../gateway/schemas/index.ts';
import { formatKst } from '../../protocol/kst.ts';
import type { FakeEventStore } from './fake-event-store.ts';
import { FakeUnknownOutcomes, GuardedEventStore } from './fake-reconcile-ports.ts';
import { MemoryReportChecks } from './memory-report-checks.ts';

export const NOW = Date.parse('2026-03-11T06:00:00.000Z'); // 15:00 KST

export const HOUR = 3_600_000;

export const ago = (ms: number) => new Date(NOW - ms).toISOString();

/** Reads what the fake event table holds, as the DynamoDB adapter reads the real one. */
export const ledgerOf = (store: FakeEventStore): ReportLedger & { checks: number } => {
  const ledger = {
    checks: 0,
    async hasReport(msgKey: string) {
      ledger.checks += 1;
      return [...store.items.values()].some((item) => item.pk === `REPORT#${msgKey}`);
    },
    async hasStatusUnavailable(cliKey: string) {
      ledger.checks += 1;
      return store.items.has(`STATUS#${cliKey}|UNAVAILABLE`);
    },
  };
  return ledger;
};

export interface KnownSend {
  /** KST date of the send: the only `reqDt` the key is found with. */
  readonly sentOn: string;
  readonly msgKey: string;
  status: string;
  resultCode?: string;
}

/** The status query as the simulator answers it; records every call. */
export class FakeStatusGateway implements StatusGateway {
  readonly calls: Array<Array<{ cliKey: string; reqDt: string }>> = [];
  readonly known = new Map<string, KnownSend>();
  failWith: Error | undefined;

  async queryStatus(keys: Array<{ cliKey: string; reqDt: string }>): Promise<StatusQueryData> {
    this.calls.push(keys.map((key) => ({ ...key })));
    if (this.failWith) throw this.failWith;
    if (keys.length < 1 || keys.length > 10) throw new Error(`${keys.length} keys in one call`);
    return StatusQueryDataSchema.parse({
      cliKeyLst: keys.map(({ cliKey, reqDt }) => {
        const send = this.known.get(cliKey);
        if (send?.status === 'OVER_DATE') return { cliKey, status: 'OVER_DATE' };
        if (!send || send.sentOn !== reqDt) return { cliKey, status: 'INVALID_KEY' };
        if (send.status !== 'DONE')
          return { msgKey: send.msgKey, cliKey, ch: 'SMS', status: send.status };
        return {
          msgKey: send.msgKey,
          cliKey,
          ch: 'SMS',
          status: 'DONE',
          resultCode: send.resultCode ?? '10000',
          resultCodeDesc: 'success',
          telco: 'SKT',
          fbReasonLst: null,
          rptDt: '2026-03-10 11:00:05',
          productCode: 'SMS',
        };
      }),
    });
  }

  keysQueried(): string[] {
    return this.calls.flat().map((key) => key.cliKey);
  }
}

export interface World {
  /** The report-check queue, on the world's clock (a received check hidden 10 minutes). */
  readonly checks: MemoryReportChecks;
  readonly unknown: FakeUnknownOutcomes;
  readonly store: GuardedEventStore;
  readonly ledger: ReturnType<typeof ledgerOf>;
  readonly gateway: FakeStatusGateway;
  deps(overrides?: Partial<ReconcileDeps>): ReconcileDeps;
  /** reconcile-status invoked with the checks on the queue (`checkReports`), at the world's clock. */
  run(overrides?: Partial<ReconcileDeps>): Promise<ReconcileCounts>;
  /** Moves the world's clock (the queue's and the run's) on by `ms`. */
  advance(ms: number): void;
  /**
   * A recipient accepted at `acceptedAt`, queued as a report check of its own; `status` is what
   * the gateway answers for it.
   */
  accept(
    cliKey: string,
    acceptedAt: string,
    options?: { status?: string; resultCode?: string; msgKey?: string | null; sentOn?: string },
  ): Promise<void>;
  /** A send of `cliKey` attempted at `attemptedAt` without an answer, which the gateway knows. */
  unanswered(cliKey: string, attemptedAt: string): void;
}

/**
 * The reconciler's ports at NOW over `store` (the event table and its guards); `overrides`
 * replace any of them.
 */
export const reconcileDeps = (
  ports: Pick<ReconcileDeps, 'ledger' | 'unknown' | 'gateway'> & {
    readonly store: GuardedEventStore;
  },
  settings: Partial<ReconcileDeps['settings']> = {},
  overrides: Partial<ReconcileDeps> = {},
): ReconcileDeps => {
  const { store, ...rest } = ports;
  return {
    ...rest,
    guards: store,
    receive: { store, now: () => new Date(NOW), retentionDays: 35, concurrency: 4 },
    now: () => new Date(NOW),
    settings: ReconcileSettingsSchema.parse(settings),
    ...overrides,
  };
};

export const world = (settings: Partial<ReconcileDeps['settings']> = {}): World => {
  let now = NOW;
  const checks = new MemoryReportChecks(() => now, { visibilityMs: 10 * 60_000 });
  const store = new GuardedEventStore();
  const ledger = ledgerOf(store);
  const unknown = new FakeUnknownOutcomes(store);
  unknown.now = () => now;
  const gateway = new FakeStatusGateway();
  const deps = (overrides: Partial<ReconcileDeps> = {}) =>
    reconcileDeps({ ledger, unknown, gateway, store }, settings, {
      now: () => new Date(now),
      ...overrides,
    });
  return {
    checks,
    unknown,
    store,
    ledger,
    gateway,
    deps,
    run: (overrides = {}) => checkReports({ ...deps(overrides), checks }),
    advance: (ms) => {
      now += ms;
    },
    async accept(cliKey, acceptedAt, options = {}) {
      const msgKey = options.msgKey === undefined ? `M-${cliKey}` : options.msgKey;
      await checks.expect({
        channel: 'sms',
        acceptedAt,
        recipients: [msgKey === null ? { cliKey } : { cliKey, msgKey }],
      });
      gateway.known.set(cliKey, {
        sentOn: options.sentOn ?? formatKst(Date.parse(acceptedAt), 'YYYY-MM-DD'),
        msgKey: `M-${cliKey}`,
        status: options.status ?? 'DONE',
        ...(options.resultCode ? { resultCode: options.resultCode } : {}),
      });
    },
    unanswered(cliKey, attemptedAt) {
      unknown.add({
        cliKey,
        channel: 'sms',
        phone: null,
        sqsMessageId: `sqs-${cliKey}`,
        attemptedAt,
        code: 'TIMEOUT',
        message: 'no answer',
        record: sendRecordKey([cliKey]),
      });
      gateway.known.set(cliKey, {
        sentOn: formatKst(Date.parse(attemptedAt), 'YYYY-MM-DD'),
        msgKey: `M-${cliKey}`,
        status: 'DONE',
      });
    },
  };
};
