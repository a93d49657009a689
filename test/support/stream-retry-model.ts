import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';

/**
 * Lambda's retry rules for a DynamoDB-stream event source with `ReportBatchItemFailures`, written
 * from the Lambda documentation (and matching local/stream-batch-delivery.ts, which the stream
 * poller runs them with against a real stream): a batch whose answer names failed records is
 * checkpointed before the lowest one and retried from there; a batch that fails as a whole (the
 * handler threw, or the lowest failure is its first record) is split in two when bisection is on;
 * a record still failing after `maxRetries` goes to the on-failure destination, with every record
 * after it in its segment.
 * Synchronous and in memory, so property tests can run thousands of stream histories.
 */
export interface StreamRetryOptions {
  readonly batchSize: number;
  readonly maxRetries: number;
  readonly bisect: boolean;
}

export interface StreamRetryResult {
  /** Records handed to the on-failure destination. */
  readonly onFailure: DynamoDBRecord[];
  readonly invocations: number;
}

interface Segment {
  readonly records: DynamoDBRecord[];
  readonly failedAttempts: number;
}

export const runStreamWithRetries = async (
  records: readonly DynamoDBRecord[],
  handler: (event: { Records: DynamoDBRecord[] }) => Promise<DynamoDBBatchResponse>,
  options: StreamRetryOptions,
): Promise<StreamRetryResult> => {
  const onFailure: DynamoDBRecord[] = [];
  let invocations = 0;
  for (let start = 0; start < records.length; start += options.batchSize) {
    const work: Segment[] = [
      { records: records.slice(start, start + options.batchSize), failedAttempts: 0 },
    ];
    for (let segment = work.shift(); segment; segment = work.shift()) {
      invocations += 1;
      let committed: number;
      try {
        const response = await handler({ Records: structuredClone(segment.records) });
        const failed = response.batchItemFailures.map((failure) =>
          segment.records.findIndex(
            (record) => record.dynamodb?.SequenceNumber === failure.itemIdentifier,
          ),
        );
        if (failed.length === 0) continue;
        if (failed.some((index) => index < 0)) throw new Error('unknown itemIdentifier');
        committed = Math.min(...failed);
      } catch {
        committed = 0;
      }
      const rest = segment.records.slice(committed);
      const failedAttempts = segment.failedAttempts + 1;
      if (committed > 0) work.unshift({ records: rest, failedAttempts });
      else if (options.bisect && rest.length > 1) {
        const middle = Math.ceil(rest.length / 2);
        work.unshift(
          { records: rest.slice(0, middle), failedAttempts: segment.failedAttempts },
          { records: rest.slice(middle), failedAttempts: segment.failedAttempts },
        );
      } else if (failedAttempts <= options.maxRetries)
        work.unshift({ records: rest, failedAttempts });
      else onFailure.push(...rest);
    }
  }
  return { onFailure, invocations };
};
