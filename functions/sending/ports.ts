import type { ResendOptions } from '../../gateway/bearer/fresh-token-retry.ts';
import type { SendOutcome } from '../../gateway/client.ts';
import type { PayloadStore } from '../event-table/ports.ts';
import type { SendMessage } from '../send-contract/queue-message.ts';
import type { AwaitingReports, RecipientResult, SendStore } from '../send-records/ports.ts';
import type { RateLimiter } from './rate-limiter.ts';

/*
 * What the send use case (send-use-case.ts) takes and gives: its input (one queue delivery), its
 * result, and the ports it is handed (the gateway, the rate limiter, a clock, and the send records
 * of send-records/).
 */

/** The gateway as the sender needs it: one send request, validated and routed by channel. */
export interface SendGateway {
  /**
   * `beforeSend` must run before every request of the send reaches the gateway (the first, and a
   * resend with a fresh token after an authentication refusal), as late as possible: each request
   * takes its own share of the quota there. When it throws, that request is not sent.
   */
  send(message: SendMessage, options?: ResendOptions): Promise<SendOutcome<RecipientResult>>;
}

export interface SendDeps {
  readonly store: SendStore;
  /** Where accepted recipients are queued for `reconcile-status`'s look for their report. */
  readonly awaiting: AwaitingReports;
  readonly gateway: SendGateway;
  readonly rateLimiter: RateLimiter;
  readonly now: () => Date;
  readonly retentionDays: number;
  /** How long a claim holds; longer than one attempt can take, shorter than the queue's visibility timeout. */
  readonly claimLeaseMs: number;
  /** Epoch ms by which this attempt must be done (the Lambda's deadline less a margin). */
  readonly deadline: number;
  /**
   * Whether an accepted recipient is also published as a "Message Accepted" event (one more item
   * and one more event per recipient). Either way the send record lists it. Rejected and
   * scheduled outcomes are always published.
   */
  readonly acceptedEvents: boolean;
  /** A fresh id per attempt, part of the claim's owner. @default crypto.randomUUID */
  readonly attemptId?: () => string;
  /**
   * Where a rejected message too large for its table item is kept (the claim check, below
   * `payloads/send/`). Without it such a message cannot be rejected and stays on the queue.
   */
  readonly payloads?: PayloadStore;
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
