/** The reconciler's fakes (awaiting index, report ledger, status gateway) and the world that wires them. */

import {
  type AwaitingPage,
  type AwaitingRecipient,
  type AwaitingReportIndex,
  type ReconcileDeps,
  ReconcileSettingsSchema,
  type ReportLedger,
} from '../../functions/reconcile/reconcile-ports.ts';
import type { StatusGateway } from '../../functions/reconcile/status-query.ts';
import { type StatusQueryData, StatusQueryDataSchema } from '../../gateway/schemas/index.ts';
import { formatKst } from '../../protocol/kst.ts';
import type { FakeEventStore } from './fake-event-store.ts';
import { FakeUnknownOutcomes, GuardedEventStore } from './fake-reconcile-ports.ts';

export const NOW = Date.parse('2026-03-11T06:00:00.000Z'); // 15:00 KST

export const HOUR = 3_600_000;

export const ago = (ms: number) => new Date(NOW - ms).toISOString();

export const sortKey = (r: AwaitingRecipient) => `${r.acceptedAt}|${r.cliKey}`;

/**
 * The `awaiting-report` index in memory, with DynamoDB's key condition and paging: each entry
 * under the bucket it was written with (by default the plain hour, as releases before the shards
 * wrote it), read by bucket and range, one page at a time.
 */
export class FakeAwaitingIndex implements AwaitingReportIndex {
  readonly entries = new Map<string, AwaitingRecipient & { bucket: string }>();
  readonly pagesRead: Array<{ bucket: string; from: string; to: string }> = [];
  private inFlight = 0;
  /** The most page reads under way at once. */
  maxInFlight = 0;

  add(recipient: AwaitingRecipient, bucket = recipient.acceptedAt.slice(0, 13)): void {
    this.entries.set(recipient.cliKey, { ...recipient, bucket });
  }

  async page(
    bucket: string,
    range: { from: string; to: string },
    limit: number,
    start?: string,
  ): Promise<AwaitingPage> {
    this.pagesRead.push({ bucket, ...range });
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight -= 1;
    // Like ExclusiveStartKey, the cursor is the last key returned, so settling never skips one.
    const after = [...this.entries.values()]
      .filter((r) => r.bucket === bucket && r.acceptedAt >= range.from && r.acceptedAt <= range.to)
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
      .filter((r) => start === undefined || sortKey(r) > start);
    const recipients = after.slice(0, limit).map(({ bucket: _bucket, ...recipient }) => recipient);
    const last = recipients.at(-1);
    return after.length > limit && last ? { recipients, next: sortKey(last) } : { recipients };
  }

  async settle(cliKey: string): Promise<void> {
    this.entries.delete(cliKey);
  }
}

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
  readonly index: FakeAwaitingIndex;
  readonly store: GuardedEventStore;
  readonly ledger: ReturnType<typeof ledgerOf>;
  readonly gateway: FakeStatusGateway;
  deps(overrides?: Partial<ReconcileDeps>): ReconcileDeps;
  /** A recipient accepted at `acceptedAt`; `status` is what the gateway answers for it. */
  accept(
    cliKey: string,
    acceptedAt: string,
    options?: { status?: string; resultCode?: string; msgKey?: string | null; sentOn?: string },
  ): void;
}

/**
 * The reconciler's ports at NOW over `store` (the event table and its guards); `overrides`
 * replace any of them.
 */
export const reconcileDeps = (
  ports: Pick<ReconcileDeps, 'index' | 'ledger' | 'unknown' | 'gateway'> & {
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
  const index = new FakeAwaitingIndex();
  const store = new GuardedEventStore();
  const ledger = ledgerOf(store);
  const unknown = new FakeUnknownOutcomes(store);
  const gateway = new FakeStatusGateway();
  return {
    index,
    store,
    ledger,
    gateway,
    deps: (overrides = {}) =>
      reconcileDeps({ index, ledger, unknown, gateway, store }, settings, overrides),
    accept(cliKey, acceptedAt, options = {}) {
      const msgKey = options.msgKey === undefined ? `M-${cliKey}` : options.msgKey;
      index.add({ cliKey, acceptedAt, ...(msgKey === null ? {} : { msgKey }) });
      gateway.known.set(cliKey, {
        sentOn: options.sentOn ?? formatKst(Date.parse(acceptedAt), 'YYYY-MM-DD'),
        msgKey: `M-${cliKey}`,
        status: options.status ?? 'DONE',
        ...(options.resultCode ? { resultCode: options.resultCode } : {}),
      });
    },
  };
};
