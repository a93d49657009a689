import type { SentRecipient, SimContext, SimResult } from './context.ts';
import { envelope, ok } from './context.ts';
import { formatGatewayDate } from './gateway-dates.ts';
import {
  DELIVERED,
  failuresFor,
  NETWORKS,
  type Outcome,
  pick,
  telcoFor,
  UNCERTAIN,
} from './report-outcomes.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';
import { postWebhookMaybeTwice } from './webhook-post.ts';
import * as z from './zod.ts';

/**
 * Delivery reports: outcome draw, polling (100 per page, 10 s after an empty poll, 120 s confirm
 * window, available reports expire after 81 h without a report request) and the report webhook
 * (same body again every 10 s for 72 h). With `reportOrder: 'shuffled'` reports leave out of
 * order within a page or body and across them (field notes: "Order is not guaranteed").
 *
 * Codes this module answers besides `10000` (simulator choices; the spec lists none):
 * - `29002` (HTTP 400): a poll came less than `minEmptyPollIntervalMs` after an empty poll.
 * - `21001` (HTTP 400): the confirm body is not `{ rptKeyLst: [rptKey, …] }` (at least one key);
 *   `21000` when it is not JSON (answered by the server).
 * - `21501` (HTTP 400): a confirmed `rptKey` was never issued.
 * - `21502` (HTTP 400): a confirmed `rptKey` was issued but its confirmation window has passed;
 *   its reports are available again under a new key.
 * Valid keys in the same request are confirmed even when another key is rejected; confirming a
 * key that is already confirmed succeeds again (a client may retry a confirm it lost).
 */
export const REPORT_CODES = {
  pollTooSoon: '29002',
  badConfirmBody: '21001',
  unknownReportKey: '21501',
  reportKeyLapsed: '21502',
} as const;

type FbReason = SimResult['fbReasonLst'][number];

/** A report item as polled (spec §2 Report item, plus one field the spec does not list). */
export interface PolledReportItem {
  readonly msgKey: string;
  readonly cliKey: string;
  readonly ch: string;
  readonly resultCode: string;
  readonly resultCodeDesc: string;
  /** `[]`, `null` or absent when nothing fell back (`fbReasonStyle`). */
  readonly fbReasonLst?: readonly FbReason[] | null;
  readonly telco: string;
  readonly rptDt: string;
  readonly productCode: string;
  /** Not in the spec: production items carry more fields than documented. */
  readonly resultNetwork: string;
}

/** A report item as posted to the report webhook. */
export interface WebhookReportItem extends PolledReportItem {
  readonly rptRegDt: string;
  readonly phone: string;
  readonly isBi: boolean;
  readonly recvDt: string;
  readonly userCustomFields?: Record<string, unknown>;
}

export interface ReportsSnapshot {
  readonly scheduled: number;
  readonly generated: number;
  /** Reports never handed out (`reportWithholdRate`): only the status query tells them. */
  readonly withheld: number;
  readonly delivered: number;
  readonly failed: number;
  readonly fellBack: number;
  readonly uncertain: number;
  readonly polling: {
    readonly available: number;
    readonly awaitingConfirm: number;
    readonly confirmed: number;
    readonly returnedUnconfirmed: number;
    readonly expired: number;
    readonly polls: number;
    readonly emptyPolls: number;
    readonly rejectedPolls: number;
  };
  readonly webhook: {
    readonly bodiesPending: number;
    readonly posts: number;
    readonly duplicatePosts: number;
    readonly bodiesDelivered: number;
    readonly retries: number;
    readonly bodiesDropped: number;
    readonly reportsDropped: number;
  };
}

export interface Reports {
  register(router: Router): void;
  onAccepted(recipient: SentRecipient): void;
  snapshot(): ReportsSnapshot;
}

/**
 * Body of `POST /msg/v1.2/report/result` (spec 01 §4.12: `rptKeyLst`, an array of report keys).
 * The spec names no other field and no upper bound; the simulator refuses other fields, an empty
 * list and empty keys (`21001`), and takes any number of keys.
 */
const ConfirmBodySchema = z.strictObject({
  rptKeyLst: z
    .array(z.string().check(z.minLength(1, 'a report key is empty')))
    .check(z.minLength(1, 'no report key to confirm')),
});

/** Fisher–Yates with the simulator's seeded draws: the same seed gives the same order. */
const shuffle = <T>(items: readonly T[], random: () => number): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const a = copy[i] as T;
    copy[i] = copy[j] as T;
    copy[j] = a;
  }
  return copy;
};

interface OutstandingKey {
  readonly items: readonly PolledReportItem[];
  readonly deadline: number;
}

interface WebhookBody {
  readonly text: string;
  readonly count: number;
  readonly firstAttemptAt: number;
}

/** Creates the reports module; the server wires `onAccepted` to the send endpoints. */
export const createReports = (ctx: SimContext): Reports => {
  const { options, clock, scheduler } = ctx;
  const formatDate = (instant: number, turn: number): string =>
    formatGatewayDate(instant, options.dateStyle, turn);
  const delivery = options.reportDelivery ?? (options.reportWebhookUrl ? 'webhook' : 'polling');
  const toPolling = delivery === 'polling' || delivery === 'both';
  const toWebhook = (delivery === 'webhook' || delivery === 'both') && !!options.reportWebhookUrl;
  if ((delivery === 'webhook' || delivery === 'both') && !options.reportWebhookUrl) {
    throw new Error(`reportDelivery '${delivery}' needs reportWebhookUrl`);
  }

  const counts = {
    scheduled: 0,
    generated: 0,
    withheld: 0,
    delivered: 0,
    failed: 0,
    fellBack: 0,
    uncertain: 0,
    confirmed: 0,
    returnedUnconfirmed: 0,
    expired: 0,
    polls: 0,
    emptyPolls: 0,
    rejectedPolls: 0,
    posts: 0,
    duplicatePosts: 0,
    bodiesDelivered: 0,
    retries: 0,
    bodiesDropped: 0,
    reportsDropped: 0,
  };
  let quirkTurn = 0;

  const shuffled = options.reportOrder === 'shuffled';

  // Polling state.
  let available: PolledReportItem[] = [];
  const outstanding = new Map<string, OutstandingKey>();
  const lapsedKeys = new Set<string>();
  const confirmedKeys = new Set<string>();
  let lastEmptyPollAt: number | undefined;
  /**
   * The last report request (`GET /msg/v1.2/report`, any answer but an authentication refusal).
   * Spec 01 §3: available reports expire when there has been no report request for 81 hours, so
   * the idle time counts from here, not from when a report became available. Before the first
   * poll it counts from the simulator's start (the account's first moment).
   */
  let lastReportRequestAt = clock.now();
  /** When the pending expiry sweep runs; one sweep at a time, moved on as polls come. */
  let sweepAt: number | undefined;
  let emptyTurn = 0;

  // Webhook state.
  let pendingWebhook: WebhookReportItem[] = [];
  let flushScheduled = false;
  let bodiesPending = 0;

  /** `at`: when the result was due, which a large clock jump may have passed already. */
  const drawResult = (
    recipient: SentRecipient,
    at: number,
  ): { result: SimResult; productCode: string } => {
    const channel = recipient.channel;
    const firstTelco = telcoFor(channel, recipient.phone);
    const messenger = channel === 'MSGR' || channel === 'BRAND';
    const done = (
      ch: string,
      outcome: Outcome,
      telco: string,
      fbReasonLst: FbReason[],
      productCode: string,
    ) => ({
      result: {
        ch,
        resultCode: outcome.code,
        resultCodeDesc: outcome.desc,
        telco,
        fbReasonLst,
        productCode,
        reportedAt: at,
      },
      productCode,
    });

    if (ctx.random() >= options.failureRate) {
      const uncertain = messenger && ctx.random() < options.uncertainRate;
      if (uncertain) counts.uncertain++;
      else counts.delivered++;
      return done(
        channel,
        uncertain ? UNCERTAIN : DELIVERED,
        firstTelco,
        [],
        recipient.productCode,
      );
    }
    const failure = pick(failuresFor(channel), ctx.random());
    const fallback = recipient.fallbacks[0];
    if (fallback && !recipient.isBi && ctx.random() < options.fallbackRate) {
      counts.fellBack++;
      counts.delivered++;
      const reason: FbReason = {
        ch: channel,
        fbResultCode: failure.code,
        fbResultDesc: failure.desc,
        telco: firstTelco,
      };
      return done(
        fallback.ch,
        DELIVERED,
        telcoFor(fallback.ch, recipient.phone),
        [reason],
        fallback.ch,
      );
    }
    counts.failed++;
    return done(channel, failure, firstTelco, [], recipient.productCode);
  };

  const buildItem = (
    recipient: SentRecipient,
    result: SimResult,
    productCode: string,
  ): WebhookReportItem => {
    const turn = quirkTurn++;
    // Production writes "no fallback" as `[]`, `null` or no field at all (field notes); `mixed`
    // rotates through the three by item, so every small batch shows each.
    const noFallback = options.fbReasonStyle === 'list' ? 0 : turn % 3;
    const fbReasonLst =
      result.fbReasonLst.length > 0
        ? { fbReasonLst: result.fbReasonLst }
        : noFallback === 0
          ? { fbReasonLst: [] }
          : noFallback === 1
            ? { fbReasonLst: null }
            : {};
    const item: WebhookReportItem = {
      msgKey: recipient.msgKey,
      cliKey: recipient.cliKey,
      ch: result.ch,
      resultCode: result.resultCode,
      resultCodeDesc: result.resultCodeDesc,
      ...fbReasonLst,
      telco: result.telco,
      rptDt: formatDate(result.reportedAt, turn),
      productCode,
      resultNetwork: pick(NETWORKS, (turn % 4) / 4),
      rptRegDt: formatDate(result.reportedAt, turn + 1),
      phone: recipient.phone ?? '',
      isBi: recipient.isBi,
      recvDt: formatDate(recipient.requestedAt, turn + 2),
    };
    return recipient.userCustomFields
      ? { ...item, userCustomFields: recipient.userCustomFields }
      : item;
  };

  const polledItem = (item: WebhookReportItem): PolledReportItem => ({
    msgKey: item.msgKey,
    cliKey: item.cliKey,
    ch: item.ch,
    resultCode: item.resultCode,
    resultCodeDesc: item.resultCodeDesc,
    ...('fbReasonLst' in item ? { fbReasonLst: item.fbReasonLst } : {}),
    telco: item.telco,
    rptDt: item.rptDt,
    productCode: item.productCode,
    resultNetwork: item.resultNetwork,
  });

  const finish = (recipient: SentRecipient, at: number): void => {
    const { result, productCode } = drawResult(recipient, at);
    recipient.status = 'DONE';
    recipient.result = result;
    counts.generated++;
    const item = buildItem(recipient, result, productCode);
    if (ctx.faults.reportWithholdRate > 0 && ctx.random() < ctx.faults.reportWithholdRate) {
      counts.withheld++;
      ctx.log(`report ${recipient.msgKey} ${result.ch} ${result.resultCode} withheld`);
      return;
    }
    ctx.log(`report ${recipient.msgKey} ${result.ch} ${result.resultCode}`);
    if (toPolling) makeAvailable([polledItem(item)], 'end');
    if (toWebhook) enqueueWebhook(item);
  };

  // ---- polling ----

  const makeAvailable = (items: readonly PolledReportItem[], where: 'start' | 'end'): void => {
    available = where === 'start' ? [...items, ...available] : [...available, ...items];
    armSweep();
  };

  /**
   * Every available report goes once `pollExpiryMs` passed without a report request; a report
   * that becomes available after that point, with still no request, goes at once (the account's
   * poller counts as gone until it polls again). Reports handed out and awaiting confirmation are
   * not available and stay until their window ends.
   */
  const sweepExpired = (): void => {
    if (available.length === 0 || clock.now() < lastReportRequestAt + options.pollExpiryMs) return;
    counts.expired += available.length;
    ctx.log(
      `${available.length} reports expired: no report request for ${options.pollExpiryMs} ms`,
    );
    available = [];
  };

  const armSweep = (): void => {
    if (sweepAt !== undefined || available.length === 0) return;
    const at = lastReportRequestAt + options.pollExpiryMs;
    sweepAt = at;
    scheduler.at(at, () => {
      sweepAt = undefined;
      sweepExpired();
      // A poll since arming moved the point on: wait for the new one.
      armSweep();
    });
  };

  const lapse = (rptKey: string): void => {
    const key = outstanding.get(rptKey);
    if (!key) return;
    outstanding.delete(rptKey);
    lapsedKeys.add(rptKey);
    counts.returnedUnconfirmed += key.items.length;
    makeAvailable(key.items, 'start');
  };

  const lapseOverdue = (): void => {
    const now = clock.now();
    for (const [rptKey, key] of outstanding) if (key.deadline <= now) lapse(rptKey);
  };

  /**
   * The `data` of an empty poll (field notes: "`data` null or `rptCnt` 0"). `zero` answers an
   * empty page, every other one with `rptKey: null` and the rest without the field (a key that
   * names nothing is not confirmable); `mixed` draws between the two shapes per poll.
   */
  const emptyPage = (): { rptKey?: null; rptCnt: 0; rptLst: [] } | null => {
    const style =
      options.emptyPollStyle === 'mixed'
        ? ctx.random() < 0.5
          ? 'null'
          : 'zero'
        : options.emptyPollStyle;
    if (style === 'null') return null;
    return emptyTurn++ % 2 === 0
      ? { rptCnt: 0, rptLst: [] }
      : { rptKey: null, rptCnt: 0, rptLst: [] };
  };

  const poll = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    const now = clock.now();
    lapseOverdue();
    sweepExpired();
    // Any report request restarts the 81 h idle time, a refused or empty one too.
    lastReportRequestAt = now;
    armSweep();
    if (lastEmptyPollAt !== undefined && now - lastEmptyPollAt < options.minEmptyPollIntervalMs) {
      counts.rejectedPolls++;
      const waitMs = lastEmptyPollAt + options.minEmptyPollIntervalMs - now;
      return envelope(
        REPORT_CODES.pollTooSoon,
        `Rate limit exceeded: the previous report poll found no reports; wait ${options.minEmptyPollIntervalMs / 1000} s after an empty poll (${Math.ceil(waitMs / 1000)} s left)`,
        undefined,
        400,
      );
    }
    counts.polls++;
    if (available.length === 0) {
      counts.emptyPolls++;
      lastEmptyPollAt = now;
      return ok(emptyPage());
    }
    lastEmptyPollAt = undefined;
    const page = available.slice(0, options.reportBatchSize);
    available = available.slice(page.length);
    const rptKey = ctx.nextId('rpt');
    const items = shuffled ? shuffle(page, ctx.random) : page;
    const deadline = now + options.confirmWindowMs;
    outstanding.set(rptKey, { items, deadline });
    scheduler.at(deadline, () => lapse(rptKey));
    return ok({ rptKey, rptCnt: items.length, rptLst: items });
  };

  const confirm = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    // Malformed JSON throws here and the server answers `21000`.
    const parsed = ConfirmBodySchema.safeParse(request.json());
    if (!parsed.success) {
      return envelope(
        REPORT_CODES.badConfirmBody,
        `rptKeyLst: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        undefined,
        400,
      );
    }
    const keys = parsed.data.rptKeyLst;
    const now = clock.now();
    const unknown: string[] = [];
    const lapsed: string[] = [];
    for (const rptKey of keys) {
      const key = outstanding.get(rptKey);
      if (key && key.deadline > now) {
        outstanding.delete(rptKey);
        confirmedKeys.add(rptKey);
        counts.confirmed += key.items.length;
      } else if (key) {
        lapse(rptKey);
        lapsed.push(rptKey);
      } else if (lapsedKeys.has(rptKey)) {
        lapsed.push(rptKey);
      } else if (!confirmedKeys.has(rptKey)) {
        unknown.push(rptKey);
      }
    }
    if (lapsed.length > 0) {
      return envelope(
        REPORT_CODES.reportKeyLapsed,
        `Report key confirmed after the ${options.confirmWindowMs / 1000} s window; its reports will be delivered again under a new key: ${lapsed.join(', ')}`,
        undefined,
        400,
      );
    }
    if (unknown.length > 0) {
      return envelope(
        REPORT_CODES.unknownReportKey,
        `Unknown report key: ${unknown.join(', ')}`,
        undefined,
        400,
      );
    }
    return ok();
  };

  // ---- webhook ----

  const enqueueWebhook = (item: WebhookReportItem): void => {
    pendingWebhook.push(item);
    if (flushScheduled) return;
    flushScheduled = true;
    // Runs after every task of the current scheduler pass, so reports ready together share a body.
    scheduler.at(clock.now(), flushWebhook);
  };

  const flushWebhook = async (): Promise<void> => {
    flushScheduled = false;
    // Production gives no order within a body or across bodies (field notes).
    const items = shuffled ? shuffle(pendingWebhook, ctx.random) : pendingWebhook;
    pendingWebhook = [];
    const bodies: WebhookBody[] = [];
    for (let i = 0; i < items.length; i += options.reportBatchSize) {
      const chunk = items.slice(i, i + options.reportBatchSize);
      bodies.push({
        text: JSON.stringify({ rptCnt: chunk.length, rptLst: chunk }),
        count: chunk.length,
        firstAttemptAt: clock.now(),
      });
    }
    bodiesPending += bodies.length;
    await Promise.all(bodies.map(attemptWebhook));
  };

  const dropBody = (body: WebhookBody, why: string): void => {
    bodiesPending--;
    counts.bodiesDropped++;
    counts.reportsDropped += body.count;
    ctx.log(`report webhook body of ${body.count} dropped: ${why}`);
  };

  const attemptWebhook = async (body: WebhookBody): Promise<void> => {
    const url = options.reportWebhookUrl;
    if (url === undefined) return;
    const retentionEnd = body.firstAttemptAt + options.webhookRetentionMs;
    if (clock.now() > retentionEnd) return dropBody(body, 'retention passed');
    counts.posts++;
    const { attempt, duplicated } = await postWebhookMaybeTwice(ctx, url, body.text);
    if (duplicated) counts.duplicatePosts++;
    if (attempt.kind === 'answered' && (attempt.status === 200 || attempt.status === 204)) {
      bodiesPending--;
      counts.bodiesDelivered++;
      ctx.log(`report webhook ${attempt.status}: ${body.count} reports delivered`);
      return;
    }
    const why = attempt.kind === 'answered' ? `HTTP ${attempt.status}` : attempt.error;
    const next = clock.now() + options.webhookRetryIntervalMs;
    if (next > retentionEnd) return dropBody(body, `${why}; retention passed`);
    ctx.log(`report webhook failed (${why}); again in ${options.webhookRetryIntervalMs} ms`);
    counts.retries++;
    scheduler.at(next, () => attemptWebhook(body));
  };

  return {
    register(router) {
      router.add('GET', '/msg/v1.2/report', poll);
      router.add('POST', '/msg/v1.2/report/result', confirm);
    },
    onAccepted(recipient) {
      counts.scheduled++;
      scheduler.at(recipient.deliverAt, () => {
        if (recipient.status === 'REG') recipient.status = 'ING';
      });
      // Shuffled: each report takes between half of `reportDelayMs` and all of it, so reports of
      // one send (and of sends close together) become ready in an order other than the send
      // order, and leave on different pages or bodies; every report is still ready by
      // `reportDelayMs`.
      const jitter = shuffled ? Math.floor(ctx.random() * (options.reportDelayMs / 2)) : 0;
      const at = recipient.deliverAt + options.reportDelayMs - jitter;
      scheduler.at(at, () => finish(recipient, at));
    },
    snapshot() {
      let awaitingConfirm = 0;
      for (const key of outstanding.values()) awaitingConfirm += key.items.length;
      return {
        scheduled: counts.scheduled,
        generated: counts.generated,
        withheld: counts.withheld,
        delivered: counts.delivered,
        failed: counts.failed,
        fellBack: counts.fellBack,
        uncertain: counts.uncertain,
        polling: {
          available: available.length,
          awaitingConfirm,
          confirmed: counts.confirmed,
          returnedUnconfirmed: counts.returnedUnconfirmed,
          expired: counts.expired,
          polls: counts.polls,
          emptyPolls: counts.emptyPolls,
          rejectedPolls: counts.rejectedPolls,
        },
        webhook: {
          bodiesPending,
          posts: counts.posts,
          duplicatePosts: counts.duplicatePosts,
          bodiesDelivered: counts.bodiesDelivered,
          retries: counts.retries,
          bodiesDropped: counts.bodiesDropped,
          reportsDropped: counts.reportsDropped,
        },
      };
    },
  };
};
