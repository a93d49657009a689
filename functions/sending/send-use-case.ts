import { randomUUID } from 'node:crypto';
import { GatewayRequestInvalidError, type SendOutcome } from '../../gateway/client.ts';
import {
  classifyCode,
  GatewayDuplicateError,
  GatewayError,
  GatewayRejectedError,
  GatewayResponseError,
  GatewayTransportError,
} from '../../gateway/errors.ts';
import { parsePartitionKey } from '../commons/table-keys.ts';
import type { SendMessage } from '../send-contract/queue-message.ts';
import { parseSendMessage } from '../send-contract/queue-message-parsing.ts';
import { recipientsOf, withRecipients } from '../send-contract/queue-message-recipients.ts';
import {
  acceptedRecipient,
  acceptedRecord,
  parseJsonResult,
  type OutcomeContext as RecordContext,
  rejectedRecord,
  scheduledRecord,
} from '../send-records/outcome-records.ts';
import type {
  AcceptedRecipient,
  ClaimEnd,
  RecipientResult,
  SendRecordKey,
} from '../send-records/ports.ts';
import { messageFingerprint, sendRecordKey } from '../send-records/send-record.ts';
import type { QueueDelivery, SendDeps, SendResult } from './ports.ts';
import { type Acquisition, RateLimitWaitExceededError } from './rate-limiter.ts';
import { rejectMessage } from './reject-message.ts';

/** One queue message's attempt: what its outcome records share, with the use case's ports. */
interface SendContext extends RecordContext {
  readonly delivery: QueueDelivery;
  readonly deps: SendDeps;
  /** Requests this attempt let go to the gateway (each with its quota): any may have been accepted. */
  readonly sent: { requests: number };
  /**
   * The recipients the gateway may already have without this attempt knowing it: taken over from
   * an attempt that died undecided, or sent by a request whose answer did not say (no answer, an
   * unreadable one, no item for them, a duplicate-key answer naming none). A refusal of their
   * resend proves nothing, so it is never published as a rejection, and while one of them is
   * undecided the attempt gives its claim back marked as maybe sent (`SendStore.release`): the
   * next delivery takes it over and keeps distrusting.
   */
  readonly uncertain: Set<string>;
}

/**
 * Sends one queue message through the gateway, at most once per recipient.
 *
 * Input: the queue delivery. Output: `done`, `invalid` (a "send rejected" event was stored; do not
 * retry) or `retry` (some recipients failed retryably; deliver the message again later — the
 * recipients already decided are skipped then).
 *
 * Primary course: validate; claim the message's send record (one write; the claim's owner is
 * unique to this attempt, so two invocations given the same message can never both hold it); skip
 * the recipients already decided (the record lists the accepted ones, outcome items the others);
 * call the gateway once with the rest, taking their share of the TPS quota immediately before the
 * request goes out; record the outcomes: rejected and scheduled recipients as events, accepted ones
 * queued for reconcile-status' report check and listed on the record in one write that also gives
 * the claim back (each also a "Message Accepted" event where `deps.acceptedEvents` is on).
 *
 * Alternative courses: on the last delivery, a recipient whose answer was lost (timeout, broken
 * connection, unreadable answer, HTTP 5xx, or no item for it) is recorded as an unknown outcome,
 * not as a rejection: the gateway may have accepted it, and `reconcile-status` asks. A
 * duplicate-key answer to a whole request of several recipients (a scheduled send has no
 * per-recipient list) does not say which of them the gateway already had: each is then sent alone,
 * with its own share of the quota.
 */
export const sendQueuedMessage = async (
  delivery: QueueDelivery,
  deps: SendDeps,
): Promise<SendResult> => {
  const receivedAt = deps.now();
  const json = parseJsonResult(delivery.body);
  const parsed = json.ok
    ? parseSendMessage(json.value, { now: delivery.sentAt })
    : {
        ok: false as const,
        problems: [{ path: '$', message: `the message body is not JSON: ${json.reason}` }],
      };
  if (!parsed.ok) {
    await rejectMessage(delivery, parsed.problems, receivedAt, deps);
    return { kind: 'invalid', problems: parsed.problems.length };
  }
  const message = parsed.message;
  const recipients = recipientsOf(message);
  const record = sendRecordKey(recipients.map((r) => r.cliKey));
  // ApproximateReceiveCount repeats when a visibility expiry hands the message to a second
  // invocation while the first still runs: only a per-attempt id keeps their claims apart.
  const owner = `${delivery.receiveCount}#${(deps.attemptId ?? randomUUID)()}`;
  const claimUntil = receivedAt.getTime() + deps.claimLeaseMs;
  const claim = await deps.store.claim(record, owner, claimUntil, {
    channel: message.channel,
    sqsMessageId: delivery.messageId,
    recipients: recipients.length,
    queuedAt: delivery.sentAt.getTime(),
    claimedAt: receivedAt.getTime(),
    content: messageFingerprint(message),
  });
  if (claim.result === 'conflict') {
    // A cliKey is one message: the one whose claim came first is sent as it was written, and this
    // one, reusing its cliKey with other content, is a producer's error, not a retry.
    const parsedKey = parsePartitionKey(record.pk);
    const cliKey = parsedKey.kind === 'send' ? parsedKey.cliKey : record.pk;
    const path =
      message.channel === 'rcs-reply'
        ? '$.cliKey'
        : `$.recvInfoLst[${recipients.findIndex((r) => r.cliKey === cliKey)}].cliKey`;
    const first = claim.claimedBy ?? 'unknown';
    await rejectMessage(
      delivery,
      [
        {
          path,
          message: `cliKey "${cliKey}" was already used by queue message ${first} with other content; this message (${delivery.messageId}) was not sent. Use a new cliKey for a new message`,
        },
      ],
      receivedAt,
      deps,
      { cliKey, sqsMessageId: first },
    );
    return { kind: 'invalid', problems: 1 };
  }
  // A record this claim created has no decided recipient; otherwise the record lists the
  // acceptances and the outcome items the rest (rejected, scheduled, resolved by reconcile-status).
  const recorded = claim.existed
    ? await deps.store.recordedOutcomes(
        recipients.map((r) => r.cliKey).filter((key) => !claim.accepted.has(key)),
      )
    : new Set<string>();
  const open = recipients.filter((r) => !claim.accepted.has(r.cliKey) && !recorded.has(r.cliKey));
  const skipped = recipients.length - open.length;
  const release = (maybeSent = false) => deps.store.release(record, owner, maybeSent);
  /** Whether an undecided recipient may be the gateway's already (`SendContext.uncertain`). */
  const mayHaveSent = (keys: readonly string[]) => keys.some((key) => context.uncertain.has(key));
  const lastAttempt = delivery.receiveCount >= delivery.maxReceiveCount;
  const context: SendContext = {
    delivery,
    message,
    deps,
    receivedAt,
    sent: { requests: 0 },
    uncertain: new Set(),
  };
  const phones = new Map(recipients.map((r) => [r.cliKey, r.phone ?? null]));
  const openKeys = open.map((r) => r.cliKey);
  // The last delivery goes to the DLQ: whatever it leaves undecided is handed to reconcile-status
  // as an unknown outcome, so every recipient still ends as exactly one outcome.
  const leaveUnknown = async (keys: readonly string[], code: string, text: string) => {
    const attemptedAt = deps.now().toISOString();
    await recordDecisions(
      context,
      record,
      owner,
      keys.map((cliKey) => ({ kind: 'unknown', cliKey, attemptedAt, code, message: text })),
      phones,
      { release: false },
    );
  };

  if (claim.result === 'busy') {
    if (open.length === 0) return done(skipped);
    if (lastAttempt)
      await leaveUnknown(
        openKeys,
        'CLAIMED',
        'held by another attempt on the last delivery; that attempt may have sent it',
      );
    return {
      kind: 'retry',
      reason: 'every open recipient is being sent by another attempt',
      pending: open.length,
    };
  }
  if (open.length === 0) {
    await release();
    return done(skipped);
  }
  // An attempt that never gave its claim back may have been accepted before it died: a refusal
  // of this attempt's resend does not prove the recipient was never sent.
  if (claim.result === 'taken-over') for (const key of openKeys) context.uncertain.add(key);
  let decisions: Decision[];
  try {
    decisions = await sendAndDecide(context, openKeys, lastAttempt);
  } catch (error) {
    if (!(error instanceof RateLimitWaitExceededError)) {
      // A request that went out may have been accepted (the one before a failing second request
      // of `sendEachAlone`, say): the claim is given back marked as maybe sent, so the next
      // delivery takes it over and distrusts a refusal of its resend. (An attempt that dies here
      // leaves its claim to lapse, which the next claim reads the same way.)
      await release(context.sent.requests > 0 || mayHaveSent(openKeys));
      throw error;
    }
    if (lastAttempt) {
      await leaveUnknown(
        openKeys.filter((key) => context.uncertain.has(key)),
        'NO_QUOTA',
        'no TPS quota on the last delivery, after an attempt that may have sent it',
      );
      await leaveUnknown(
        openKeys.filter((key) => !context.uncertain.has(key)),
        'NO_QUOTA',
        'no TPS quota before the deadline of the last delivery; not sent by it',
      );
    }
    await release(!lastAttempt && mayHaveSent(openKeys));
    return { kind: 'retry', reason: 'no TPS quota before the deadline', pending: open.length };
  }
  const decidedAt = deps.now().toISOString();
  decisions = decisions.map((decision) =>
    distrustUncertain(decision, context.uncertain, lastAttempt, decidedAt),
  );
  // Given back marked as maybe sent while such a recipient is left to retry: the next delivery
  // takes it over and keeps distrusting a refusal.
  const counts = await recordDecisions(context, record, owner, decisions, phones, {
    release: true,
    maybeSent: mayHaveSent(decisions.flatMap((d) => (d.kind === 'retry' ? [d.cliKey] : []))),
  });
  const retries = decisions.filter((d) => d.kind === 'retry');
  if (retries.length === 0) return { kind: 'done', ...counts, skipped };
  return {
    kind: 'retry',
    reason: retries[0]?.reason ?? 'recipients failed retryably',
    pending: retries.length,
  };
};

const done = (skipped: number): SendResult => ({
  kind: 'done',
  accepted: 0,
  rejected: 0,
  scheduled: 0,
  unknown: 0,
  skipped,
});

/** What became of one recipient's attempt. */
type Decision =
  | { readonly kind: 'accepted'; readonly cliKey: string; readonly result: RecipientResult }
  | {
      readonly kind: 'scheduled';
      readonly cliKey: string;
      readonly outcome: { readonly regDt: string; readonly webReqId: string };
    }
  | {
      readonly kind: 'rejected';
      readonly cliKey: string;
      readonly result: RecipientResult;
      readonly category: 'permanent' | 'retries-exhausted';
    }
  | {
      readonly kind: 'unknown';
      readonly cliKey: string;
      readonly attemptedAt: string;
      readonly code: string;
      readonly message: string;
    }
  | { readonly kind: 'retry'; readonly cliKey: string; readonly reason: string };

/**
 * A refusal of a recipient the gateway may already have (`SendContext.uncertain`: its claim taken
 * over from an attempt that died undecided, or an earlier request's answer that did not say): that
 * request may have been accepted, and a resend's refusal (a quota code, say) says nothing about
 * it. It is never published as a rejection: the next delivery tries again, the claim given back
 * marked as maybe sent so that it distrusts too (a duplicate answer then proves the acceptance),
 * and the last one leaves it to the status query. Any other retry left by the last delivery becomes an unknown outcome too.
 */
const distrustUncertain = (
  decision: Decision,
  uncertain: ReadonlySet<string>,
  lastAttempt: boolean,
  attemptedAt: string,
): Decision => {
  if (decision.kind === 'rejected' && uncertain.has(decision.cliKey))
    return lastAttempt
      ? {
          kind: 'unknown',
          cliKey: decision.cliKey,
          attemptedAt,
          code: decision.result.code,
          message: `refused (${decision.result.code}) after an attempt that may have been accepted`,
        }
      : {
          kind: 'retry',
          cliKey: decision.cliKey,
          reason: `refused (${decision.result.code}) after an attempt that may have been accepted`,
        };
  if (decision.kind === 'retry' && lastAttempt)
    return {
      kind: 'unknown',
      cliKey: decision.cliKey,
      attemptedAt,
      code: 'RETRY_EXHAUSTED',
      message: `undecided on the last delivery: ${decision.reason}`,
    };
  return decision;
};

/**
 * Sends `keys` and decides each recipient. Every request takes the recipients' share of the TPS
 * quota in `beforeSend`: once its token is read, its attachments loaded, its connection open and
 * its body ready, so that nothing but the network stands between the reservation and the request
 * reaching the gateway in the second it was counted in. Throws {@link RateLimitWaitExceededError}
 * only when the first request got no quota (nothing was sent), and errors that are not the
 * gateway's.
 */
const sendAndDecide = async (
  context: SendContext,
  keys: readonly string[],
  lastAttempt: boolean,
): Promise<Decision[]> => {
  const { deps, message } = context;
  const attemptedAt = deps.now().toISOString();
  let requests = 0;
  let outcome: SendOutcome<RecipientResult>;
  // The request's reservation; its answer tells the limiter how long requests take to arrive.
  let acquisition: Acquisition | undefined;
  const reportAnswer = () => {
    if (acquisition) deps.rateLimiter.answered?.(acquisition);
    acquisition = undefined;
  };
  try {
    outcome = await deps.gateway.send(withRecipients(message, keys), {
      beforeSend: async () => {
        requests += 1;
        // A resend (fresh token) follows an answer: the first request's time is known.
        reportAnswer();
        acquisition = await deps.rateLimiter.acquire(keys.length, { deadline: deps.deadline });
        context.sent.requests += 1;
      },
    });
    reportAnswer();
  } catch (error) {
    reportAnswer();
    if (error instanceof RateLimitWaitExceededError && requests <= 1) throw error;
    // Refused for its token, and no quota for a second request before the deadline: not sent.
    if (error instanceof RateLimitWaitExceededError)
      return keys.map((cliKey) => ({
        kind: 'retry',
        cliKey,
        reason: 'no TPS quota before the deadline to resend with a fresh token',
      }));
    const whole = wholeRequestFamily(error);
    if (whole === undefined) throw error;
    const gatewayError = error instanceof GatewayError ? error : undefined;
    const result = (cliKey: string): RecipientResult => ({
      cliKey,
      code: gatewayError?.code ?? 'INVALID_REQUEST',
      message: gatewayError?.gatewayMessage ?? (error as Error).message,
    });
    const reason = `${(error as Error).name}: ${(error as Error).message}`;
    switch (whole) {
      case 'duplicate':
        if (keys.length === 1)
          return [{ kind: 'accepted', cliKey: keys[0] ?? '', result: result(keys[0] ?? '') }];
        // The gateway has one of them at least, and does not say which.
        for (const key of keys) context.uncertain.add(key);
        return sendEachAlone(context, keys, lastAttempt);
      case 'rejected':
        return keys.map((cliKey) => ({
          kind: 'rejected',
          cliKey,
          result: result(cliKey),
          category: 'permanent',
        }));
      case 'unknown':
        for (const key of keys) context.uncertain.add(key);
        return keys.map((cliKey) =>
          lastAttempt
            ? {
                kind: 'unknown',
                cliKey,
                attemptedAt,
                code: result(cliKey).code,
                message: result(cliKey).message ?? '',
              }
            : { kind: 'retry', cliKey, reason },
        );
      case 'retryable':
        return keys.map((cliKey) =>
          lastAttempt
            ? { kind: 'rejected', cliKey, result: result(cliKey), category: 'retries-exhausted' }
            : { kind: 'retry', cliKey, reason },
        );
    }
  }

  if (outcome.kind === 'scheduled')
    return keys.map((cliKey) => ({ kind: 'scheduled', cliKey, outcome }));

  const answered = new Map(outcome.results.map((result) => [result.cliKey, result]));
  return keys.map((cliKey): Decision => {
    const result = answered.get(cliKey);
    // Not mentioned: maybe accepted, maybe not. Sending it again is safe (a repeated cliKey answers
    // the duplicate family); on the last attempt, the status query decides.
    if (result === undefined) {
      context.uncertain.add(cliKey);
      return lastAttempt
        ? {
            kind: 'unknown',
            cliKey,
            attemptedAt,
            code: 'NO_RESULT',
            message: 'the gateway answered no result for this recipient',
          }
        : { kind: 'retry', cliKey, reason: 'the gateway answered no result for some recipients' };
    }
    const family = classifyCode(result.code);
    if (family === 'success' || family === 'duplicate') return { kind: 'accepted', cliKey, result };
    if (!isRetryable(result.code))
      return { kind: 'rejected', cliKey, result, category: 'permanent' };
    return lastAttempt
      ? { kind: 'rejected', cliKey, result, category: 'retries-exhausted' }
      : { kind: 'retry', cliKey, reason: `recipients failed retryably (${result.code})` };
  });
};

/**
 * A duplicate-key answer to a request of several recipients names none of them: one may have been
 * accepted by an attempt that died before recording it, the others never sent. Each is sent alone,
 * with its own reservation, so that only the ones the gateway had are read as accepted.
 */
const sendEachAlone = async (
  context: SendContext,
  keys: readonly string[],
  lastAttempt: boolean,
): Promise<Decision[]> => {
  const decisions: Decision[] = [];
  for (const [index, cliKey] of keys.entries()) {
    try {
      decisions.push(...(await sendAndDecide(context, [cliKey], lastAttempt)));
    } catch (error) {
      if (!(error instanceof RateLimitWaitExceededError)) throw error;
      for (const rest of keys.slice(index))
        decisions.push({ kind: 'retry', cliKey: rest, reason: 'no TPS quota before the deadline' });
      return decisions;
    }
  }
  return decisions;
};

const isRetryable = (code: string): boolean => {
  const family = classifyCode(code);
  return family === 'retryable' || family === 'rate-limited' || family === 'authentication';
};

/** How a whole-request failure is handled; `undefined` for errors that are not the gateway's. */
const wholeRequestFamily = (
  error: unknown,
): 'rejected' | 'duplicate' | 'retryable' | 'unknown' | undefined => {
  if (error instanceof GatewayRequestInvalidError || error instanceof GatewayRejectedError)
    return 'rejected';
  if (error instanceof GatewayDuplicateError) return 'duplicate';
  // No answer, an unreadable one, or an HTTP 5xx (often a proxy's): the request may have been
  // accepted. Safe to send again (duplicate family); not safe to call a rejection.
  if (
    error instanceof GatewayTransportError ||
    error instanceof GatewayResponseError ||
    (error instanceof GatewayError && (error.httpStatus ?? 0) >= 500)
  )
    return 'unknown';
  // Rate limited, a documented transient code, and authentication failures that survived the
  // client's own retry: the gateway said no; safe to try again later.
  if (error instanceof GatewayError) return 'retryable';
  return undefined;
};

/**
 * Records each decided recipient; retries are left for the next delivery. Accepted recipients are
 * first queued for reconcile-status' look for their report, then (where acceptances are
 * published) stored as events, then listed on the send record in one write that also gives the
 * claim back (with `release`): so a recipient the record lists is always queued, and a failure
 * before the record is written leaves the message to a redelivery whose resend the gateway
 * answers as a duplicate.
 */
const recordDecisions = async (
  context: SendContext,
  record: SendRecordKey,
  owner: string,
  decisions: readonly Decision[],
  phones: ReadonlyMap<string, string | null>,
  options: ClaimEnd,
): Promise<{ accepted: number; rejected: number; scheduled: number; unknown: number }> => {
  const { deps } = context;
  const counts = { accepted: 0, rejected: 0, scheduled: 0, unknown: 0 };
  const accepted: AcceptedRecipient[] = [];
  for (const decision of decisions) {
    const phone = phones.get(decision.cliKey) ?? null;
    switch (decision.kind) {
      case 'accepted': {
        const alreadyAccepted = classifyCode(decision.result.code) === 'duplicate';
        accepted.push(acceptedRecipient(context, decision.result, alreadyAccepted));
        counts.accepted += 1;
        break;
      }
      case 'rejected':
        await deps.store.putEvent(
          rejectedRecord(context, decision.result, phone, decision.category),
        );
        counts.rejected += 1;
        break;
      case 'scheduled':
        await deps.store.putEvent(
          scheduledRecord(context, decision.cliKey, phone, decision.outcome),
        );
        counts.scheduled += 1;
        break;
      case 'unknown':
        await deps.store.recordUnknown({
          cliKey: decision.cliKey,
          channel: context.message.channel,
          phone,
          sqsMessageId: context.delivery.messageId,
          attemptedAt: decision.attemptedAt,
          code: decision.code,
          message: decision.message,
          record,
          ...(isScheduled(context.message) ? { scheduled: true as const } : {}),
        });
        counts.unknown += 1;
        break;
      case 'retry':
        break;
    }
  }
  if (accepted.length > 0) {
    // A scheduled send accepted here was answered as a duplicate (the gateway had registered an
    // earlier attempt, whose webReqId is lost): its report comes when the schedule is due, days
    // later, so no report check; and since no "Message Scheduled" can be published without the
    // webReqId, "Message Accepted" (already accepted) is, whatever `acceptedEvents` says, so
    // that every scheduled recipient ends with an outcome event.
    const scheduled = isScheduled(context.message);
    if (!scheduled)
      await deps.awaiting.expect({
        channel: context.message.channel,
        acceptedAt: accepted[0]?.acceptedAt ?? deps.now().toISOString(),
        recipients: accepted.map(({ cliKey, msgKey }) =>
          msgKey ? { cliKey, msgKey } : { cliKey },
        ),
      });
    if (deps.acceptedEvents || scheduled)
      for (const decision of decisions)
        if (decision.kind === 'accepted')
          await deps.store.putEvent(
            acceptedRecord(
              context,
              decision.result,
              phones.get(decision.cliKey) ?? null,
              classifyCode(decision.result.code) === 'duplicate',
            ),
          );
    await deps.store.recordAccepted(record, owner, accepted, options);
  } else if (options.release) await deps.store.release(record, owner, options.maybeSent);
  return counts;
};

/** True for a scheduled send (`resvYn` `Y`), whose recipients are registered, not sent now. */
const isScheduled = (message: SendMessage): boolean =>
  'resvYn' in message.body && message.body.resvYn === 'Y';
