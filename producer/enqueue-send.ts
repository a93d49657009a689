import { setTimeout as sleep } from 'node:timers/promises';
import type { SendMessageBatchCommandOutput, SQSClient } from '@aws-sdk/client-sqs';
import { type Backoff, backoffDelay } from '../functions/commons/helpers/backoff.ts';
import type { Problem, SendMessageInput } from '../functions/send-contract/queue-message.ts';
import { parseSendMessage } from '../functions/send-contract/queue-message-parsing.ts';

/** SendMessageBatch takes at most 10 entries… */
export const SQS_MAX_BATCH_ENTRIES = 10;
/** …and at most 256 KiB of message bodies per call (and per message). */
export const SQS_MAX_BATCH_BYTES = 256 * 1024;
/** Entries SQS failed on its side (`SenderFault: false`) are sent again up to this many times. */
export const MAX_ENQUEUE_RETRIES = 3;
/** The waits between sends of the entries SQS failed on its side: 50 ms, 100 ms, 200 ms. */
const RETRY_BACKOFF: Backoff = { firstMs: 50, maxMs: 1_000, jitter: 0.5 };

export interface EnqueueSendResult {
  /** Accepted by SQS, with the SQS message id. */
  queued: Array<{ index: number; messageId: string }>;
  /** Refused by `parseSendMessage`; never sent. */
  invalid: Array<{ index: number; problems: Problem[] }>;
  /** Valid, but SQS did not take it: a sender fault, retries exhausted, or the call failed. */
  failed: Array<{ index: number; code: string; message: string }>;
}

interface Pending {
  readonly index: number;
  readonly id: string;
  readonly body: string;
  readonly bytes: number;
}

/** Groups entries in order into batches of at most 10 entries and 256 KiB. */
const toBatches = (entries: readonly Pending[]): Pending[][] => {
  const batches: Pending[][] = [];
  let current: Pending[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (current.length === SQS_MAX_BATCH_ENTRIES || bytes + entry.bytes > SQS_MAX_BATCH_BYTES) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += entry.bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
};

const describeError = (error: unknown): { code: string; message: string } =>
  error instanceof Error
    ? { code: error.name, message: error.message }
    : { code: 'Error', message: String(error) };

/**
 * Sends one batch and then its retryable failures again. `SendMessageBatch` is a partial-failure
 * API: every entry's result is checked, and an entry missing from both lists counts as a
 * retryable failure.
 */
const sendBatch = async (
  sqs: SQSClient,
  queueUrl: string,
  batch: readonly Pending[],
  result: EnqueueSendResult,
): Promise<void> => {
  // Loaded here, not with the module: `parseSendMessage` needs no SQS client, and a producer that
  // queues has `@aws-sdk/client-sqs` already (the package's optional peer dependency).
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  let entries = batch;
  for (let attempt = 0; entries.length > 0; attempt += 1) {
    if (attempt > 0) {
      await sleep(backoffDelay(RETRY_BACKOFF, attempt));
    }
    let response: SendMessageBatchCommandOutput;
    try {
      response = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: entries.map((entry) => ({ Id: entry.id, MessageBody: entry.body })),
        }),
      );
    } catch (error) {
      // The SDK has already retried throttling and server errors; what reaches here is final.
      const { code, message } = describeError(error);
      for (const entry of entries) result.failed.push({ index: entry.index, code, message });
      return;
    }
    const succeeded = new Map((response.Successful ?? []).map((entry) => [entry.Id, entry]));
    const failures = new Map((response.Failed ?? []).map((entry) => [entry.Id, entry]));
    const retry: Pending[] = [];
    for (const entry of entries) {
      const messageId = succeeded.get(entry.id)?.MessageId;
      if (messageId !== undefined) {
        result.queued.push({ index: entry.index, messageId });
        continue;
      }
      const failure = failures.get(entry.id);
      if (failure?.SenderFault !== true && attempt < MAX_ENQUEUE_RETRIES) {
        retry.push(entry);
        continue;
      }
      result.failed.push({
        index: entry.index,
        code: failure?.Code ?? 'NoResult',
        message:
          failure === undefined
            ? `SQS reported no result for this entry in ${attempt + 1} attempts`
            : `${failure.Message ?? failure.Code ?? 'failed'}${failure.SenderFault === true ? '' : ` (after ${attempt + 1} attempts)`}`,
      });
    }
    entries = retry;
  }
};

/**
 * Puts send messages on the send queue, for TypeScript producers.
 *
 * Each message is first checked with `parseSendMessage`, the validation the sender runs: an
 * invalid message is not sent and comes back in `invalid` with every problem. The valid ones go
 * out with `SendMessageBatch` in batches of at most 10 entries and 256 KiB; entries SQS failed on
 * its side (`SenderFault: false`) are retried up to 3 times with a short backoff, and what still
 * fails, or failed through the sender's fault, comes back in `failed`. Every input appears in
 * exactly one of the three lists, by its index in `messages`. The queue is a standard queue.
 *
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { enqueueSend } from 'msgbridge/send';
 *
 * const sqs = new SQSClient({});
 * const { queued, invalid, failed } = await enqueueSend(sqs, process.env.SEND_QUEUE_URL, [
 *   {
 *     channel: 'sms',
 *     callback: '0215880000',
 *     msg: '[한빛마트] #{name}님, 주문이 접수되었습니다.',
 *     recvInfoLst: [{ cliKey: 'order-1001', phone: '01012345678', mergeData: { name: '김민지' } }],
 *   },
 * ]);
 * for (const { index, problems } of invalid) {
 *   for (const problem of problems) console.error(`#${index} ${problem.path}: ${problem.message}`);
 * }
 * ```
 */
export const enqueueSend = async (
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly SendMessageInput[],
  options: { now?: Date } = {},
): Promise<EnqueueSendResult> => {
  const now = options.now ?? new Date();
  const result: EnqueueSendResult = { queued: [], invalid: [], failed: [] };
  const pending: Pending[] = [];
  messages.forEach((message, index) => {
    const parsed = parseSendMessage(message, { now });
    if (!parsed.ok) {
      result.invalid.push({ index, problems: parsed.problems });
      return;
    }
    const body = JSON.stringify(message);
    const bytes = Buffer.byteLength(body, 'utf8');
    if (bytes > SQS_MAX_BATCH_BYTES) {
      result.failed.push({
        index,
        code: 'MessageTooLarge',
        message: `the message is ${bytes} bytes as JSON; an SQS message holds at most ${SQS_MAX_BATCH_BYTES}`,
      });
      return;
    }
    pending.push({ index, id: `m${index}`, body, bytes });
  });

  for (const batch of toBatches(pending)) await sendBatch(sqs, queueUrl, batch, result);

  const byIndex = (a: { index: number }, b: { index: number }) => a.index - b.index;
  result.queued.sort(byIndex);
  result.failed.sort(byIndex);
  return result;
};
