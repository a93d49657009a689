import type { SendOutcome } from '../commons/gateway/gateway-client.ts';
import type { ResendOptions } from '../commons/gateway/token-provider.ts';
import type { EventRecord } from '../events/event-record.ts';
import type { SendMessage } from './queue-message.ts';
import type { RateLimiter } from './rate-limiter.ts';

/*
 * What the send use case (send-use-case.ts) takes and gives: its input (one queue delivery), its
 * result, and the ports it is handed (the send store, the gateway, the rate limiter, a clock).
 * The adapters in adapters/ implement these ports; reconcile-status reads the unknown outcomes.
 */

/** One recipient's answer from a send call. */
export interface RecipientResult {
  readonly cliKey: string;
  readonly msgKey?: string | null;
  readonly code: string;
  readonly message?: string | null;
}

/** The gateway as the sender needs it: one send request, validated and routed by channel. */
export interface SendGateway {
  /**
   * `beforeSend` must run before every request of the send reaches the gateway (the first, and a
   * resend with a fresh token after an authentication refusal), as late as possible: each request
   * takes its own share of the quota there. When it throws, that request is not sent.
   */
  send(message: SendMessage, options?: ResendOptions): Promise<SendOutcome<RecipientResult>>;
}

/**
 * A recipient whose last send may or may not have been accepted: the call timed out, the
 * connection broke, the answer was unreadable or an HTTP 5xx, or the answer did not mention it.
 * Kept (not published) until the status query says what became of it.
 */
export interface UnknownOutcome {
  readonly cliKey: string;
  readonly channel: SendMessage['channel'];
  readonly phone: string | null;
  readonly sqsMessageId: string;
  /** When the send call started, UTC ISO 8601: the gateway dates the request on or after it. */
  readonly attemptedAt: string;
  /** What the last attempt got instead of an answer (`TIMEOUT`, `NO_RESULT`, an HTTP status…). */
  readonly code: string;
  readonly message: string;
}

/**
 * An accepted recipient's `OUTCOME` item when the deployment publishes no "Message Accepted"
 * events (`SendDeps.acceptedEvents` false): no `detailType`, so the stream filter keeps it from
 * the bus, and no event detail, which nothing would read. It still blocks a resend of the cliKey
 * (`recordedOutcomes`), lists the recipient for `reconcile-status` (the awaiting-report keys) and
 * shows what happened in `msgbridge trace` and `status`.
 */
export interface UnpublishedOutcome {
  readonly pk: `SEND#${string}`;
  readonly sk: 'OUTCOME';
  readonly kind: 'send';
  readonly outcome: 'accepted';
  readonly cliKey: string;
  readonly msgKey?: string;
  readonly channel: SendMessage['channel'];
  readonly code: string;
  readonly alreadyAccepted: boolean;
  readonly sqsMessageId: string;
  /** When the queue message was received, UTC ISO 8601 (the event's `receivedAt`). */
  readonly receivedAt: string;
  readonly acceptedAt: string;
  readonly awaitingReportBucket: string;
  /** Epoch seconds; DynamoDB's TTL deletes the item after it. */
  readonly expiresAt: number;
}

/** `claimed` fresh, `taken-over` from an attempt that never gave it back, or `busy`. */
export type ClaimResult = 'claimed' | 'taken-over' | 'busy';

/** Send records in the event table. */
export interface SendStore {
  /** The `cliKey`s among these that already have an outcome (accepted, rejected or scheduled). */
  recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * Claims a recipient for one attempt until `until` (epoch ms). `busy` when another attempt holds
   * a live claim; an expired claim that was never given back (its holder died, or overran) is
   * taken over and answers `taken-over`: that holder may have sent the recipient.
   */
  claim(cliKey: string, owner: string, until: number): Promise<ClaimResult>;
  /** Gives a claim back after a retryable failure, so the next attempt may take it at once. */
  release(cliKey: string, owner: string): Promise<void>;
  /**
   * Writes an outcome or rejection item once (conditional put): an event item, or an accepted
   * outcome without its event.
   */
  putEvent(record: EventRecord | UnpublishedOutcome): Promise<'stored' | 'duplicate'>;
  /** Keeps a recipient whose outcome is unknown until `reconcile-status` resolves it (no event). */
  recordUnknown(outcome: UnknownOutcome): Promise<void>;
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
  /**
   * Whether an accepted recipient's outcome is published as a "Message Accepted" event; when
   * false it is stored as an {@link UnpublishedOutcome}. Rejected and scheduled outcomes are
   * always published.
   * @default true
   */
  readonly acceptedEvents?: boolean;
  /** A fresh id per attempt, part of the claim's owner. @default crypto.randomUUID */
  readonly attemptId?: () => string;
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
      /** Recipients whose last attempt may or may not have been accepted (see {@link UnknownOutcome}). */
      readonly unknown: number;
      readonly skipped: number;
    }
  | { readonly kind: 'retry'; readonly reason: string; readonly pending: number };
