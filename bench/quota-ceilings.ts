/**
 * Each path's ceiling at a default account's quotas: the lower of what the `scale` scenario
 * measured on the local run (at the path's largest setting) and what the Region's default quotas
 * (aws-semantics/default-quotas.ts) let through, with the quota that binds. Pure functions,
 * unit-tested (test/unit/bench-quota-ceilings.test.ts).
 *
 * Per recipient a path asks of the quotas:
 * - **events**: each stored item is one event (DESIGN decision 3); publish-events sends them in
 *   PutEvents requests of `entriesPerRequest` (10 when its batches are full, as under load), and
 *   each event is one invocation per rule it matches (`rulesPerEvent`, one subscriber rule per
 *   event unless stated);
 * - **webhook requests**: a function URL invokes its receiver synchronously, and Lambda serves at
 *   most 10 synchronous requests a second per execution environment, so at most 10 × the account
 *   concurrency a second (the receivers are unreserved);
 * - **event table writes**: every write of every path, at least one write unit each, against the
 *   table's 40,000 write units a second.
 *
 * Each path is judged as if it had the account to itself; the account-wide quotas (EventBridge,
 * Lambda concurrency) are shared by the paths running at once, so a mixed workload meets them
 * sooner than the lowest path figure says.
 */
import {
  DEFAULT_QUOTAS,
  defaultQuota,
  eventBridgeDemand,
  PUT_EVENTS_MAX_ENTRIES,
  type QuotaId,
} from '../aws-semantics/default-quotas.ts';

/** What one recipient of a path asks of the quotas; absent is nothing. */
export interface QuotaDemand {
  readonly events?: number;
  readonly webhookRequests?: number;
  readonly tableWrites?: number;
}

export interface PathLoad {
  readonly path: string;
  /** The path's ceiling measured locally, recipients a second, at its largest setting. */
  readonly localCeiling: number;
  readonly demand: QuotaDemand;
}

export interface QuotaAssumptions {
  readonly region: string;
  /** Rules each event matches on the bus: one per subscriber. */
  readonly rulesPerEvent: number;
  /** Events a PutEvents request carries: 10 with full batches. */
  readonly entriesPerRequest: number;
  /** The account's Lambda concurrency; Lambda's default when not given. */
  readonly accountConcurrency?: number;
}

export const DEFAULT_ASSUMPTIONS = {
  rulesPerEvent: 1,
  entriesPerRequest: PUT_EVENTS_MAX_ENTRIES,
} as const;

/** One limit on a path: a quota (or the local measurement), and the recipients a second it allows. */
export interface PathLimit {
  readonly quota: QuotaId | 'local';
  /** AWS's name of the quota, or "local measurement". */
  readonly name: string;
  readonly serviceCode?: string;
  readonly quotaCode?: string;
  /** The quota's value in the Region (the local ceiling for `local`). */
  readonly value: number;
  readonly recipientsPerSecond: number;
}

export interface PathCeiling {
  readonly path: string;
  readonly localCeiling: number;
  readonly ceiling: number;
  readonly binding: PathLimit;
  readonly limits: readonly PathLimit[];
}

const limitOf = (id: QuotaId, value: number, recipientsPerSecond: number): PathLimit => {
  const quota = DEFAULT_QUOTAS[id];
  return {
    quota: id,
    name: quota.name,
    ...(quota.serviceCode === undefined ? {} : { serviceCode: quota.serviceCode }),
    ...(quota.quotaCode === undefined ? {} : { quotaCode: quota.quotaCode }),
    value,
    recipientsPerSecond,
  };
};

/** A path's limits and the lowest of them; a quota binds before an equal local figure. */
export const pathCeiling = (load: PathLoad, assumptions: QuotaAssumptions): PathCeiling => {
  const { region } = assumptions;
  const limits: PathLimit[] = [];
  const { events = 0, webhookRequests = 0, tableWrites = 0 } = load.demand;
  if (events > 0) {
    // What one recipient's events ask of EventBridge; the quota over it is the recipients it allows.
    const perRecipient = eventBridgeDemand(events, assumptions);
    const putEvents = defaultQuota('putEvents', region);
    const invocations = defaultQuota('invocations', region);
    limits.push(
      limitOf('putEvents', putEvents, putEvents / perRecipient.putEventsRequestsPerSecond),
      limitOf('invocations', invocations, invocations / perRecipient.invocationsPerSecond),
    );
  }
  if (webhookRequests > 0) {
    const perEnvironment = defaultQuota('synchronousRequestsPerEnvironment', region);
    const concurrency = assumptions.accountConcurrency ?? defaultQuota('lambdaConcurrency', region);
    limits.push(
      limitOf(
        'synchronousRequestsPerEnvironment',
        perEnvironment,
        (perEnvironment * concurrency) / webhookRequests,
      ),
    );
  }
  if (tableWrites > 0) {
    const writes = defaultQuota('tableWrites', region);
    limits.push(limitOf('tableWrites', writes, writes / tableWrites));
  }
  const local: PathLimit = {
    quota: 'local',
    name: 'local measurement',
    value: load.localCeiling,
    recipientsPerSecond: load.localCeiling,
  };
  const binding = [...limits, local]
    .filter((limit) => Number.isFinite(limit.recipientsPerSecond))
    .reduce<PathLimit | undefined>(
      (lowest, limit) =>
        lowest === undefined || limit.recipientsPerSecond < lowest.recipientsPerSecond
          ? limit
          : lowest,
      undefined,
    );
  return {
    path: load.path,
    localCeiling: load.localCeiling,
    ceiling: binding?.recipientsPerSecond ?? Number.NaN,
    binding: binding ?? local,
    limits: [...limits, local],
  };
};

/** The quota that binds the whole bridge: the path with the lowest ceiling, and its limit. */
export interface BindingQuota {
  readonly path: string;
  readonly region: string;
  readonly quota: QuotaId | 'local';
  readonly name: string;
  readonly serviceCode?: string;
  readonly quotaCode?: string;
  readonly value: number;
}

export interface QuotaCeilings {
  readonly region: string;
  readonly assumptions: QuotaAssumptions;
  readonly paths: readonly PathCeiling[];
  /** The lowest path ceiling at the Region's default quotas, recipients a second. */
  readonly ceilingRecipientsPerSecond: number;
  readonly bindingQuota: BindingQuota | null;
}

export const quotaCeilings = (
  loads: readonly PathLoad[],
  assumptions: QuotaAssumptions,
): QuotaCeilings => {
  const paths = loads.map((load) => pathCeiling(load, assumptions));
  const lowest = paths
    .filter((path) => Number.isFinite(path.ceiling))
    .reduce<PathCeiling | undefined>(
      (min, path) => (min === undefined || path.ceiling < min.ceiling ? path : min),
      undefined,
    );
  return {
    region: assumptions.region,
    assumptions,
    paths,
    ceilingRecipientsPerSecond: lowest === undefined ? Number.NaN : Math.round(lowest.ceiling),
    bindingQuota:
      lowest === undefined
        ? null
        : {
            path: lowest.path,
            region: assumptions.region,
            quota: lowest.binding.quota,
            name: lowest.binding.name,
            ...(lowest.binding.serviceCode === undefined
              ? {}
              : { serviceCode: lowest.binding.serviceCode }),
            ...(lowest.binding.quotaCode === undefined
              ? {}
              : { quotaCode: lowest.binding.quotaCode }),
            value: lowest.binding.value,
          },
  };
};

/** The `scale` scenario's figures this projection reads; see bench/scale.ts. */
export interface ScaleFigures {
  readonly paths: ReadonlyArray<{
    readonly path: string;
    readonly itemsPerInvocation: number;
    readonly ceilingAtMaxConcurrency: number;
  }>;
  readonly streams: ReadonlyArray<{ readonly path: string }>;
  readonly eventTableWritesPerRecipient: number;
  readonly publishing: {
    readonly streamRecordsPerRecipient: number;
    readonly ceilingRecipientsPerSecond: number;
  };
  readonly attachments: { readonly ceilingRecipientsPerSecond: number };
}

/**
 * The paths of the `scale` scenario with what a recipient of each asks of the quotas: the report
 * webhook's bodies carry `itemsPerInvocation` reports each, an MO webhook one message; every
 * stored item reaches publish-events as a stream record and leaves as one event (so the events
 * are its records per recipient), and every event-table write is a stream record (so the table's
 * writes are judged on the publishing path that reads them all).
 */
export const scaleLoads = (figures: ScaleFigures): PathLoad[] => {
  const row = (prefix: string) => figures.paths.find((path) => path.path.startsWith(prefix));
  const request = (prefix: string, webhook: boolean): PathLoad[] => {
    const found = row(prefix);
    if (!found) return [];
    return [
      {
        path: found.path,
        localCeiling: found.ceilingAtMaxConcurrency,
        demand: webhook ? { webhookRequests: 1 / found.itemsPerInvocation } : {},
      },
    ];
  };
  const streamPath = (prefix: string) =>
    figures.streams.find((stream) => stream.path.startsWith(prefix))?.path ?? prefix;
  return [
    ...request('sending', false),
    ...request('reports by webhook', true),
    ...request('report checks', false),
    ...request('inbound by webhook', true),
    {
      path: streamPath('publishing'),
      localCeiling: figures.publishing.ceilingRecipientsPerSecond,
      demand: {
        events: figures.publishing.streamRecordsPerRecipient,
        tableWrites: figures.eventTableWritesPerRecipient,
      },
    },
    {
      path: streamPath('attachments'),
      localCeiling: figures.attachments.ceilingRecipientsPerSecond,
      demand: {},
    },
  ];
};
