/** The report poller's fakes (clock, gateway, lease, stores) and the harness that wires them. */

import { moItem, reportItem } from '../../fixtures/gateway-bodies.ts';
import type { Lease } from '../../functions/commons/lease.ts';
import type { EventRecord } from '../../functions/event-table/event-record.ts';
import type { EventStore } from '../../functions/event-table/ports.ts';
import type {
  MoPollingGateway,
  PollDeps,
  ReportPollingGateway,
} from '../../functions/polling/poll-use-case.ts';
import type { PollLogger } from '../../functions/polling/poller-lease.ts';
import {
  type MoListData,
  MoListDataSchema,
  type PollReportsResponseData,
  PollReportsResponseDataSchema,
} from '../../gateway/schemas/index.ts';
import { FakeEventStore } from './fake-event-store.ts';
import { MemoryPageQuarantine } from './memory-page-quarantine.ts';

export const START = Date.parse('2026-11-21T00:31:00.000Z');

/** A clock that only moves when someone sleeps or a fake call takes time. */
export class FakeClock {
  time = START;
  readonly sleeps: number[] = [];
  readonly now = (): number => this.time;
  readonly sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.time += ms;
  };
}

export type PollScript = PollReportsResponseData | Error;

export interface PollCall {
  readonly at: number;
  readonly answeredAt: number;
  readonly kind: 'empty' | 'page' | 'error';
}

/**
 * The gateway's report endpoints with scripted answers. Each call takes `latencyMs` of clock
 * time. It records every poll that came sooner than 10 s after the answer to an empty poll (the
 * gateway would refuse it) and what the store held when each confirm arrived.
 */
export class FakeReportGateway implements ReportPollingGateway {
  readonly polls: PollCall[] = [];
  readonly confirms: { rptKey: string; at: number; storedMsgKeys: string[] }[] = [];
  readonly tooSoon: number[] = [];
  private lastEmptyAnswerAt: number | undefined;
  /** What each confirm does: throw the error, or succeed on `null` (then always succeed). */
  confirmFailures: (Error | null)[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly script: PollScript[] | ((call: number) => PollScript),
    private readonly store: FakeEventStore,
    private readonly latencyMs = 0,
  ) {}

  async pollReports(): Promise<PollReportsResponseData> {
    const at = this.clock.time;
    if (this.lastEmptyAnswerAt !== undefined && at - this.lastEmptyAnswerAt < 10_000)
      this.tooSoon.push(at);
    this.clock.time += this.latencyMs;
    const next =
      typeof this.script === 'function'
        ? this.script(this.polls.length)
        : (this.script.shift() ?? null);
    const answeredAt = this.clock.time;
    if (next instanceof Error) {
      this.polls.push({ at, answeredAt, kind: 'error' });
      throw next;
    }
    const empty = next === null || next.rptLst.length === 0;
    this.lastEmptyAnswerAt = empty ? answeredAt : undefined;
    this.polls.push({ at, answeredAt, kind: empty ? 'empty' : 'page' });
    return next;
  }

  async confirmReports(rptKeyLst: readonly string[]): Promise<void> {
    const at = this.clock.time;
    this.clock.time += this.latencyMs;
    const failure = this.confirmFailures.shift();
    if (failure) throw failure;
    for (const rptKey of rptKeyLst)
      this.confirms.push({
        rptKey,
        at,
        storedMsgKeys: this.store.details('report').map((detail) => String(detail.data.msgKey)),
      });
  }
}

/** An in-memory lease; `renewals` scripts what each renew answers (then `true`). */
export class FakeLease implements Lease {
  holder: string | undefined;
  readonly calls: string[] = [];
  renewals: boolean[] = [];

  async acquire(name: string, owner: string): Promise<boolean> {
    this.calls.push(`acquire ${name}`);
    if (this.holder !== undefined && this.holder !== owner) return false;
    this.holder = owner;
    return true;
  }

  async renew(name: string, owner: string): Promise<boolean> {
    this.calls.push(`renew ${name}`);
    const answer = (this.renewals.shift() ?? true) && this.holder === owner;
    if (!answer) this.holder = 'someone-else';
    return answer;
  }

  async release(name: string, owner: string): Promise<void> {
    this.calls.push(`release ${name}`);
    if (this.holder === owner) this.holder = undefined;
  }
}

export const silent: PollLogger = { info: () => {}, warn: () => {}, error: () => {} };

export let pageNumber = 0;

/** A parsed poll page of `count` reports, as the gateway client returns it. */
export const page = (
  count: number,
  overrides: Record<string, unknown> = {},
): PollReportsResponseData => {
  pageNumber++;
  return PollReportsResponseDataSchema.parse({
    rptKey: `rpt-${pageNumber}`,
    rptCnt: count,
    rptLst: Array.from({ length: count }, (_, i) => ({
      ...reportItem(pageNumber * 1_000 + i, overrides),
      phone: undefined,
    })),
  });
};

export interface Harness<G> {
  readonly clock: FakeClock;
  readonly store: FakeEventStore;
  readonly lease: FakeLease;
  readonly quarantine: MemoryPageQuarantine;
  readonly deps: (gateway: G, overrides?: Partial<PollDeps<G>>) => PollDeps<G>;
}

export const harness = <G>(
  options: { deadlineInMs?: number; putMs?: number; concurrency?: number } = {},
): Harness<G> => {
  const clock = new FakeClock();
  const store = new FakeEventStore();
  const lease = new FakeLease();
  const quarantine = new MemoryPageQuarantine();
  const putMs = options.putMs ?? 0;
  // Every put takes `putMs` of clock time, so a slow store can push a page past its window.
  const timedStore: EventStore = {
    putIfAbsent: async (record: EventRecord) => {
      clock.time += putMs;
      return store.putIfAbsent(record);
    },
  };
  return {
    clock,
    store,
    lease,
    quarantine,
    deps: (gateway, overrides = {}) => ({
      gateway,
      receive: {
        store: timedStore,
        now: () => new Date(clock.now()),
        retentionDays: 35,
        concurrency: options.concurrency ?? 4,
      },
      quarantine,
      lease,
      owner: 'run-1',
      now: clock.now,
      sleep: clock.sleep,
      deadline: START + (options.deadlineInMs ?? 120_000),
      logger: silent,
      ...overrides,
    }),
  };
};

/** The MO list endpoint with scripted pages; each MO is handed out once. */
export class FakeMoGateway implements MoPollingGateway {
  readonly calls: { at: number; count: number }[] = [];
  constructor(
    private readonly clock: FakeClock,
    private readonly script: MoListData[],
  ) {}

  async listMo(): Promise<MoListData> {
    const next = this.script.shift() ?? [];
    this.calls.push({ at: this.clock.time, count: next.length });
    return next;
  }
}

export const moPage = (...indexes: number[]): MoListData =>
  MoListDataSchema.parse(indexes.map((index) => moItem(index)));
