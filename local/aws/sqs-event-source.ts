/**
 * Lambda's SQS event source, as the Lambda developer guide documents it, with an event source
 * mapping's settings from the template: pollers receive up to `BatchSize` messages, waiting up to
 * `MaximumBatchingWindowInSeconds` to fill a batch; messages the filter criteria do not match are
 * deleted without an invocation; each batch is one invocation, at most `MaximumConcurrency` at a
 * time (five pollers to start with, one more for each full batch, up to that); after it, Lambda deletes the batch (or, with `ReportBatchItemFailures`, every message the
 * response does not name as failed). An invocation that fails or times out deletes nothing: every
 * message of its batch comes back after its visibility timeout, and the queue's redrive policy
 * takes it to the dead-letter queue in the end. A response naming a message that is not in the
 * batch, or without an identifier, fails the whole batch, as Lambda treats it.
 */

import { setMaxListeners } from 'node:events';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventSourceMappingDefinition } from '../../aws-semantics/cloudformation-template.ts';

export interface SqsEventSourceOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  readonly mapping: EventSourceMappingDefinition;
  /** Lambda's filter: true when the record goes to the function. */
  readonly filter: (record: SQSRecord) => boolean;
  /** Invokes the function with a batch; rejects when the invocation failed or timed out. */
  readonly invoke: (event: SQSEvent) => Promise<unknown>;
  readonly onError?: (error: unknown) => void;
  /** Pollers when the mapping sets no `MaximumConcurrency`. @default 5 */
  readonly defaultConcurrency?: number;
}

export interface SqsEventSource {
  stop(): Promise<void>;
  /** Messages received, handled (deleted after the invocation), failed, and filtered out. */
  readonly stats: { received: number; succeeded: number; failed: number; filtered: number };
}

/** Pollers a source starts with (Lambda's documented starting point for an SQS source). */
const INITIAL_POLLERS = 5;

export const startSqsEventSource = (options: SqsEventSourceOptions): SqsEventSource => {
  const { sqs, queueUrl, mapping } = options;
  const stats = { received: 0, succeeded: 0, failed: 0, filtered: 0 };
  let running = true;
  let fullBatch: () => void = () => undefined;
  const aborter = new AbortController();
  const windowMs = mapping.maxBatchingWindowSeconds * 1_000;

  const receive = async (max: number): Promise<Message[]> => {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, max),
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: aborter.signal },
    );
    return answer.Messages ?? [];
  };

  /** A batch: the first receive, then more until it is full or the batching window closes. */
  const batch = async (): Promise<Message[]> => {
    const messages = await receive(mapping.batchSize);
    if (messages.length === 0 || windowMs === 0) return messages;
    const closes = Date.now() + windowMs;
    while (running && messages.length < mapping.batchSize && Date.now() < closes) {
      const more = await receive(mapping.batchSize - messages.length);
      messages.push(...more);
      if (more.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return messages;
  };

  const remove = async (messages: readonly Message[]): Promise<number> => {
    let removed = 0;
    for (let start = 0; start < messages.length; start += 10) {
      const slice = messages.slice(start, start + 10);
      const answer = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: slice.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
      removed += slice.length - (answer.Failed ?? []).length;
    }
    return removed;
  };

  const worker = async () => {
    while (running) {
      try {
        const messages = await batch();
        if (messages.length === 0) continue;
        // A full batch means a backlog: one more poller, as Lambda scales a source up.
        if (messages.length >= mapping.batchSize) fullBatch();
        stats.received += messages.length;
        const records = messages.map((message) => toRecord(message, options));
        const passing = records.filter((record) => options.filter(record));
        const filteredOut = messages.filter(
          (_, index) => !passing.includes(records[index] as SQSRecord),
        );
        // Lambda deletes what the filter criteria leave out.
        if (filteredOut.length > 0) stats.filtered += await remove(filteredOut);
        if (passing.length === 0) continue;
        let response: unknown;
        try {
          response = await options.invoke({ Records: passing });
        } catch (error) {
          stats.failed += passing.length;
          if (running) options.onError?.(error);
          continue;
        }
        const failed = failedIds(response, passing, mapping.reportBatchItemFailures);
        const done = messages.filter(
          (message) =>
            !failed.has(message.MessageId ?? '') &&
            passing.some((record) => record.messageId === message.MessageId),
        );
        stats.failed += passing.length - done.length;
        stats.succeeded += await remove(done);
      } catch (error) {
        if (!running) return;
        options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  // Lambda starts a source with a few pollers and adds more while batches come back full, up to
  // the mapping's maximum concurrency; a quiet queue keeps only the first ones polling.
  const most = mapping.maxConcurrency ?? options.defaultConcurrency ?? 5;
  // Each poller's receive listens for the stop.
  setMaxListeners(most + 10, aborter.signal);
  const workers: Promise<void>[] = [];
  const grow = () => {
    if (running && workers.length < most) workers.push(worker());
  };
  for (let i = 0; i < Math.min(INITIAL_POLLERS, most); i += 1) grow();
  fullBatch = grow;
  return {
    stats,
    stop: async () => {
      running = false;
      aborter.abort();
      await Promise.allSettled(workers);
    },
  };
};

/**
 * The messages of the batch that stay on the queue after a successful invocation: none, unless
 * the mapping reports batch item failures and the response names some. A response that names a
 * message outside the batch, or an empty identifier, fails the whole batch.
 */
const failedIds = (
  response: unknown,
  records: readonly SQSRecord[],
  reportBatchItemFailures: boolean,
): Set<string> => {
  const all = new Set(records.map((record) => record.messageId));
  if (!reportBatchItemFailures || response === undefined || response === null) return new Set();
  const failures = (response as Partial<SQSBatchResponse>).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const ids = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '' || !all.has(id)) return all;
    ids.add(id);
  }
  return ids;
};

/** The record Lambda hands the function for a message. */
const toRecord = (message: Message, options: SqsEventSourceOptions): SQSRecord =>
  ({
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
      SenderId: message.Attributes?.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp:
        message.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue
            ? Buffer.from(value.BinaryValue).toString('base64')
            : undefined,
          stringListValues: [],
          binaryListValues: [],
          dataType: value.DataType ?? 'String',
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn,
    awsRegion: options.region,
  }) as SQSRecord;
