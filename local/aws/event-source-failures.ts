/**
 * What Lambda sends an event source mapping's on-failure destination when it gives up on a batch of
 * stream records: not the records, an invocation record pointing at them in the stream (Lambda
 * developer guide, "Capturing discarded batches for a DynamoDB Streams event source"). The local run
 * sends the same message to the same queue, so `msgbridge events republish` reads it as deployed.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBRecord } from 'aws-lambda';
import type { StreamFailureCondition } from '../stream-poller-options.ts';

export interface StreamInvocationRecordInput {
  readonly records: readonly DynamoDBRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  readonly functionArn: string;
  readonly condition: StreamFailureCondition;
  readonly attempts: number;
}

const isoSeconds = (epochSeconds: number | undefined): string =>
  new Date((epochSeconds ?? Date.now() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The invocation record of a discarded batch, as Lambda writes it for DynamoDB streams. */
export const streamInvocationRecord = (input: StreamInvocationRecordInput) => {
  const first = input.records[0]?.dynamodb;
  const last = input.records.at(-1)?.dynamodb;
  return {
    requestContext: {
      requestId: randomUUID(),
      functionArn: input.functionArn,
      condition: input.condition,
      approximateInvokeCount: Math.max(1, input.attempts),
    },
    responseContext: {
      statusCode: 200,
      executedVersion: '$LATEST',
      functionError: 'Unhandled',
    },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId: input.shardId,
      startSequenceNumber: first?.SequenceNumber ?? '',
      endSequenceNumber: last?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: isoSeconds(first?.ApproximateCreationDateTime),
      approximateArrivalOfLastRecord: isoSeconds(last?.ApproximateCreationDateTime),
      batchSize: input.records.length,
      streamArn: input.streamArn,
    },
  };
};
