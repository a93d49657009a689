/**
 * The invariants of the chaos run, checked from outside the bridge: from the gateway simulator's
 * own ledger (what it accepted per cliKey, which reports it produced) and from what reached the
 * bus. Nothing here asks the bridge what it thinks happened.
 */
import type { BusEntry } from '../functions/publishing/ports.ts';
import { entrySize, PUT_EVENTS_MAX_BYTES } from '../local/aws/json-services.ts';
import type { BadSend, Workload } from './workload.ts';

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
    /** The recipient's number as the gateway received it (absent for a push without one). */
    readonly phone?: string;
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

/** A bad send as the run queued it: the SQS message ids its Send Rejected is found by. */
export interface QueuedBadSend {
  readonly kind: BadSend['kind'];
  readonly sqsMessageId: string;
  /** UTF-8 bytes of the body. */
  readonly bytes: number;
  readonly cliKeys: readonly string[];
  /** A reused cliKey: the first message's SQS message id, and each message's phone per cliKey. */
  readonly reuse?: {
    readonly cliKey: string;
    readonly firstSqsMessageId: string;
    readonly firstPhones: Readonly<Record<string, string>>;
    readonly phones: Readonly<Record<string, string>>;
  };
}

/**
 * The sender's budget for a DynamoDB item (ITEM_BUDGET_BYTES, about 300 KiB of the 400 KB): a
 * rejected body over it is kept in the payload bucket. Written here from the limit, so that a
 * sender that stored a larger body inline would show.
 */
const ITEM_BYTES = 400_000;

/** One broken promise, named precisely enough to find its cause. */
export interface Violation {
  readonly invariant:
    | 'lost'
    | 'duplicated'
    | 'sent twice'
    | 'misreported'
    | 'quota exceeded'
    | 'refused as temporary'
    | 'too big for the bus'
    | 'misattributed'
    | 'bad send sent'
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
  /** Bad queue messages (oversized, nested, reused cliKey), and those with exactly one Send Rejected. */
  readonly badSends: number;
  readonly rejectedOnce: number;
  /** Send Rejected events over EventBridge's 256 KiB, and the size of the largest (bytes). */
  readonly tooBigForBus: number;
  readonly largestSendRejected: number;
  /** Rejections that name the wrong first message, both of a pair rejected, a big body not kept. */
  readonly misattributed: number;
  /** Bad messages the gateway received: a cliKey of an invalid one, a reuse's phone. */
  readonly badSent: number;
  /** Reuse pairs where the later message's claim came first (it is sent, the first rejected). */
  readonly laterWon: number;
  /** Each reuse pair: which of the two was sent (the other rejected), for the run's report. */
  readonly reuses: ReadonlyArray<{
    readonly cliKey: string;
    readonly first: string;
    readonly reuse: string;
    readonly sent: 'first' | 'later' | 'undecided';
  }>;
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
  /** The workload's bad sends, as queued. */
  readonly badSends: readonly QueuedBadSend[];
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

  // 6. Bad sends: each one "Send Rejected" on the bus, found by its SQS message id, within the
  //    bus's 256 KiB, never sent. Of a message reusing a cliKey with other content and its first,
  //    the one whose claim came second is rejected, naming the other, whose content alone the
  //    gateway received.
  let tooBigForBus = 0;
  let largestSendRejected = 0;
  input.entries.forEach((entry, at) => {
    if (entry.DetailType !== 'Send Rejected') return;
    const size = entrySize(entry as unknown as Record<string, unknown>);
    largestSendRejected = Math.max(largestSendRejected, size);
    if (size <= PUT_EVENTS_MAX_BYTES) return;
    tooBigForBus += 1;
    violations.push({
      invariant: 'too big for the bus',
      item: `Send Rejected ${String(details[at]?.data.sqsMessageId)}`,
      detail: `${size} bytes, over ${PUT_EVENTS_MAX_BYTES}`,
    });
  });
  const rejections = index(
    (type) => type === 'Send Rejected',
    (d) => (typeof d.data.sqsMessageId === 'string' ? d.data.sqsMessageId : undefined),
  );
  const acceptancesOf = new Map<string, GatewayLedger['acceptances'][number][]>();
  for (const acceptance of ledger.acceptances) {
    const list = acceptancesOf.get(acceptance.cliKey) ?? [];
    list.push(acceptance);
    acceptancesOf.set(acceptance.cliKey, list);
  }
  let rejectedOnce = 0;
  let misattributed = 0;
  let badSent = 0;
  let laterWon = 0;
  const reuses: Verdict['reuses'][number][] = [];
  for (const bad of input.badSends) {
    const item = bad.reuse
      ? `rejection reused ${bad.sqsMessageId} of ${bad.reuse.firstSqsMessageId}`
      : `rejection ${bad.kind} ${bad.sqsMessageId}`;
    const own = rejections.get(bad.sqsMessageId) ?? [];
    const ofFirst = bad.reuse ? (rejections.get(bad.reuse.firstSqsMessageId) ?? []) : [];
    const all = [...own, ...ofFirst];
    if (all.length === 0) {
      lost += 1;
      violations.push({ invariant: 'lost', item, detail: 'no Send Rejected event' });
    } else if (own.length > 1 || ofFirst.length > 1) {
      duplicated += all.length - 1;
      violations.push({
        invariant: 'duplicated',
        item,
        detail: `${all.length} distinct Send Rejected events: ${all.map((d) => d.metadata.idempotencyKey).join('; ')}`,
      });
    } else if (all.length === 2) {
      misattributed += 1;
      violations.push({
        invariant: 'misattributed',
        item,
        detail: 'both the first message and its reuse were rejected: nobody sent it',
      });
    } else rejectedOnce += 1;
    const event = all[0];
    if (!bad.reuse) {
      for (const cliKey of bad.cliKeys)
        if (acceptancesOf.has(cliKey)) {
          badSent += 1;
          violations.push({
            invariant: 'bad send sent',
            item,
            detail: `the gateway accepted its cliKey ${cliKey}`,
          });
        }
      if (event && bad.bytes > ITEM_BYTES && event.data.payloadRef === undefined) {
        misattributed += 1;
        violations.push({
          invariant: 'misattributed',
          item,
          detail: `a body of ${bad.bytes} bytes, over an item's 400 KB, and the event has no payloadRef`,
        });
      }
      continue;
    }
    const pair = {
      cliKey: bad.reuse.cliKey,
      first: bad.reuse.firstSqsMessageId,
      reuse: bad.sqsMessageId,
    };
    if (all.length !== 1 || !event) {
      reuses.push({ ...pair, sent: 'undecided' });
      continue;
    }
    // The rejected one names the other; the gateway got the other's phones.
    const firstWon = own.length === 1;
    if (!firstWon) laterWon += 1;
    reuses.push({ ...pair, sent: firstWon ? 'first' : 'later' });
    const winner = firstWon ? bad.reuse.firstSqsMessageId : bad.sqsMessageId;
    const named = event.data.reusedCliKey as
      | { cliKey?: unknown; sqsMessageId?: unknown }
      | undefined;
    if (named?.cliKey !== bad.reuse.cliKey || named.sqsMessageId !== winner) {
      misattributed += 1;
      violations.push({
        invariant: 'misattributed',
        item,
        detail: `reusedCliKey ${JSON.stringify(named)}, expected { cliKey: ${bad.reuse.cliKey}, sqsMessageId: ${winner} }`,
      });
    }
    const phones = firstWon ? bad.reuse.firstPhones : bad.reuse.phones;
    for (const cliKey of bad.cliKeys)
      for (const acceptance of acceptancesOf.get(cliKey) ?? [])
        if (acceptance.phone !== phones[cliKey]) {
          badSent += 1;
          violations.push({
            invariant: 'bad send sent',
            item,
            detail: `the gateway got cliKey ${cliKey} for ${acceptance.phone ?? 'no phone'}; the message sent (${winner}) has ${phones[cliKey]}`,
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
    badSends: input.badSends.length,
    rejectedOnce,
    tooBigForBus,
    largestSendRejected,
    misattributed,
    badSent,
    laterWon,
    reuses,
    violations,
    expected: {
      sends,
      reports: reportCount,
      inbound: moCount,
      attachments: attachmentCount,
      quarantined: quarantineExpected,
      rejections: input.badSends.length,
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
  verdict.tooBigForBus === 0 &&
  verdict.misattributed === 0 &&
  verdict.badSent === 0 &&
  verdict.violations.every((v) => v.invariant !== 'unexpected');
