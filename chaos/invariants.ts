/**
 * The invariants of the chaos run, checked from outside the bridge: from the gateway simulator's
 * own ledger (what it accepted per cliKey, which reports it produced) and from what reached the
 * bus. Nothing here asks the bridge what it thinks happened.
 */
import type { BusEntry } from '../functions/events/store-ports.ts';
import type { Workload } from './workload.ts';

export interface Detail {
  readonly metadata: {
    readonly id: string;
    readonly type: string;
    readonly idempotencyKey: string;
  };
  readonly data: Record<string, unknown>;
}

/** What the simulator says it did, read from its ledger. */
export interface GatewayLedger {
  /** Every acceptance in order, with the report if it exists yet. */
  readonly acceptances: ReadonlyArray<{
    readonly cliKey: string;
    readonly msgKey: string;
    readonly requestedAt: number;
    readonly deliverAt: number;
    readonly reported: boolean;
  }>;
  readonly tpsQuota: number;
  /** Send calls the gateway refused because their recipients would have exceeded the quota. */
  readonly quotaRefusals: number;
  /** MO items the simulator made, with their attachment counts. */
  readonly mo: ReadonlyArray<{ readonly moKey: string; readonly attachments: number }>;
}

/** One broken promise, named precisely enough to find its cause. */
export interface Violation {
  readonly invariant:
    | 'lost'
    | 'duplicated'
    | 'sent twice'
    | 'misreported'
    | 'quota exceeded'
    | 'refused as temporary'
    | 'unexpected';
  readonly item: string;
  readonly detail: string;
}

export interface Verdict {
  readonly lost: number;
  readonly duplicated: number;
  /** Duplicates only of events put in a PutEvents call whose Lambda was killed before it returned. */
  readonly unavoidable: number;
  readonly misreported: number;
  readonly sentTwice: number;
  readonly quotaExceeded: number;
  readonly refusedAsTemporary: number;
  readonly violations: readonly Violation[];
  readonly expected: Readonly<Record<string, number>>;
  readonly eventsByType: Readonly<Record<string, number>>;
}

/** How each hostile body was last answered (status code), or undefined if never answered. */
export type HostileAnswers = ReadonlyMap<string, number | undefined>;

const SEND_OUTCOME_TYPES = new Set(['Message Accepted', 'Message Rejected', 'Message Scheduled']);

export const checkInvariants = (input: {
  readonly workload: Workload;
  readonly ledger: GatewayLedger;
  readonly entries: readonly BusEntry[];
  readonly unavoidable: ReadonlySet<string>;
  readonly hostileAnswers: HostileAnswers;
  /** Whether the bridge publishes "Message Accepted" (`sending.acceptedEvents`). */
  readonly acceptedEvents: boolean;
}): Verdict => {
  const { workload, ledger, unavoidable } = input;
  const violations: Violation[] = [];
  const details: Detail[] = input.entries.map((entry) => JSON.parse(entry.Detail) as Detail);
  const eventsByType: Record<string, number> = {};
  for (const detail of details)
    eventsByType[detail.metadata.type] = (eventsByType[detail.metadata.type] ?? 0) + 1;

  // 1. No event twice: every metadata.id once, except the documented unavoidable case.
  let lost = 0;
  let duplicated = 0;
  let unavoidableCount = 0;
  const byId = new Map<string, Detail[]>();
  for (const detail of details) {
    const list = byId.get(detail.metadata.id) ?? [];
    list.push(detail);
    byId.set(detail.metadata.id, list);
  }
  for (const [id, list] of byId) {
    if (list.length < 2) continue;
    if (unavoidable.has(id)) {
      unavoidableCount += list.length - 1;
      continue;
    }
    duplicated += list.length - 1;
    violations.push({
      invariant: 'duplicated',
      item: list[0]?.metadata.idempotencyKey ?? id,
      detail: `${list.length} events with metadata.id ${id} (${list[0]?.metadata.type})`,
    });
  }

  // Distinct events (by id) per item key: two ids for one fact is a duplicate too.
  const distinct = [...byId.values()].map((list) => list[0] as Detail);
  const index = (type: (t: string) => boolean, key: (d: Detail) => string | undefined) => {
    const map = new Map<string, Detail[]>();
    for (const detail of distinct) {
      if (!type(detail.metadata.type)) continue;
      const k = key(detail);
      if (k === undefined) continue;
      const list = map.get(k) ?? [];
      list.push(detail);
      map.set(k, list);
    }
    return map;
  };
  const exactlyOne = (
    kind: string,
    keys: Iterable<string>,
    found: Map<string, Detail[]>,
    onLost?: (key: string) => boolean,
  ): number => {
    let count = 0;
    for (const key of keys) {
      count += 1;
      const list = found.get(key) ?? [];
      if (list.length === 0) {
        if (onLost?.(key)) continue;
        lost += 1;
        violations.push({ invariant: 'lost', item: `${kind} ${key}`, detail: 'no event' });
      } else if (list.length > 1) {
        duplicated += list.length - 1;
        violations.push({
          invariant: 'duplicated',
          item: `${kind} ${key}`,
          detail: `${list.length} distinct events: ${list.map((d) => `${d.metadata.type} ${d.metadata.idempotencyKey}`).join('; ')}`,
        });
      }
    }
    return count;
  };

  // 2. Sends: every cliKey one outcome event (without "Message Accepted" events, every cliKey the
  //    gateway did not accept, or scheduled: an accepted one is known by its report, below, and
  //    must have no outcome event at all); the gateway accepted each at most once; an accepted
  //    cliKey is never reported as rejected; the quota held in every second.
  const acceptedBy = new Map<string, number>();
  for (const acceptance of ledger.acceptances)
    acceptedBy.set(acceptance.cliKey, (acceptedBy.get(acceptance.cliKey) ?? 0) + 1);
  const workloadKeys = new Set(workload.cliKeys);
  let sentTwice = 0;
  for (const [cliKey, times] of acceptedBy) {
    if (times > 1) {
      sentTwice += times - 1;
      violations.push({
        invariant: 'sent twice',
        item: `cliKey ${cliKey}`,
        detail: `accepted ${times} times by the gateway`,
      });
    }
    if (!workloadKeys.has(cliKey)) {
      violations.push({
        invariant: 'unexpected',
        item: `cliKey ${cliKey}`,
        detail: 'accepted, never sent',
      });
    }
  }
  const outcomes = index(
    (type) => SEND_OUTCOME_TYPES.has(type),
    (d) =>
      d.metadata.idempotencyKey.startsWith('send:')
        ? d.metadata.idempotencyKey.slice(5)
        : undefined,
  );
  const decidedByEvent = input.acceptedEvents
    ? workload.cliKeys
    : workload.cliKeys.filter(
        (cliKey) => !acceptedBy.has(cliKey) || workload.scheduledCliKeys.has(cliKey),
      );
  const sends = exactlyOne('send', decidedByEvent, outcomes);
  // A scheduled recipient always ends with an outcome event: "Message Scheduled", or "Message
  // Accepted" (already accepted) when a resend met the registration of an attempt that died.
  if (!input.acceptedEvents)
    for (const [cliKey, list] of outcomes) {
      const accepted = list.filter((d) => d.metadata.type === 'Message Accepted');
      if (workload.scheduledCliKeys.has(cliKey)) continue;
      if (accepted.length > 0 || (acceptedBy.has(cliKey) && !decidedByEvent.includes(cliKey)))
        violations.push({
          invariant: 'unexpected',
          item: `cliKey ${cliKey}`,
          detail: `an outcome event (${list.map((d) => d.metadata.type).join(', ')}) for a recipient the gateway accepted, with "Message Accepted" off`,
        });
    }
  let misreported = 0;
  for (const cliKey of workload.cliKeys) {
    const outcome = outcomes.get(cliKey)?.[0];
    if (outcome?.metadata.type === 'Message Rejected' && acceptedBy.has(cliKey)) {
      misreported += 1;
      violations.push({
        invariant: 'misreported',
        item: `cliKey ${cliKey}`,
        detail: `the gateway accepted it; the event says Message Rejected (${String(outcome.data.resultCode ?? outcome.data.code ?? '')})`,
      });
    }
  }
  const perSecond = new Map<number, number>();
  for (const acceptance of ledger.acceptances) {
    const second = Math.floor(acceptance.requestedAt / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  let quotaExceeded = 0;
  for (const [second, count] of perSecond) {
    if (count <= ledger.tpsQuota) continue;
    quotaExceeded += 1;
    violations.push({
      invariant: 'quota exceeded',
      item: `second ${new Date(second * 1000).toISOString()}`,
      detail: `${count} recipients accepted, quota ${ledger.tpsQuota}`,
    });
  }
  // The gateway enforces its quota by refusing: a refusal means the bridge asked for more.
  if (ledger.quotaRefusals > 0) {
    quotaExceeded += ledger.quotaRefusals;
    violations.push({
      invariant: 'quota exceeded',
      item: 'send calls',
      detail: `${ledger.quotaRefusals} refused 29002 for going over the quota of ${ledger.tpsQuota} per second`,
    });
  }

  // 3. Reports: every report the gateway produced (and every valid report item posted straight
  //    to the route) is exactly one delivery event.
  const reports = index(
    (type) => type === 'Delivery Report Received',
    (d) => (typeof d.data.msgKey === 'string' ? d.data.msgKey : undefined),
  );
  const reported = ledger.acceptances.filter((a) => a.reported).map((a) => a.msgKey);
  const hostileReportKeys = workload.hostile
    .filter((body) => body.route === 'report' && !body.refused)
    .flatMap((body) => body.itemKeys);
  const reportCount = exactlyOne('report', [...reported, ...hostileReportKeys], reports);

  // 4. Inbound messages and their attachments.
  const inbound = index(
    (type) => type === 'Inbound Message Received',
    (d) => (typeof d.data.moKey === 'string' ? d.data.moKey : undefined),
  );
  const hostileMoKeys = workload.hostile
    .filter((body) => body.route === 'mo' && !body.refused)
    .flatMap((body) => body.itemKeys);
  const moCount = exactlyOne('mo', [...ledger.mo.map((m) => m.moKey), ...hostileMoKeys], inbound);
  const files = index(
    (type) => type === 'Inbound Attachment Stored' || type === 'Inbound Attachment Lost',
    (d) => `${String(d.data.moKey)}#${String(d.data.index)}`,
  );
  const attachmentKeys = ledger.mo.flatMap((m) =>
    Array.from({ length: m.attachments }, (_, i) => `${m.moKey}#${i}`),
  );
  const attachmentCount = exactlyOne('attachment', attachmentKeys, files);

  // 5. Hostile bodies: each unreadable part one quarantine event; nothing refused as temporary.
  let refusedAsTemporary = 0;
  let quarantineExpected = 0;
  for (const body of workload.hostile) {
    const answer = input.hostileAnswers.get(body.sha256);
    if (body.refused) {
      if (answer !== 413) {
        violations.push({
          invariant: 'unexpected',
          item: `hostile ${body.label}`,
          detail: `answered ${answer ?? 'nothing'}, expected 413`,
        });
      }
      continue;
    }
    if (answer === undefined || !isFinalAnswer(body.route, answer)) {
      refusedAsTemporary += 1;
      violations.push({
        invariant: 'refused as temporary',
        item: `hostile ${body.route} ${body.label}`,
        detail: `last answer ${answer ?? 'none'} after every attempt`,
      });
    }
    quarantineExpected += body.quarantined;
    const naming = distinct.filter(
      (d) =>
        (d.metadata.idempotencyKey.startsWith('quarantine:') ||
          d.metadata.idempotencyKey.startsWith('unrecognised:')) &&
        d.metadata.idempotencyKey.includes(body.sha256),
    );
    if (naming.length < body.quarantined) {
      lost += body.quarantined - naming.length;
      violations.push({
        invariant: 'lost',
        item: `hostile ${body.route} ${body.label}`,
        detail: `${naming.length} quarantine events, expected ${body.quarantined}`,
      });
    } else if (naming.length > body.quarantined) {
      duplicated += naming.length - body.quarantined;
      violations.push({
        invariant: 'duplicated',
        item: `hostile ${body.route} ${body.label}`,
        detail: `${naming.length} quarantine events, expected ${body.quarantined}: ${naming.map((d) => d.metadata.idempotencyKey).join('; ')}`,
      });
    }
  }

  return {
    lost,
    duplicated,
    unavoidable: unavoidableCount,
    misreported,
    sentTwice,
    quotaExceeded,
    refusedAsTemporary,
    violations,
    expected: {
      sends,
      reports: reportCount,
      inbound: moCount,
      attachments: attachmentCount,
      quarantined: quarantineExpected,
    },
    eventsByType,
  };
};

/** 2xx is final for both routes; a report 4xx other than 400 is a final refusal too. */
const isFinalAnswer = (route: 'report' | 'mo', status: number): boolean =>
  (status >= 200 && status < 300) || (route === 'report' && status >= 401 && status < 500);

/** True when every promise holds (the documented unavoidable duplicates aside). */
export const holds = (verdict: Verdict): boolean =>
  verdict.lost === 0 &&
  verdict.duplicated === 0 &&
  verdict.misreported === 0 &&
  verdict.sentTwice === 0 &&
  verdict.quotaExceeded === 0 &&
  verdict.refusedAsTemporary === 0 &&
  verdict.violations.every((v) => v.invariant !== 'unexpected');
