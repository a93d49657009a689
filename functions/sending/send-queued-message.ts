import { createHash } from 'node:crypto';
import {
  classifyCode,
  GatewayDuplicateError,
  GatewayError,
  GatewayRejectedError,
} from '../commons/gateway/errors.ts';
import { GatewayRequestInvalidError, type SendOutcome } from '../commons/gateway/gateway-client.ts';
import { parseGatewayDateTime } from '../commons/helpers/kst.ts';
import { buildEventDetail } from '../events/envelope.ts';
import { type EventRecord, toEventRecord } from '../inbound/event-record.ts';
import { type RateLimiter, RateLimitWaitExceededError } from './rate-limiter.ts';
import {
  parseSendMessage,
  recipientsOf,
  type SendMessage,
  withRecipients,
} from './send-message.ts';

/** One recipient's answer from a send call. */
export interface RecipientResult {
  readonly cliKey: string;
  readonly msgKey?: string | null;
  readonly code: string;
  readonly message?: string | null;
}

/** The gateway as the sender needs it: one send request, validated and routed by channel. */
export interface SendGateway {
  send(message: SendMessage): Promise<SendOutcome<RecipientResult>>;
}

/** Send records in the event table. */
export interface SendStore {
  /** The `cliKey`s among these that already have an outcome (accepted, rejected or scheduled). */
  recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * Claims a recipient for one attempt until `until` (epoch ms). `busy` when another attempt holds
   * a live claim; an expired claim (its holder crashed) can be taken over.
   */
  claim(cliKey: string, owner: string, until: number): Promise<'claimed' | 'busy'>;
  /** Gives a claim back after a retryable failure, so the next attempt may take it at once. */
  release(cliKey: string, owner: string): Promise<void>;
  /** Writes an outcome or rejection event item once (conditional put). */
  putEvent(record: EventRecord): Promise<'stored' | 'duplicate'>;
}

export interface SendDeps {
  readonly store: SendStore;
  readonly gateway: SendGateway;
  readonly rateLimiter: RateLimiter;
  readonly now: () => Date;
  readonly retentionDays: number;
  /** How long a claim holds; longer than one attempt can take, shorter than the queue's visibility timeout. */
  readonly claimLeaseMs: number;
  /** Epoch ms by which this attempt must be done (the Lambda's deadline less a margin). */
  readonly deadline: number;
}

/** Where one queue message came from. */
export interface QueueDelivery {
  readonly body: string;
  readonly messageId: string;
  /**
   * When the producer queued it. Validation runs as of this time, so a scheduled send that passed
   * the 30-day and "in the future" checks once still passes them when it is delivered again.
   */
  readonly sentAt: Date;
  /** 1 on the first delivery. */
  readonly receiveCount: number;
  /** Deliveries after which the queue moves the message to its DLQ. */
  readonly maxReceiveCount: number;
}

export type SendResult =
  | { readonly kind: 'invalid'; readonly problems: number }
  | {
      readonly kind: 'done';
      readonly accepted: number;
      readonly rejected: number;
      readonly scheduled: number;
      readonly skipped: number;
    }
  | { readonly kind: 'retry'; readonly reason: string; readonly pending: number };

const MAX_EVENT_TEXT = 64 * 1024;

/**
 * Sends one queue message through the gateway, at most once per recipient.
 *
 * Input: the queue delivery. Output: `done`, `invalid` (a "send rejected" event was stored; do not
 * retry) or `retry` (some recipients failed retryably; deliver the message again later — the
 * recipients already decided are skipped then).
 *
 * Primary course: validate; skip recipients that already have an outcome; claim the rest; take
 * their share of the TPS quota; call the gateway once with only the claimed recipients; record one
 * outcome per recipient (accepted, rejected or scheduled), each an event.
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
    await deps.store.putEvent(
      sendRejectedRecord(delivery, parsed.problems, receivedAt, deps.retentionDays),
    );
    return { kind: 'invalid', problems: parsed.problems.length };
  }
  const message = parsed.message;
  const recipients = recipientsOf(message);
  const done = await deps.store.recordedOutcomes(recipients.map((r) => r.cliKey));
  const open = recipients.filter((r) => !done.has(r.cliKey));
  if (open.length === 0)
    return { kind: 'done', accepted: 0, rejected: 0, scheduled: 0, skipped: recipients.length };

  const owner = `${delivery.messageId}#${delivery.receiveCount}`;
  const claimUntil = receivedAt.getTime() + deps.claimLeaseMs;
  const claims = await Promise.all(
    open.map(async (r) => ({ r, claim: await deps.store.claim(r.cliKey, owner, claimUntil) })),
  );
  const claimed = claims.filter((c) => c.claim === 'claimed').map((c) => c.r);
  const busy = claims.length - claimed.length;
  if (claimed.length === 0)
    return {
      kind: 'retry',
      reason: 'every open recipient is being sent by another attempt',
      pending: busy,
    };

  const context: OutcomeContext = { delivery, message, deps, receivedAt };
  const phones = new Map(recipients.map((r) => [r.cliKey, r.phone ?? null]));
  const release = (keys: readonly string[]) =>
    Promise.all(keys.map((key) => deps.store.release(key, owner)));
  const claimedKeys = claimed.map((r) => r.cliKey);
  const lastAttempt = delivery.receiveCount >= delivery.maxReceiveCount;

  try {
    await deps.rateLimiter.acquire(claimed.length, { deadline: deps.deadline });
  } catch (error) {
    if (!(error instanceof RateLimitWaitExceededError)) throw error;
    await release(claimedKeys);
    return {
      kind: 'retry',
      reason: 'no TPS quota before the deadline',
      pending: claimed.length + busy,
    };
  }

  let outcome: SendOutcome<RecipientResult>;
  try {
    outcome = await deps.gateway.send(withRecipients(message, claimedKeys));
  } catch (error) {
    const whole = wholeRequestFamily(error);
    if (whole === 'rejected' || whole === 'duplicate' || (whole === 'retryable' && lastAttempt)) {
      const gatewayError = error instanceof GatewayError ? error : undefined;
      const results = claimedKeys.map((cliKey) => ({
        cliKey,
        code: gatewayError?.code ?? 'INVALID_REQUEST',
        message: gatewayError?.gatewayMessage ?? (error as Error).message,
      }));
      const counts = await recordResults(context, results, phones, lastAttempt);
      return busy > 0
        ? { kind: 'retry', reason: 'recipients held by another attempt', pending: busy }
        : { kind: 'done', ...counts, skipped: done.size };
    }
    await release(claimedKeys);
    if (whole === 'retryable') {
      return {
        kind: 'retry',
        reason: `${(error as Error).name}: ${(error as Error).message}`,
        pending: claimed.length + busy,
      };
    }
    throw error;
  }

  if (outcome.kind === 'scheduled') {
    for (const cliKey of claimedKeys)
      await deps.store.putEvent(
        scheduledRecord(context, cliKey, phones.get(cliKey) ?? null, outcome),
      );
    return busy > 0
      ? { kind: 'retry', reason: 'recipients held by another attempt', pending: busy }
      : {
          kind: 'done',
          accepted: 0,
          rejected: 0,
          scheduled: claimedKeys.length,
          skipped: done.size,
        };
  }

  // A recipient the answer does not mention is treated as retryable: sending it again is safe
  // because a repeated cliKey answers the duplicate family.
  const answered = new Map(outcome.results.map((result) => [result.cliKey, result]));
  const results = claimedKeys.map(
    (cliKey) =>
      answered.get(cliKey) ?? {
        cliKey,
        code: 'NO_RESULT',
        message: 'the gateway answered no result for this recipient',
      },
  );
  const counts = await recordResults(context, results, phones, lastAttempt);
  const retryKeys = results.filter((r) => isRetryable(r.code) && !lastAttempt).map((r) => r.cliKey);
  await release(retryKeys);
  const pending = retryKeys.length + busy;
  return pending > 0
    ? { kind: 'retry', reason: `${retryKeys.length} recipients failed retryably`, pending }
    : { kind: 'done', ...counts, skipped: done.size };
};

interface OutcomeContext {
  readonly delivery: QueueDelivery;
  readonly message: SendMessage;
  readonly deps: SendDeps;
  readonly receivedAt: Date;
}

const isRetryable = (code: string): boolean => {
  if (code === 'NO_RESULT') return true;
  const family = classifyCode(code);
  return family === 'retryable' || family === 'rate-limited' || family === 'authentication';
};

/** How a whole-request failure is handled; `undefined` for errors that are not the gateway's. */
const wholeRequestFamily = (error: unknown): 'rejected' | 'duplicate' | 'retryable' | undefined => {
  if (error instanceof GatewayRequestInvalidError || error instanceof GatewayRejectedError)
    return 'rejected';
  if (error instanceof GatewayDuplicateError) return 'duplicate';
  // Rate limited, 5xx, timeouts, connection failures, unreadable answers, and authentication
  // failures that survived the client's own retry: all safe to try again later.
  if (error instanceof GatewayError) return 'retryable';
  return undefined;
};

/** Records accepted and permanently rejected recipients; retryable ones only on the last attempt. */
const recordResults = async (
  context: OutcomeContext,
  results: readonly RecipientResult[],
  phones: ReadonlyMap<string, string | null>,
  lastAttempt: boolean,
): Promise<{ accepted: number; rejected: number; scheduled: number }> => {
  let accepted = 0;
  let rejected = 0;
  for (const result of results) {
    const family = classifyCode(result.code);
    const phone = phones.get(result.cliKey) ?? null;
    if (family === 'success' || family === 'duplicate') {
      await context.deps.store.putEvent(
        acceptedRecord(context, result, phone, family === 'duplicate'),
      );
      accepted += 1;
    } else if (!isRetryable(result.code)) {
      await context.deps.store.putEvent(rejectedRecord(context, result, phone, 'permanent'));
      rejected += 1;
    } else if (lastAttempt) {
      await context.deps.store.putEvent(
        rejectedRecord(context, result, phone, 'retries-exhausted'),
      );
      rejected += 1;
    }
  }
  return { accepted, rejected, scheduled: 0 };
};

const common = (context: OutcomeContext, cliKey: string, phone: string | null) => ({
  cliKey,
  channel: context.message.channel,
  phone,
  sqsMessageId: context.delivery.messageId,
});

const outcomeRecord = (
  context: OutcomeContext,
  cliKey: string,
  detail: ReturnType<typeof buildEventDetail>,
): EventRecord =>
  toEventRecord(
    { pk: `SEND#${cliKey}`, sk: 'OUTCOME', kind: 'send' },
    detail,
    context.deps.retentionDays,
  );

const eventBase = (context: OutcomeContext, key: string) => {
  const at = context.deps.now().toISOString();
  return {
    idempotencyKey: key,
    occurredAt: at,
    receivedAt: context.receivedAt.toISOString(),
    via: 'send-queue' as const,
  };
};

/**
 * An accepted recipient's outcome, also listed in the `awaiting-report` index (by the hour it was
 * accepted) so that `reconcile-status` can find it if its report never comes.
 */
const acceptedRecord = (
  context: OutcomeContext,
  result: RecipientResult,
  phone: string | null,
  alreadyAccepted: boolean,
): EventRecord => {
  const acceptedAt = context.deps.now().toISOString();
  return {
    ...acceptedOutcome(context, result, phone, alreadyAccepted),
    awaitingReportBucket: acceptedAt.slice(0, 13),
    acceptedAt,
    cliKey: result.cliKey,
    ...(result.msgKey ? { msgKey: result.msgKey } : {}),
  };
};

const acceptedOutcome = (
  context: OutcomeContext,
  result: RecipientResult,
  phone: string | null,
  alreadyAccepted: boolean,
) =>
  outcomeRecord(
    context,
    result.cliKey,
    buildEventDetail('messageAccepted', {
      ...eventBase(context, `send:${result.cliKey}`),
      data: {
        ...common(context, result.cliKey, phone),
        msgKey: result.msgKey ?? null,
        alreadyAccepted,
        code: result.code,
      },
    }),
  );

const rejectedRecord = (
  context: OutcomeContext,
  result: RecipientResult,
  phone: string | null,
  category: 'permanent' | 'retries-exhausted',
) =>
  outcomeRecord(
    context,
    result.cliKey,
    buildEventDetail('messageRejected', {
      ...eventBase(context, `send:${result.cliKey}`),
      data: {
        ...common(context, result.cliKey, phone),
        code: result.code,
        message: result.message ?? '',
        category,
      },
    }),
  );

const scheduledRecord = (
  context: OutcomeContext,
  cliKey: string,
  phone: string | null,
  outcome: { readonly regDt: string; readonly webReqId: string },
) => {
  const resvReqDt =
    'resvReqDt' in context.message.body ? context.message.body.resvReqDt : undefined;
  return outcomeRecord(
    context,
    cliKey,
    buildEventDetail('messageScheduled', {
      ...eventBase(context, `send:${cliKey}`),
      data: {
        ...common(context, cliKey, phone),
        webReqId: outcome.webReqId,
        regDt: outcome.regDt ?? null,
        scheduledFor:
          typeof resvReqDt === 'string' ? (parseGatewayDateTime(resvReqDt) ?? null) : null,
      },
    }),
  );
};

const sendRejectedRecord = (
  delivery: QueueDelivery,
  problems: ReadonlyArray<{ path: string; message: string }>,
  receivedAt: Date,
  retentionDays: number,
): EventRecord => {
  const json = parseJsonResult(delivery.body);
  const value = json.ok ? json.value : undefined;
  const object =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  const list = Array.isArray(object.recvInfoLst) ? object.recvInfoLst : [];
  const cliKeys = [
    ...list.flatMap((r) =>
      r && typeof r === 'object' && typeof (r as { cliKey?: unknown }).cliKey === 'string'
        ? [(r as { cliKey: string }).cliKey]
        : [],
    ),
    ...(typeof object.cliKey === 'string' ? [object.cliKey] : []),
  ];
  const key = `send-rejected:${delivery.messageId}:${createHash('sha256').update(delivery.body).digest('hex')}`;
  const detail = buildEventDetail('sendRejected', {
    idempotencyKey: key,
    occurredAt: receivedAt.toISOString(),
    receivedAt: receivedAt.toISOString(),
    via: 'send-queue',
    data: {
      channel: typeof object.channel === 'string' ? object.channel : null,
      cliKeys,
      problems: [...problems],
      sqsMessageId: delivery.messageId,
      body: delivery.body.slice(0, MAX_EVENT_TEXT),
      truncated: delivery.body.length > MAX_EVENT_TEXT,
    },
  });
  return {
    ...toEventRecord(
      { pk: `SENDREJECTED#${delivery.messageId}`, sk: 'REJECTED', kind: 'send' },
      detail,
      retentionDays,
    ),
    payload: delivery.body,
  };
};

const parseJsonResult = (
  text: string,
): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
};
