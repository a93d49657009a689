import {
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** Entries SQS failed on its side are sent again this many times before they stay in the DLQ. */
export const REDRIVE_SEND_RETRIES = 3;

export interface RedriveOptions {
  readonly sqs: SQSClient;
  readonly dlqUrl: string;
  readonly queueUrl: string;
  /** Stop after moving this many. @default no limit */
  readonly max?: number;
  /** Called after every batch with the number moved so far. */
  readonly onProgress?: (moved: number) => void;
  /** How long a received message stays invisible in the DLQ while it is being moved. @default 60 */
  readonly visibilityTimeoutSeconds?: number;
}

export interface RedriveFailure {
  readonly messageId: string;
  readonly code: string;
  readonly message: string;
}

export interface RedriveResult {
  /** Sent to the queue and deleted from the DLQ. */
  moved: number;
  /** Not sent: they stay in the DLQ and reappear after the visibility timeout. */
  notSent: RedriveFailure[];
  /** Sent, but the delete failed: they will be redriven again (harmless: the sender dedupes). */
  notDeleted: RedriveFailure[];
}

// SendMessage accepts String and Binary attributes; the list forms are reserved by SQS.
const attributesOf = (message: Message): Record<string, MessageAttributeValue> | undefined => {
  const entries = Object.entries(message.MessageAttributes ?? {}).map(
    ([name, value]) =>
      [
        name,
        {
          DataType: value.DataType,
          ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
          ...(value.BinaryValue === undefined ? {} : { BinaryValue: value.BinaryValue }),
        },
      ] as const,
  );
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
};

/**
 * Sends the batch to the queue, retrying only the entries SQS failed on its side; returns the
 * indexes that were sent and the failures that were not.
 */
const sendAll = async (
  sqs: SQSClient,
  queueUrl: string,
  batch: readonly Message[],
): Promise<{ sent: Set<number>; failed: RedriveFailure[] }> => {
  const sent = new Set<number>();
  const failed: RedriveFailure[] = [];
  let pending = batch.map((message, index) => ({ message, index }));
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    const answer = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: pending.map(({ message, index }) => {
          const attributes = attributesOf(message);
          return {
            Id: `m${index}`,
            MessageBody: message.Body ?? '',
            ...(attributes === undefined ? {} : { MessageAttributes: attributes }),
          };
        }),
      }),
    );
    const ok = new Set((answer.Successful ?? []).map((entry) => entry.Id));
    const failures = new Map((answer.Failed ?? []).map((entry) => [entry.Id, entry]));
    const retry: typeof pending = [];
    for (const entry of pending) {
      const id = `m${entry.index}`;
      if (ok.has(id)) {
        sent.add(entry.index);
        continue;
      }
      const failure = failures.get(id);
      if (failure?.SenderFault !== true && attempt < REDRIVE_SEND_RETRIES) {
        retry.push(entry);
        continue;
      }
      failed.push({
        messageId: entry.message.MessageId ?? id,
        code: failure?.Code ?? 'NoResult',
        message: failure?.Message ?? 'SQS reported no result for this entry',
      });
    }
    pending = retry;
  }
  return { sent, failed };
};

/**
 * Moves messages from the DLQ back to the queue: receives up to 10 (long poll 1 s), sends them
 * with their body and message attributes, and deletes from the DLQ only the ones that were sent.
 * Repeats until the DLQ answers empty or `max` are moved. Safe to repeat: the sender dedupes on
 * `cliKey`, so a message that is sent twice is accepted once.
 */
export const redriveDlq = async (options: RedriveOptions): Promise<RedriveResult> => {
  const { sqs, dlqUrl, queueUrl } = options;
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const result: RedriveResult = { moved: 0, notSent: [], notDeleted: [] };
  while (result.moved < max) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - result.moved),
        WaitTimeSeconds: 1,
        VisibilityTimeout: options.visibilityTimeoutSeconds ?? 60,
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) break;
    const { sent, failed } = await sendAll(sqs, queueUrl, messages);
    result.notSent.push(...failed);
    const toDelete = messages.flatMap((message, index) =>
      sent.has(index) && message.ReceiptHandle !== undefined
        ? [{ Id: `d${index}`, ReceiptHandle: message.ReceiptHandle, message }]
        : [],
    );
    if (toDelete.length > 0) {
      const deleted = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: dlqUrl,
          Entries: toDelete.map(({ Id, ReceiptHandle }) => ({ Id, ReceiptHandle })),
        }),
      );
      const gone = new Set((deleted.Successful ?? []).map((entry) => entry.Id));
      const why = new Map((deleted.Failed ?? []).map((entry) => [entry.Id, entry]));
      for (const entry of toDelete) {
        if (gone.has(entry.Id)) continue;
        result.notDeleted.push({
          messageId: entry.message.MessageId ?? entry.Id,
          code: why.get(entry.Id)?.Code ?? 'NoResult',
          message: why.get(entry.Id)?.Message ?? 'SQS reported no result for this delete',
        });
      }
    }
    // Counted as moved once sent: a failed delete means a repeat later, not a loss.
    result.moved += sent.size;
    options.onProgress?.(result.moved);
    // A batch of which nothing could be sent would come back forever; stop and report it.
    if (sent.size === 0) break;
  }
  return result;
};
