/**
 * What Amazon SQS accepts as a message, as its documentation states it (read 2026-12-07):
 *
 * - SendMessage, `MessageBody` (Amazon SQS API Reference; the same text in the AWS SDK for Kotlin's
 *   `SendMessageRequest.messageBody`,
 *   https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/sqs/aws.sdk.kotlin.services.sqs.model/-send-message-request/message-body.html):
 *   "The maximum size is 1 MiB or 1,048,576 bytes"; the allowed characters are
 *   `#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF`, and "if a message
 *   contains characters outside the allowed set, Amazon SQS rejects the message and returns an
 *   InvalidMessageContents error".
 * - Amazon SQS message quotas, "Message content"
 *   (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html):
 *   the same list; "Any characters not included in this list are rejected."
 *
 * The local run's queue applies this rule (local/aws/local-queues.ts), so it accepts what SQS
 * accepts, no more and no less.
 */

/** The largest message SQS takes: a queue's default `MaximumMessageSize`, and its maximum. */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;

/**
 * A character SQS refuses in a body. Read by code point (`u`): a character above U+FFFF is one
 * allowed code point, while half of a surrogate pair on its own is U+D800–U+DFFF, outside every
 * range, as are U+FFFE, U+FFFF and the control characters other than tab, LF and CR.
 */
export const SQS_INVALID_BODY_CHARACTER =
  /[^\t\n\r\u{20}-\u{D7FF}\u{E000}-\u{FFFD}\u{10000}-\u{10FFFF}]/u;
