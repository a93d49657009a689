import type { SORT_KEY } from '../commons/table-keys.ts';
import type { EventRecord } from '../event-table/event-record.ts';
import type { SendMessage } from '../send-contract/queue-message.ts';

/*
 * What a send leaves behind, as the sender writes it and reconcile-status reads it: the send
 * record and its claim, the outcomes, the unknown outcomes, and the report checks of accepted
 * recipients. The adapters in adapters/ implement these ports.
 */

/** One recipient's answer from a send call. */
export interface RecipientResult {
  readonly cliKey: string;
  readonly msgKey?: string | null;
  readonly code: string;
  readonly message?: string | null;
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
  /** The send record of its message, whose claim keeps senders away while `reconcile-status` asks. */
  readonly record: SendRecordKey;
  /**
   * A scheduled send (`resvYn` `Y`): accepted, its recipient is registered, not sent, so its report
   * comes when the schedule is due (no report check), and its "Message Accepted" is published
   * whatever `acceptedEvents` says, as the sender does: every scheduled recipient ends with an
   * outcome event.
   */
  readonly scheduled?: true;
}

/**
 * An accepted recipient's `OUTCOME` item written by `reconcile-status` when it resolves an unknown
 * outcome for a deployment that publishes no "Message Accepted" events (`acceptedEvents` false): no
 * `detailType`, so the stream filter keeps it from the bus, and no event detail, which nothing would
 * read. It blocks a resend of the cliKey (`recordedOutcomes`) and shows what happened in
 * `msgbridge trace` and `status`. (The sender lists its own acceptances in the message's
 * {@link SendRecordKey send record} instead.)
 */
export interface UnpublishedOutcome {
  readonly pk: string;
  readonly sk: typeof SORT_KEY.outcome;
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
  /** Epoch seconds; DynamoDB's TTL deletes the item after it. */
  readonly expiresAt: number;
}

/**
 * `claimed` fresh, `taken-over` from an attempt that never gave it back, `busy`, or `conflict`:
 * the record was claimed first by a queue message with other content under the same cliKey.
 */
export type ClaimResult = 'claimed' | 'taken-over' | 'busy' | 'conflict';

/**
 * Where a queue message's send record is kept: `SEND#<the smallest of its cliKeys>` / `MESSAGE`
 * (see `send-record.ts`). One item per queue message holds its claim and its accepted recipients.
 */
export interface SendRecordKey {
  readonly pk: string;
  readonly sk: typeof SORT_KEY.sendRecord;
}

/** A recipient the gateway accepted, as the send record lists it. */
export interface AcceptedRecipient {
  readonly cliKey: string;
  /** Absent when the gateway answered "already accepted" without one. */
  readonly msgKey?: string;
  /** When the acceptance was recorded, UTC ISO 8601 (whole seconds). */
  readonly acceptedAt: string;
  /** The gateway answered the duplicate family: an earlier attempt had been accepted. */
  readonly alreadyAccepted: boolean;
}

/** What claiming a send record found. */
export interface RecordClaim {
  readonly result: ClaimResult;
  /**
   * False when the claim created the record: no attempt of this message (nor of another message
   * whose smallest cliKey is the same) was ever made, so no recipient of it can have an outcome.
   */
  readonly existed: boolean;
  /** The recipients the record listed as accepted before this claim. */
  readonly accepted: ReadonlyMap<string, AcceptedRecipient>;
  /** With `conflict`: the SQS message id of the message whose content the record holds. */
  readonly claimedBy?: string;
}

/** What is written onto the record with a claim, for `msgbridge trace` and `status`. */
export interface RecordInfo {
  readonly channel: SendMessage['channel'];
  /** The queue message that claimed the record first (a later claim of the same content keeps it). */
  readonly sqsMessageId: string;
  /** The message's recipients, in order. */
  readonly recipients: number;
  /** When SQS took the message (its `SentTimestamp`), epoch milliseconds. */
  readonly queuedAt: number;
  /** When this attempt claimed it, epoch milliseconds. */
  readonly claimedAt: number;
  /**
   * The message's content (`messageFingerprint`): the first claim writes it, and a claim with
   * another one is a `conflict`, never a claim.
   */
  readonly content: string;
}

/** How an attempt ends its claim: given back or left to its holder, and marked as maybe sent. */
export interface ClaimEnd {
  readonly release: boolean;
  /** Given back as a lapsed claim, so that the next one is `taken-over` (see `release`). */
  readonly maybeSent?: boolean;
}

/**
 * Send records in the event table: one item per queue message (its claim and its accepted
 * recipients) and, per recipient, the outcome events (rejected, scheduled, and accepted when
 * "Message Accepted" is published) and unknown outcomes.
 */
export interface SendStore {
  /** The `cliKey`s among these that have an `OUTCOME` item (an outcome event, or a resolved unknown). */
  recordedOutcomes(cliKeys: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * Claims a message's record for one attempt until `until` (epoch ms). `busy` when another
   * attempt holds a live claim; an expired claim that was never given back (its holder died, or
   * overran) is taken over and answers `taken-over`: that holder may have sent the recipients. So
   * does a live claim of `owner` itself: only this request, sent again after its answer was lost,
   * wrote it, and what that write replaced is unknown.
   * Creates the record when there is none. `info` is written with the claim (a sender's);
   * reconcile-status claims without it. A sender's claim whose `info.contentSha256` differs from
   * the one the record holds answers `conflict` and changes nothing: a cliKey is one message.
   */
  claim(
    record: SendRecordKey,
    owner: string,
    until: number,
    info?: RecordInfo,
  ): Promise<RecordClaim>;
  /**
   * Gives a claim back after a retryable failure, so the next attempt may take it at once. With
   * `maybeSent` (a recipient still undecided may be the gateway's already: a request whose answer
   * did not say), it is given back marked so, as a claim that lapsed (`claimedUntil` 1, a time
   * long past): the next claim answers `taken-over` and distrusts a refusal of its resend.
   */
  release(record: SendRecordKey, owner: string, maybeSent?: boolean): Promise<void>;
  /**
   * Lists accepted recipients on the record (one write for all of them) and, with `release`, gives
   * the claim back in the same write (marked with `maybeSent` as `release` does). Acceptances are
   * facts: they are written even when another attempt has taken the claim over meanwhile (then
   * the claim is left to it).
   */
  recordAccepted(
    record: SendRecordKey,
    owner: string,
    accepted: readonly AcceptedRecipient[],
    options: ClaimEnd,
  ): Promise<void>;
  /**
   * Writes a recipient's `OUTCOME` item once (conditional put): an event item, or a resolved
   * acceptance without its event.
   */
  putEvent(record: EventRecord | UnpublishedOutcome): Promise<'stored' | 'duplicate'>;
  /** Keeps a recipient whose outcome is unknown until `reconcile-status` resolves it (no event). */
  recordUnknown(outcome: UnknownOutcome): Promise<void>;
  /**
   * Leaves, in each cliKey's partition, a pointer to the rejected queue message that named it
   * (`eventKeys.sendRejectedPointer`): how a rejection is found by cliKey. Idempotent.
   */
  pointToRejection(rejection: RejectionPointers): Promise<void>;
}

/** The cliKeys a rejected queue message named, to find its "Send Rejected" by. */
export interface RejectionPointers {
  readonly sqsMessageId: string;
  /** At most {@link MAX_REJECTION_POINTERS} distinct cliKeys, each a valid key part. */
  readonly cliKeys: readonly string[];
  /** When the message was received, UTC ISO 8601. */
  readonly receivedAt: string;
}

/**
 * A message has at most 10 recipients: a rejected one naming more leaves pointers for its first 10
 * (its event lists more, and `cliKeyCount`), so that a hostile message costs a bounded number of
 * writes.
 */
export const MAX_REJECTION_POINTERS = 10;

/**
 * Accepted recipients whose delivery report `reconcile-status` looks for later: one check per
 * attempt's acceptances (at most 10 recipients, one status query). At least once: a check may
 * come twice, never not at all once the acceptance is recorded.
 */
export interface ReportCheck {
  readonly channel: SendMessage['channel'];
  /** When the acceptance was recorded, UTC ISO 8601: the status query's date is its KST day. */
  readonly acceptedAt: string;
  readonly recipients: ReadonlyArray<{ readonly cliKey: string; readonly msgKey?: string }>;
}

export interface AwaitingReports {
  /** Queues `check`; resolves once it is durable. */
  expect(check: ReportCheck): Promise<void>;
}
