/**
 * Every AWS SDK call a function of the local run makes, by the function's name: a middleware on
 * each client the function is given (its composition's, and those Lambda uses with the function's
 * role on its behalf: an event source reading its stream or queue, an on-failure destination). The
 * IAM check replays them against the synthesized policies (test/support/iam-replay.ts).
 *
 * Only what an authorization decision reads is kept: the operation, the resources it names, and
 * the keys whose values IAM conditions may test, never an item, a message body or a secret.
 */
import type { MiddlewareStack } from '@smithy/types';

export interface RecordedCall {
  /** The function whose role makes the call (`send-messages`). */
  readonly functionName: string;
  /** The SDK client's service, from its client name: `DynamoDB`, `SQS`, `S3`, `SecretsManager`, `EventBridge`, `DynamoDBStreams`. */
  readonly service: string;
  /** The operation, without its `Command` suffix: `PutItem`. */
  readonly operation: string;
  /** What the call names, by the input's own field names (see `summariseInput`). */
  readonly input: Readonly<Record<string, unknown>>;
}

/** Where recorded calls go; one per local run, and every run of a test file in one list. */
export class AwsCallRecorder {
  readonly calls: RecordedCall[] = [];
  private readonly seen = new Set<string>();

  /** Adds the recording middleware to `client`, attributing its calls to `functionName`. */
  attach<C extends { readonly middlewareStack: unknown }>(client: C, functionName: string): C {
    (client.middlewareStack as MiddlewareStack<object, object>).add(
      (next, context) => async (args) => {
        const call: RecordedCall = {
          functionName,
          service: String(context.clientName ?? '').replace(/Client$/, ''),
          operation: String(context.commandName ?? '').replace(/Command$/, ''),
          input: summariseInput(args.input),
        };
        // The same call twice is one authorization question: keep it once, and calls that differ
        // only in an item's key or an object's name within the same prefix once too.
        const key = JSON.stringify({ ...call, input: shapeOf(call.input) });
        if (!this.seen.has(key)) {
          this.seen.add(key);
          this.calls.push(call);
        }
        return next(args);
      },
      { step: 'initialize', name: 'msgbridgeRecordAwsCall', override: true },
    );
    return client;
  }
}

/** The fields of a request an IAM decision reads, by service; values of keys only. */
export const summariseInput = (input: unknown): Record<string, unknown> => {
  if (typeof input !== 'object' || input === null) return {};
  const source = input as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const name of [
    'TableName',
    'IndexName',
    'StreamArn',
    'QueueUrl',
    'Bucket',
    'Key',
    'Prefix',
    'SecretId',
  ])
    if (typeof source[name] === 'string') picked[name] = source[name];
  // The partition key values a DynamoDB call touches (dynamodb:LeadingKeys).
  const leading = leadingKeys(source);
  if (leading.length > 0) picked.LeadingKeys = leading;
  // Calls on several tables (batches, transactions), each with the partition keys it touches.
  if (typeof source.RequestItems === 'object' && source.RequestItems !== null)
    picked.Tables = Object.entries(source.RequestItems as Record<string, unknown>).map(
      ([tableName, request]) => ({ TableName: tableName, LeadingKeys: batchKeys(request) }),
    );
  if (Array.isArray(source.TransactItems))
    picked.TransactItems = source.TransactItems.map((item) => {
      const [operation, body] = Object.entries(item as Record<string, unknown>)[0] ?? [];
      const table = (body as { TableName?: unknown } | undefined)?.TableName;
      return {
        operation,
        TableName: typeof table === 'string' ? table : undefined,
        LeadingKeys: leadingKeys((body ?? {}) as Record<string, unknown>),
      };
    });
  if (Array.isArray(source.Entries) && source.Entries.some((entry) => 'EventBusName' in entry))
    picked.EventBusNames = [
      ...new Set(source.Entries.map((entry) => (entry as { EventBusName?: string }).EventBusName)),
    ];
  return picked;
};

/**
 * A string attribute's value, marshalled (`{ S: 'X' }`, the DynamoDB client's input) or not (`'X'`,
 * the document client's, which marshals after this middleware has seen the input).
 */
const stringOf = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  const marshalled = (value as { S?: unknown } | undefined)?.S;
  return typeof marshalled === 'string' ? marshalled : undefined;
};

const keyOf = (value: unknown): string | undefined =>
  stringOf((value as { pk?: unknown } | undefined)?.pk);

/** The partition keys of one table's part of a BatchGetItem or BatchWriteItem. */
const batchKeys = (request: unknown): string[] => {
  const keys = Array.isArray(request)
    ? request.map((write) => {
        const each = write as {
          PutRequest?: { Item?: unknown };
          DeleteRequest?: { Key?: unknown };
        };
        return keyOf(each.PutRequest?.Item ?? each.DeleteRequest?.Key);
      })
    : ((request as { Keys?: unknown[] } | undefined)?.Keys ?? []).map(keyOf);
  return [...new Set(keys.filter((key): key is string => key !== undefined))];
};

const leadingKeys = (input: Record<string, unknown>): string[] => {
  const found = [keyOf(input.Key), keyOf(input.Item)].filter(
    (key): key is string => key !== undefined,
  );
  const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
  const condition = input.KeyConditionExpression;
  if (typeof condition === 'string' && values) {
    const match = /\bpk\s*=\s*(:\w+)/.exec(condition);
    const value = match?.[1] ? stringOf(values[match[1]]) : undefined;
    if (typeof value === 'string') found.push(value);
  }
  return found;
};

/** A call's input with each key and object name cut to its prefix, for telling calls apart. */
const shapeOf = (input: unknown): unknown => {
  if (Array.isArray(input)) return input.map(shapeOf);
  if (typeof input !== 'object' || input === null) return input;
  return Object.fromEntries(
    Object.entries(input).map(([name, value]) => [
      name,
      name === 'Key' && typeof value === 'string'
        ? value.replace(/[^/]*$/, '')
        : name === 'LeadingKeys' && Array.isArray(value)
          ? [...new Set(value.map((key: string) => key.replace(/#.*$/, '#')))].sort()
          : shapeOf(value),
    ]),
  );
};
