import {
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { compileFilterCriteria, criteriaOf } from '../aws-semantics/lambda-event-filter.ts';
import { toLambdaRecord } from '../aws-semantics/lambda-stream-record.ts';
import { PUBLISHABLE_RECORD_PATTERN } from '../functions/event-table/stream-filter.ts';
import type { ItemKey } from '../functions/publishing/ports.ts';
import * as z from '../gateway/schemas/zod.ts';
import type { EventItems, FailedBatch, PublishFailures } from './republish.ts';

/*
 * The adapters of `msgbridge events republish`: the publisher's on-failure queue, the table's
 * stream and the event table, on a stack and in the local run alike (which deploys the same
 * queue on fauxqs and the stream on DynamoDB Local).
 */

/** Lambda's on-failure message for a DynamoDB stream: a pointer to the batch, not its records. */
const OnFailureMessageSchema = z.looseObject({
  DDBStreamBatchInfo: z.looseObject({
    shardId: z.string().check(z.minLength(1)),
    startSequenceNumber: z.string().check(z.regex(/^\d+$/)),
    endSequenceNumber: z.string().check(z.regex(/^\d+$/)),
    streamArn: z.string().check(z.minLength(1)),
  }),
});
type BatchInfo = z.infer<typeof OnFailureMessageSchema>['DDBStreamBatchInfo'];

// Stops reading an open shard that keeps answering empty pages (the range is not coming).
const MAX_EMPTY_READS = 5;
const MAX_READS = 1_000;

/** The publisher's event source filter, evaluated as Lambda evaluates it. */
const isPublishable = compileFilterCriteria(criteriaOf(PUBLISHABLE_RECORD_PATTERN), 'dynamodb');

/** The stream ran past these records (kept 24 hours), or never had them. */
const GONE = new Set(['TrimmedDataAccessException', 'ResourceNotFoundException']);

/**
 * The event items of one failed batch: the INSERTs of event items (the publisher's filter) in the
 * shard from the start to the end sequence number, read while the stream still holds them.
 */
export const readBatchRange = async (
  streams: DynamoDBStreamsClient,
  info: BatchInfo,
): Promise<{ keys: ItemKey[] } | { unavailable: string }> => {
  const range = `shard ${info.shardId}, sequence numbers ${info.startSequenceNumber}–${info.endSequenceNumber}`;
  const end = BigInt(info.endSequenceNumber);
  const keys: ItemKey[] = [];
  try {
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: info.streamArn,
          ShardId: info.shardId,
          ShardIteratorType: 'AT_SEQUENCE_NUMBER',
          SequenceNumber: info.startSequenceNumber,
        }),
      )
    ).ShardIterator;
    let empty = 0;
    for (let reads = 0; iterator !== undefined && reads < MAX_READS; reads += 1) {
      const page = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: 1_000 }),
      );
      const records = page.Records ?? [];
      for (const record of records) {
        if (BigInt(record.dynamodb?.SequenceNumber ?? '0') > end) return { keys };
        const converted = toLambdaRecord(record, info.streamArn);
        const pk = converted.dynamodb?.Keys?.pk?.S;
        const sk = converted.dynamodb?.Keys?.sk?.S;
        if (isPublishable(converted) && pk !== undefined && sk !== undefined) {
          keys.push({ pk, sk });
        }
        if (record.dynamodb?.SequenceNumber === info.endSequenceNumber) return { keys };
      }
      empty = records.length === 0 ? empty + 1 : 0;
      if (empty >= MAX_EMPTY_READS) break;
      iterator = page.NextShardIterator;
    }
    return { unavailable: `the stream returned only part of ${range}` };
  } catch (error) {
    if (error instanceof Error && GONE.has(error.name)) {
      return {
        unavailable: `the stream no longer holds ${range} (DynamoDB keeps stream records 24 hours)`,
      };
    }
    throw error;
  }
};

/**
 * The publisher's on-failure queue on a stack. Listing receives every message (hidden for
 * `visibilityTimeoutSeconds` meanwhile) and reads each batch's range from the stream; `settle`
 * deletes a message, `release` makes the others visible again at once.
 */
export const queuePublishFailures = (options: {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly streams: DynamoDBStreamsClient;
  readonly visibilityTimeoutSeconds?: number;
}): PublishFailures & { release(): Promise<void> } => {
  const received = new Map<string, Message>();
  return {
    list: async () => {
      for (;;) {
        const answer = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: options.visibilityTimeoutSeconds ?? 900,
          }),
        );
        const messages = (answer.Messages ?? []).filter(
          (message) => message.MessageId !== undefined && !received.has(message.MessageId),
        );
        if (messages.length === 0) break;
        for (const message of messages) received.set(message.MessageId ?? '', message);
      }
      const batches: FailedBatch[] = [];
      for (const [id, message] of received) {
        let body: unknown;
        try {
          body = JSON.parse(message.Body ?? '');
        } catch {
          body = undefined;
        }
        const parsed = OnFailureMessageSchema.safeParse(body);
        if (!parsed.success) {
          batches.push({
            id,
            description: `message ${id}`,
            unavailable: 'not a DynamoDB stream batch pointer (DDBStreamBatchInfo)',
          });
          continue;
        }
        const info = parsed.data.DDBStreamBatchInfo;
        const found = await readBatchRange(options.streams, info);
        batches.push({
          id,
          description: `shard ${info.shardId}, ${info.startSequenceNumber}–${info.endSequenceNumber}`,
          ...found,
        });
      }
      return batches;
    },
    settle: async (batch) => {
      const handle = received.get(batch.id)?.ReceiptHandle;
      if (handle === undefined) return;
      await options.sqs.send(
        new DeleteMessageCommand({ QueueUrl: options.queueUrl, ReceiptHandle: handle }),
      );
      received.delete(batch.id);
    },
    release: async () => {
      const left = [...received.values()].filter((message) => message.ReceiptHandle);
      for (let start = 0; start < left.length; start += 10) {
        await options.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: options.queueUrl,
            Entries: left.slice(start, start + 10).map((message, index) => ({
              Id: `m${start + index}`,
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: 0,
            })),
          }),
        );
      }
      received.clear();
    },
  };
};

/** Event-table items by key (strongly consistent: the item may have been written just now). */
export const tableItems = (documents: DynamoDBDocumentClient, tableName: string): EventItems => ({
  get: async (key) =>
    (
      await documents.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: key.pk, sk: key.sk },
          ConsistentRead: true,
        }),
      )
    ).Item,
});
