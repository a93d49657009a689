/**
 * A stream handler's partial batch response, read the way Lambda reads it with
 * `ReportBatchItemFailures`: which records of a batch are done, and why the rest is retried.
 */
import type { DynamoDBRecord } from 'aws-lambda';

/** The handler named failed records in a partial batch response. */
export class BatchItemFailuresError extends Error {
  override readonly name = 'BatchItemFailuresError';
  constructor(readonly itemIdentifiers: readonly string[]) {
    super(`The handler reported failed records: ${itemIdentifiers.join(', ')}`);
  }
}

/** The handler's partial batch response was malformed; Lambda fails the whole batch for it. */
export class InvalidBatchResponseError extends Error {
  override readonly name = 'InvalidBatchResponseError';
}

/** What one invocation of the handler settled: all of the batch, or the first `committed` records. */
export type InvocationOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly committed: number; readonly error: Error };

/**
 * Reads a handler's answer the way Lambda does with ReportBatchItemFailures: nothing, `null`, or
 * an empty or missing `batchItemFailures` list is success; a malformed entry or an identifier not
 * in the batch fails the whole batch; otherwise everything before the lowest failed record is
 * done and the rest is retried.
 */
export const interpretResponse = (
  response: unknown,
  records: DynamoDBRecord[],
): InvocationOutcome => {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) {
    return { ok: true };
  }
  const failures: unknown = response.batchItemFailures;
  if (failures === null || failures === undefined) return { ok: true };
  if (!Array.isArray(failures)) {
    return {
      ok: false,
      committed: 0,
      error: new InvalidBatchResponseError('batchItemFailures is not an array'),
    };
  }
  if (failures.length === 0) return { ok: true };
  const positions = new Map(
    records.map((record, index) => [record.dynamodb?.SequenceNumber, index]),
  );
  const identifiers: string[] = [];
  let lowest = records.length;
  for (const failure of failures) {
    const identifier: unknown =
      typeof failure === 'object' && failure !== null && 'itemIdentifier' in failure
        ? failure.itemIdentifier
        : undefined;
    const position = typeof identifier === 'string' ? positions.get(identifier) : undefined;
    if (typeof identifier !== 'string' || identifier === '' || position === undefined) {
      return {
        ok: false,
        committed: 0,
        error: new InvalidBatchResponseError(
          `batchItemFailures holds ${JSON.stringify(failure)}, not the sequence number of a record in the batch`,
        ),
      };
    }
    identifiers.push(identifier);
    lowest = Math.min(lowest, position);
  }
  return { ok: false, committed: lowest, error: new BatchItemFailuresError(identifiers) };
};
