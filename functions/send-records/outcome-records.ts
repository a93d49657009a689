import { createHash } from 'node:crypto';
import { parseGatewayDateTime } from '../../protocol/kst.ts';
import {
  messageAccepted,
  messageRejected,
  messageScheduled,
  type PayloadRef,
  sendRejected,
} from '../catalogue/catalogue.ts';
import { buildEventDetail, type EventInput } from '../catalogue/envelope.ts';
import { eventKeys, idempotencyKeys, SORT_KEY } from '../commons/table-keys.ts';
import { type EventRecord, toEventRecord } from '../event-table/event-record.ts';
import { cutToJsonBytes, utf8Bytes } from '../event-table/item-size.ts';
import type { SendMessage } from '../send-contract/queue-message.ts';
import type {
  AcceptedRecipient,
  RecipientResult,
  UnknownOutcome,
  UnpublishedOutcome,
} from './ports.ts';

/*
 * What the send use case records for each outcome: an accepted recipient as its send record lists
 * it (and its event, where acceptances are published), the rejected and scheduled events, a queue
 * message rejected as invalid, and the event that resolves an unknown outcome once the status
 * query has answered.
 */

/** The queue message an outcome belongs to: its SQS message id and its body as it arrived. */
export interface OutcomeDelivery {
  readonly messageId: string;
  readonly body: string;
}

/** What every outcome record of one queue message shares. */
export interface OutcomeContext {
  readonly delivery: OutcomeDelivery;
  readonly message: SendMessage;
  readonly deps: {
    readonly now: () => Date;
    /** How long the event table keeps an outcome. */
    readonly retentionDays: number;
  };
  readonly receivedAt: Date;
}

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
    { pk: eventKeys.send(cliKey), sk: SORT_KEY.outcome, kind: 'send' },
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

/** The outcome events of one recipient of a send, each keyed and identified by its `cliKey`. */
type RecipientOutcomeType =
  | typeof messageAccepted
  | typeof messageRejected
  | typeof messageScheduled;
type EventDataInput<T extends RecipientOutcomeType> = EventInput<T['name']>['data'];

/** One recipient's outcome record: `data` is what the outcome adds to the recipient's fields. */
const recipientOutcome = <T extends RecipientOutcomeType>(
  context: OutcomeContext,
  cliKey: string,
  phone: string | null,
  type: T,
  data: Omit<EventDataInput<T>, keyof ReturnType<typeof common>>,
): EventRecord =>
  outcomeRecord(
    context,
    cliKey,
    buildEventDetail(type, {
      ...eventBase(context, idempotencyKeys.send(cliKey)),
      // The recipient's fields plus the rest: whole, though TypeScript cannot add a generic Omit back up.
      data: { ...common(context, cliKey, phone), ...data } as EventDataInput<T>,
    }),
  );

/** How the send record lists an accepted recipient, recorded now. */
export const acceptedRecipient = (
  context: OutcomeContext,
  result: RecipientResult,
  alreadyAccepted: boolean,
): AcceptedRecipient => ({
  cliKey: result.cliKey,
  ...(result.msgKey ? { msgKey: result.msgKey } : {}),
  // Whole seconds: the record keeps epoch seconds to stay small.
  acceptedAt: new Date(Math.floor(context.deps.now().getTime() / 1000) * 1000).toISOString(),
  alreadyAccepted,
});

/** An accepted recipient's "Message Accepted" event (deployments with `acceptedEvents` on). */
export const acceptedRecord = (
  context: OutcomeContext,
  result: RecipientResult,
  phone: string | null,
  alreadyAccepted: boolean,
): EventRecord => ({
  ...recipientOutcome(context, result.cliKey, phone, messageAccepted, {
    msgKey: result.msgKey ?? null,
    alreadyAccepted,
    code: result.code,
  }),
  acceptedAt: context.deps.now().toISOString(),
  cliKey: result.cliKey,
  ...(result.msgKey ? { msgKey: result.msgKey } : {}),
});

export const rejectedRecord = (
  context: OutcomeContext,
  { cliKey, code, message }: RecipientResult,
  phone: string | null,
  category: 'permanent' | 'retries-exhausted',
) =>
  recipientOutcome(context, cliKey, phone, messageRejected, {
    code,
    message: message ?? '',
    category,
  });

export const scheduledRecord = (
  context: OutcomeContext,
  cliKey: string,
  phone: string | null,
  outcome: { readonly regDt: string; readonly webReqId: string },
) => {
  const resvReqDt =
    'resvReqDt' in context.message.body ? context.message.body.resvReqDt : undefined;
  return recipientOutcome(context, cliKey, phone, messageScheduled, {
    webReqId: outcome.webReqId,
    regDt: outcome.regDt ?? null,
    scheduledFor: typeof resvReqDt === 'string' ? (parseGatewayDateTime(resvReqDt) ?? null) : null,
  });
};

/**
 * The event that resolves an {@link UnknownOutcome}, once the status query has answered:
 * `accepted` (the gateway knows the cliKey: "Message Accepted"; reconcile-status then looks for its
 * report like any acceptance's) or `not-sent` (the gateway does not know it: "Message Rejected", category
 * `not-sent`). Same keys and idempotency key as the sender's own outcome, so only one is stored.
 */
export const resolvedUnknownRecord = (
  unknown: UnknownOutcome,
  resolution:
    | { readonly kind: 'accepted'; readonly msgKey: string | null }
    | { readonly kind: 'not-sent'; readonly status: string },
  at: Date,
  retentionDays: number,
): EventRecord => {
  const base = {
    idempotencyKey: idempotencyKeys.send(unknown.cliKey),
    occurredAt: at.toISOString(),
    receivedAt: at.toISOString(),
    via: 'status-query' as const,
  };
  const recipient = {
    cliKey: unknown.cliKey,
    channel: unknown.channel,
    phone: unknown.phone,
    sqsMessageId: unknown.sqsMessageId,
  };
  const keys = { pk: eventKeys.send(unknown.cliKey), sk: SORT_KEY.outcome, kind: 'send' as const };
  if (resolution.kind === 'not-sent')
    return toEventRecord(
      keys,
      buildEventDetail(messageRejected, {
        ...base,
        data: {
          ...recipient,
          code: resolution.status,
          message: `no answer to the last attempt (${unknown.code}); the status query does not know this cliKey: not sent`,
          category: 'not-sent',
        },
      }),
      retentionDays,
    );
  return {
    ...toEventRecord(
      keys,
      buildEventDetail(messageAccepted, {
        ...base,
        data: { ...recipient, msgKey: resolution.msgKey, alreadyAccepted: false, code: '10000' },
      }),
      retentionDays,
    ),
    // Accepted when it was sent.
    acceptedAt: unknown.attemptedAt,
    cliKey: unknown.cliKey,
    ...(resolution.msgKey ? { msgKey: resolution.msgKey } : {}),
  };
};

/**
 * The acceptance of an {@link UnknownOutcome} the status query found, for a deployment that does
 * not publish acceptances: the keys and fields of {@link resolvedUnknownRecord}'s, without the event.
 */
export const resolvedAcceptanceUnpublished = (
  unknown: UnknownOutcome,
  resolution: { readonly msgKey: string | null },
  at: Date,
  retentionDays: number,
): UnpublishedOutcome => ({
  pk: eventKeys.send(unknown.cliKey),
  sk: SORT_KEY.outcome,
  kind: 'send',
  outcome: 'accepted',
  cliKey: unknown.cliKey,
  ...(resolution.msgKey ? { msgKey: resolution.msgKey } : {}),
  channel: unknown.channel,
  code: '10000',
  alreadyAccepted: false,
  sqsMessageId: unknown.sqsMessageId,
  receivedAt: at.toISOString(),
  acceptedAt: unknown.attemptedAt,
  expiresAt: Math.floor(at.getTime() / 1000) + retentionDays * 86_400,
});

/**
 * What a "Send Rejected" event may carry of a producer's message, in UTF-8 bytes of JSON: the
 * message as it arrived (the rest is in the table item, or in S3 past the item's budget), and as
 * many of its cliKeys and problems as fit, each list beside its full count. With the envelope, the
 * event stays well within the bus's 256 KiB whatever the message holds (DETAIL_BUDGET_BYTES).
 */
export const SEND_REJECTED_LIMITS = {
  body: 64 * 1024,
  cliKeys: 16 * 1024,
  problems: 32 * 1024,
  channel: 64,
} as const;

/** The first entries of `list` whose JSON takes at most `budget` bytes in all. */
const firstWithinBytes = <T>(list: readonly T[], budget: number): T[] => {
  const kept: T[] = [];
  let used = 2;
  for (const entry of list) {
    used += utf8Bytes(JSON.stringify(entry)) + 1;
    if (used > budget) break;
    kept.push(entry);
  }
  return kept;
};

/** A cliKey another queue message took first, with other content (see `SendStore.claim`). */
export interface ReusedCliKey {
  readonly cliKey: string;
  /** The SQS message whose claim came first: the one that is sent. */
  readonly sqsMessageId: string;
}

/** The queue message's top-level object, or an empty one when it is not a JSON object. */
const bodyObject = (body: string): Record<string, unknown> => {
  const json = parseJsonResult(body);
  const value = json.ok ? json.value : undefined;
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
};

const cliKeysOf = (object: Record<string, unknown>): string[] => {
  const list = Array.isArray(object.recvInfoLst) ? object.recvInfoLst : [];
  return [
    ...list.flatMap((r) =>
      r && typeof r === 'object' && typeof (r as { cliKey?: unknown }).cliKey === 'string'
        ? [(r as { cliKey: string }).cliKey]
        : [],
    ),
    ...(typeof object.cliKey === 'string' ? [object.cliKey] : []),
  ];
};

/** Every `cliKey` a queue message names, valid or not, in order: what a rejection lists. */
export const cliKeysOfBody = (body: string): string[] => cliKeysOf(bodyObject(body));

export const sendRejectedRecord = (
  delivery: OutcomeDelivery,
  problems: ReadonlyArray<{ path: string; message: string }>,
  receivedAt: Date,
  retentionDays: number,
  extras: {
    /** Where the message is kept when the item cannot hold it (the claim check). */
    readonly payloadRef?: PayloadRef;
    readonly reusedCliKey?: ReusedCliKey;
  } = {},
): EventRecord => {
  const object = bodyObject(delivery.body);
  const cliKeys = cliKeysOf(object);
  const key = idempotencyKeys.sendRejected(
    delivery.messageId,
    createHash('sha256').update(delivery.body).digest('hex'),
  );
  const body = cutToJsonBytes(delivery.body, SEND_REJECTED_LIMITS.body);
  const detail = buildEventDetail(sendRejected, {
    idempotencyKey: key,
    occurredAt: receivedAt.toISOString(),
    receivedAt: receivedAt.toISOString(),
    via: 'send-queue',
    data: {
      channel:
        typeof object.channel === 'string'
          ? cutToJsonBytes(object.channel, SEND_REJECTED_LIMITS.channel)
          : null,
      cliKeys: firstWithinBytes(cliKeys, SEND_REJECTED_LIMITS.cliKeys),
      cliKeyCount: cliKeys.length,
      problems: firstWithinBytes(problems, SEND_REJECTED_LIMITS.problems),
      problemCount: problems.length,
      sqsMessageId: delivery.messageId,
      body,
      truncated: body.length < delivery.body.length,
      ...(extras.reusedCliKey ? { reusedCliKey: extras.reusedCliKey } : {}),
      ...(extras.payloadRef ? { payloadRef: extras.payloadRef } : {}),
    },
  });
  const record = toEventRecord(
    { ...eventKeys.sendRejected(delivery.messageId), kind: 'send' },
    detail,
    retentionDays,
  );
  return extras.payloadRef
    ? { ...record, payloadRef: extras.payloadRef }
    : { ...record, payload: delivery.body };
};

export const parseJsonResult = (
  text: string,
): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
};
