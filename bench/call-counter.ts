/**
 * Counts the calls a run makes, by service and operation, with the units AWS bills them in:
 * an SDK middleware for the AWS clients, and the diagnostics channels of Node's `http` client (the
 * gateway calls) and of undici (the simulator's webhook posts) for HTTP. Counting never changes what a call does; the one thing
 * added to a request is `ReturnConsumedCapacity`, so DynamoDB reports the capacity units it used.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { MetadataBearer, MiddlewareStack, SerializeMiddleware } from '@smithy/types';

export interface OperationTally {
  /** Calls made (an SDK call counts once, whatever its retries). */
  calls: number;
  /** Calls that ended in an error. */
  failures: number;
  /** Wall time inside the calls, in milliseconds. */
  ms: number;
  /**
   * What the call is billed in: DynamoDB capacity units (as DynamoDB Local reports them, never
   * below DynamoDB's minimum per request, plus an estimate for refused conditional writes, which
   * are billed but report nothing); SQS requests and EventBridge events in 64 KB chunks;
   * otherwise 1 per call.
   */
  units: number;
}

/** Tallies by `"<service> <operation>[ table[/index]]"`, e.g. `"DynamoDB PutItem msgbridge-events"`. */
export type CallSnapshot = Record<string, OperationTally>;

/** The key prefix of calls a deployment never makes (shown in the calls table, never priced). */
export const LOCAL_ONLY = 'local run only: ';

const KB64 = 64 * 1024;
const chunks64k = (bytes: number) => Math.max(1, Math.ceil(bytes / KB64));

const DYNAMODB_WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);
const DYNAMODB_READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

/** A DynamoDB item's size as DynamoDB counts it, roughly: names plus values, as UTF-8. */
const approximateItemBytes = (value: unknown): number => {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return Math.ceil(String(value).length / 2) + 1;
  if (typeof value === 'boolean') return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value))
    return 3 + value.reduce<number>((sum, item) => sum + 1 + approximateItemBytes(item), 0);
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value).reduce(
        (sum, [name, item]) => sum + Buffer.byteLength(name, 'utf8') + approximateItemBytes(item),
        0,
      )
    );
  return 0;
};

const reportedCapacity = (output: Record<string, unknown>): number => {
  const consumed = output.ConsumedCapacity;
  const entries = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  return entries.reduce<number>(
    (sum, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0),
    0,
  );
};

const readUnit = (request: { ConsistentRead?: unknown }) =>
  request.ConsistentRead === true ? 1 : 0.5;

/**
 * The least DynamoDB bills for a request, which DynamoDB Local does not always report: a read of
 * a missing item or an empty Query or Scan page still costs a read unit (half, eventually
 * consistent), and every write at least one write unit.
 */
const minimumCapacity = (operation: string, input: Record<string, unknown>): number => {
  switch (operation) {
    case 'GetItem':
    case 'Query':
    case 'Scan':
      return readUnit(input);
    case 'BatchGetItem':
      return Object.values(
        (input.RequestItems ?? {}) as Record<
          string,
          { Keys?: unknown[]; ConsistentRead?: boolean }
        >,
      ).reduce((sum, request) => sum + (request.Keys?.length ?? 0) * readUnit(request), 0);
    case 'BatchWriteItem':
      return Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>).reduce(
        (sum, requests) => sum + requests.length,
        0,
      );
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return 2 * (Array.isArray(input.TransactItems) ? input.TransactItems.length : 1);
    default:
      return 1;
  }
};

const bodyBytes = (messages: unknown): number =>
  Array.isArray(messages)
    ? messages.reduce<number>(
        (sum, message: { MessageBody?: string; Body?: string }) =>
          sum + Buffer.byteLength(message.MessageBody ?? message.Body ?? '', 'utf8'),
        0,
      )
    : 0;

/** What an observer of SDK calls is told about each one. */
export interface CallObservation {
  readonly service: string;
  readonly operation: string;
  readonly input: Record<string, unknown>;
  readonly output: Record<string, unknown> | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
}

export class CallCounter {
  private readonly tallies = new Map<string, OperationTally>();

  /** Adds to the tally of `key` (`"<service> <operation>"`). */
  record(key: string, add: Partial<OperationTally>): void {
    const tally = this.tallies.get(key) ?? { calls: 0, failures: 0, ms: 0, units: 0 };
    tally.calls += add.calls ?? 0;
    tally.failures += add.failures ?? 0;
    tally.ms += add.ms ?? 0;
    tally.units += add.units ?? 0;
    this.tallies.set(key, tally);
  }

  snapshot(): CallSnapshot {
    return Object.fromEntries([...this.tallies].map(([key, tally]) => [key, { ...tally }]));
  }

  /**
   * Counts every call of an AWS SDK client (or a DynamoDB document client, which shares its
   * client's stack). Placed first in the serialize step: after the document client's input is
   * complete and before retries, so each call counts once and its output is the service's.
   */
  instrument<I extends object, O extends MetadataBearer>(
    stack: MiddlewareStack<I, O>,
    service: 'DynamoDB' | 'DynamoDB Streams' | 'SQS' | 'S3',
    observe?: (call: CallObservation) => void,
    /**
     * Calls only the local run makes, never a deployment (the stream poller's checkpoints): their
     * keys start with {@link LOCAL_ONLY}, so the cost lines, which match keys from their start,
     * never price them.
     */
    localOnly: (input: Record<string, unknown>) => boolean = () => false,
  ): void {
    const middleware: SerializeMiddleware<I, O> = (next, context) => async (args) => {
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const isWrite = service === 'DynamoDB' && DYNAMODB_WRITES.has(operation);
      const isRead = service === 'DynamoDB' && DYNAMODB_READS.has(operation);
      const request =
        isWrite || isRead
          ? { ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } }
          : args;
      const input = request.input as Record<string, unknown>;
      const table =
        (typeof input.TableName === 'string' ? ` ${input.TableName}` : '') +
        (typeof input.IndexName === 'string' ? `/${input.IndexName}` : '');
      const prefix = localOnly(input) ? LOCAL_ONLY : '';
      const startedAt = performance.now();
      try {
        const result = await next(request);
        const endedAt = performance.now();
        const output = result.output as Record<string, unknown>;
        let key = `${prefix}${service} ${operation}${table}`;
        let units = 1;
        if (isWrite || isRead)
          units = Math.max(reportedCapacity(output), minimumCapacity(operation, input));
        else if (service === 'SQS' && operation === 'SendMessageBatch')
          units = chunks64k(bodyBytes(input.Entries));
        else if (service === 'SQS' && operation === 'SendMessage')
          units = chunks64k(Buffer.byteLength(String(input.MessageBody ?? ''), 'utf8'));
        else if (service === 'SQS' && operation === 'ReceiveMessage') {
          const messages = Array.isArray(output.Messages) ? output.Messages : [];
          if (messages.length === 0) key = `${service} ReceiveMessage (empty)`;
          units = chunks64k(bodyBytes(messages));
        }
        this.record(key, { calls: 1, ms: endedAt - startedAt, units });
        observe?.({ service, operation, input, output, startedAt, endedAt });
        return result;
      } catch (error) {
        const endedAt = performance.now();
        const name = error instanceof Error ? error.name : 'Error';
        // A refused conditional write is billed like a write of the item: at least 1 unit per KB.
        const units =
          isWrite && name === 'ConditionalCheckFailedException'
            ? Math.max(1, Math.ceil(approximateItemBytes(input.Item ?? input.Key) / 1024))
            : 0;
        this.record(`${prefix}${service} ${operation}${table}`, {
          calls: 1,
          failures: 1,
          ms: endedAt - startedAt,
          units,
        });
        observe?.({ service, operation, input, output: undefined, startedAt, endedAt });
        throw error;
      }
    };
    stack.add(middleware, { step: 'serialize', priority: 'high', name: 'benchCallCounter' });
  }
}

/**
 * `later − earlier`, key by key and field by field; keys whose `count` field did not change are
 * left out. Serves the call tallies here and the traffic tallies of traffic.ts.
 */
export const diffTallies = <T extends Record<keyof T, number>>(
  later: Readonly<Record<string, T>>,
  earlier: Readonly<Record<string, T>>,
  count: keyof T & string,
): Record<string, T> => {
  const result: Record<string, T> = {};
  for (const [key, tally] of Object.entries(later)) {
    const before: Partial<Record<string, number>> = earlier[key] ?? {};
    if (tally[count] === (before[count] ?? 0)) continue;
    result[key] = Object.fromEntries(
      Object.entries<number>(tally).map(([field, value]) => [field, value - (before[field] ?? 0)]),
    ) as T;
  }
  return result;
};

/** `later − earlier`, key by key; keys with no calls in between are left out. */
export const diffSnapshots = (later: CallSnapshot, earlier: CallSnapshot): CallSnapshot =>
  diffTallies(later, earlier, 'calls');

/** Sums one field of the tallies whose key passes `test`. */
export const sumWhere = (
  snapshot: CallSnapshot,
  test: (key: string) => boolean,
  field: keyof OperationTally = 'calls',
): number =>
  Object.entries(snapshot).reduce((sum, [key, tally]) => (test(key) ? sum + tally[field] : sum), 0);

// Path segments that are identifiers, not routes: the webhook secret, random strings, keys.
const PATH_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/^\/webhooks\/[^/]+\//, '/webhooks/{secret}/'],
  [/^\/auth\/v1\/(?!refresh$)[^/]+$/, '/auth/v1/{randomStr}'],
  [/^\/mo\/v1\/file\/[^/]+$/, '/mo/v1/file/{moKey}'],
  [/^\/_sim\/content\/[^/]+$/, '/_sim/content/{token}'],
];

const routeOf = (path: string): string => {
  const bare = path.split('?')[0] ?? path;
  for (const [pattern, replacement] of PATH_PATTERNS)
    if (pattern.test(bare)) return bare.replace(pattern, replacement);
  return bare;
};

interface UndiciRequestLike {
  readonly origin?: unknown;
  readonly method?: unknown;
  readonly path?: unknown;
}

const isRequestMessage = (message: unknown): message is { request: UndiciRequestLike } =>
  typeof message === 'object' &&
  message !== null &&
  'request' in message &&
  typeof message.request === 'object' &&
  message.request !== null;

/**
 * Counts HTTP requests made with Node's `http` client (the gateway client) or undici (the
 * simulator posting webhooks) to the origins it is given, as `"<label> <METHOD> <route>"`, with
 * the time to the response headers: for a webhook, the time its handler took.
 */
export class HttpCounter {
  private readonly started = new WeakMap<object, { key: string; at: number }>();
  /** Starts the tally of a request to `origin`; answers whether the origin is counted. */
  private start(request: object, origin: string, method: string, path: string): boolean {
    const label = this.origins.get(origin.replace(/\/$/, ''));
    if (label === undefined) return false;
    const key = `${label} ${method} ${routeOf(path)}`;
    this.started.set(request, { key, at: performance.now() });
    this.counter.record(key, { calls: 1, units: 1 });
    return true;
  }
  private readonly onCreate = (message: unknown) => {
    if (!isRequestMessage(message)) return;
    const { request } = message;
    this.start(
      request,
      String(request.origin ?? ''),
      String(request.method),
      String(request.path ?? '/'),
    );
  };
  private readonly onNodeStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const origin = `${request.protocol}//${String(request.getHeader('host'))}`;
    if (!this.start(request, origin, request.method, request.path)) return;
    request.once('response', () => this.onHeaders({ request }));
    request.once('error', () => this.onError({ request }));
  };
  private readonly onHeaders = (message: unknown) => {
    if (!isRequestMessage(message)) return;
    const start = this.started.get(message.request);
    if (start === undefined) return;
    this.started.delete(message.request);
    this.counter.record(start.key, { ms: performance.now() - start.at });
  };
  private readonly onError = (message: unknown) => {
    if (!isRequestMessage(message)) return;
    const start = this.started.get(message.request);
    if (start === undefined) return;
    this.started.delete(message.request);
    this.counter.record(start.key, { failures: 1, ms: performance.now() - start.at });
  };

  constructor(
    private readonly counter: CallCounter,
    private readonly origins: ReadonlyMap<string, string>,
  ) {
    subscribe('undici:request:create', this.onCreate);
    subscribe('undici:request:headers', this.onHeaders);
    subscribe('undici:request:error', this.onError);
    subscribe('http.client.request.start', this.onNodeStart);
  }

  close(): void {
    unsubscribe('undici:request:create', this.onCreate);
    unsubscribe('undici:request:headers', this.onHeaders);
    unsubscribe('undici:request:error', this.onError);
    unsubscribe('http.client.request.start', this.onNodeStart);
  }
}
