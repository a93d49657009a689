/**
 * The Lambda concurrency a synthesized template fixes, as Lambda applies each setting: an SQS
 * event source mapping's `MaximumConcurrency` is the most concurrent invocations its pollers make
 * (Lambda developer guide, "Configuring maximum concurrency for Amazon SQS event sources"); a
 * DynamoDB stream mapping runs `ParallelizationFactor` batches of each shard at once ("Using
 * Lambda with DynamoDB", parallelization factor); a function's reserved concurrency is held for it
 * whether it runs or not. What the webhook receivers use is not fixed: it follows the requests.
 * Read by the before-deploy rule and by `msgbridge doctor`, so both count the same executions.
 */
import type { StackTemplate } from './cloudformation-template.ts';
import { NEW_TABLE_STREAM_SHARDS } from './default-quotas.ts';

/** One function's share of the fixed concurrency, and what fixes it. */
export interface FixedConcurrencyPart {
  readonly functionName: string;
  readonly executions: number;
  readonly why: string;
}

export interface FixedConcurrency {
  readonly total: number;
  readonly parts: readonly FixedConcurrencyPart[];
  /** The stream shards the stream consumers were counted on. */
  readonly streamShards: number;
}

/**
 * The executions the template's settings can hold at once. A function with a reservation counts
 * its reservation (its mappings cannot take more); otherwise its SQS mappings' maximum
 * concurrency, and its stream mappings' parallelization factor × `streamShards` (by default the
 * shards of a new on-demand table; a busier table has more, and its consumers more with them).
 */
export const fixedConcurrency = (
  stack: StackTemplate,
  { streamShards = NEW_TABLE_STREAM_SHARDS }: { readonly streamShards?: number } = {},
): FixedConcurrency => {
  const mappings = stack.eventSourceMappings();
  const parts = stack.functions().flatMap((fn): FixedConcurrencyPart[] => {
    if ((fn.reservedConcurrency ?? 0) > 0)
      return [
        {
          functionName: fn.name,
          executions: fn.reservedConcurrency ?? 0,
          why: 'reserved concurrency',
        },
      ];
    const own = mappings.filter((mapping) => mapping.functionId === fn.logicalId);
    const pieces = own.flatMap((mapping) => {
      if (mapping.kind === 'sqs')
        return mapping.maxConcurrency === undefined
          ? []
          : [{ executions: mapping.maxConcurrency, why: 'maxConcurrency of its queue' }];
      return [
        {
          executions: mapping.parallelizationFactor * streamShards,
          why: `parallelization factor ${mapping.parallelizationFactor} × ${streamShards} stream shards`,
        },
      ];
    });
    if (pieces.length === 0) return [];
    return [
      {
        functionName: fn.name,
        executions: pieces.reduce((sum, piece) => sum + piece.executions, 0),
        why: pieces.map((piece) => piece.why).join(' + '),
      },
    ];
  });
  return {
    total: parts.reduce((sum, part) => sum + part.executions, 0),
    parts,
    streamShards,
  };
};
