/**
 * The send queue's event source concurrency a deployment gets when `sending.maxConcurrency` is
 * not set: enough `send-messages` invocations for 1-recipient messages to fill the gateway's TPS
 * quota. Kept free of CDK so the generated docs (docs/sending.md) state the same rule.
 */

/**
 * Recipients a second one `send-messages` invocation is counted on for 1-recipient messages (the
 * slowest kind per recipient): a batch of 10 takes its claims, one shared quota write, ten gateway
 * calls at once (as long as the slowest) and the records. The local run measured about 43 (a
 * batch in 233 ms, the gateway answering in 50–150 ms: `npm run bench -- send-defaults`).
 *
 * It is not lower, for a wider margin, because it also sets how long 10-recipient messages wait
 * for the quota: each invocation's 100 recipients take their turn with every other's, about
 * 100 / 34 ≈ 3 s, and a gateway call waits for its share of the quota on a connection it already
 * holds (the reservation is made just before the request is written, so the request lands in the
 * second it was counted in). A server closes a connection idle for 5 s (Node's and Apache httpd's
 * default): at 4 or 5 invocations for a quota of 100 (waits of 4–5 s) the local run lost 17 to 24
 * of 300 such messages' calls to "socket hang up", retried 15 s later, and used 0.90–0.95 of the
 * quota; at 3, none, and all of it.
 */
export const SENDER_RECIPIENTS_PER_SECOND = 34;

/**
 * The most concurrency the default takes (8,500 recipients a second at the rate above): with
 * the other consumers' (about 100), it stays well inside a default account's 1,000 executions.
 * A larger quota sets `sending.maxConcurrency` and the account's concurrency together.
 */
export const MAX_DEFAULT_SEND_CONCURRENCY = 250;

/** Lambda's least maximum concurrency for an SQS event source. */
export const MIN_SEND_CONCURRENCY = 2;

/** max(2, min(250, ceil(tpsQuota / 34))): 2 up to a quota of 68, 3 at 100, 30 at 1,000. */
export const defaultSendConcurrency = (tpsQuota: number): number =>
  Math.max(
    MIN_SEND_CONCURRENCY,
    Math.min(MAX_DEFAULT_SEND_CONCURRENCY, Math.ceil(tpsQuota / SENDER_RECIPIENTS_PER_SECOND)),
  );
