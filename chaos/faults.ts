/**
 * The seeded fault plan of the chaos run and the injectors that apply it at every port of the
 * local bridge: AWS SDK middleware on the DynamoDB, S3, SQS and EventBridge clients of every
 * function, a wrapper around the gateway sender, and "killed" Lambda invocations. The same seed
 * gives the same mix and the same sequence of decisions per kind of fault; only the order in
 * which concurrent calls reach a decision varies with timing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type {
  EventBridgeClient,
  PutEventsRequestEntry,
  PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { KEY_PREFIX } from '../functions/commons/table-keys.ts';
import type { SendGateway } from '../functions/sending/ports.ts';
import type { Faults } from '../simulator/index.ts';
import { mulberry32 } from '../simulator/prng.ts';

/** One Lambda invocation in flight; a fault can end it as a killed Lambda ends. */
interface Invocation {
  readonly name: string;
  kill(reason: string): void;
  killed: boolean;
  /** PutEvents calls that returned in this invocation. */
  puts: number;
  /** `metadata.id` of every event those calls accepted. */
  readonly putIds: string[];
}

const invocations = new AsyncLocalStorage<Invocation>();
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** True inside an invocation that was killed: its code must not take another step. */
const inKilledInvocation = (): boolean => invocations.getStore()?.killed === true;

/** The simulator's seeded PRNG: fault draws, like its outcome mix, repeat for the same seed. */
export const prng = mulberry32;

/** FNV-1a of a string, to give every kind of fault its own stream of draws from one seed. */
const hash = (text: string): number => {
  let h = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    h ^= text.charCodeAt(index);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
};

/** Every kind of fault the run injects, with the probability of one decision. */
export const FAULT_KINDS = [
  'dynamodb.error',
  'dynamodb.throttle',
  'dynamodb.lostResponse',
  's3.error',
  's3.lostResponse',
  'sqs.lostDelete',
  'sqs.visibilityExpiry',
  'bus.partialFailure',
  'bus.callFailure',
  'bus.killedAfterPut',
  'send.killedAfterAccept',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultMix {
  readonly rates: Readonly<Record<FaultKind, number>>;
  /** The simulator's own faults (gateway 5xx, timeouts, 29002 bursts, HTTP 200 failures, duplicate webhooks). */
  readonly gateway: Partial<Faults>;
  /** Times every token is revoked during the run (the gateway answers 29011 until re-authentication). */
  readonly tokenRevocations: number;
}

/** The seed's mix: every fault is on, each at a rate drawn from its range. */
export const faultMixFor = (seed: number): FaultMix => {
  const random = prng(hash(`mix:${seed}`));
  const between = (low: number, high: number) => low + (high - low) * random();
  const rates: Record<FaultKind, number> = {
    'dynamodb.error': between(0.002, 0.01),
    'dynamodb.throttle': between(0.002, 0.01),
    'dynamodb.lostResponse': between(0.002, 0.01),
    's3.error': between(0.01, 0.05),
    's3.lostResponse': between(0.01, 0.05),
    // Per message: the event source receives and deletes a batch at a time, so a run of a few
    // dozen sends makes only a few dozen draws of each.
    'sqs.lostDelete': between(0.15, 0.3),
    'sqs.visibilityExpiry': between(0.1, 0.2),
    'bus.partialFailure': between(0.05, 0.15),
    'bus.callFailure': between(0.02, 0.08),
    'bus.killedAfterPut': between(0.01, 0.04),
    'send.killedAfterAccept': between(0.03, 0.1),
  };
  const gateway = {
    errorRate: between(0.01, 0.05),
    timeoutRate: between(0.002, 0.01),
    http200ErrorRate: between(0.005, 0.03),
    duplicateWebhookRate: between(0.05, 0.3),
    rateLimitBurst: Math.floor(between(1, 6)),
  };
  const tokenRevocations = Math.floor(between(1, 3));
  return {
    rates,
    // Reports the gateway never hands out: only the report checks' status query finds them.
    gateway: { ...gateway, reportWithholdRate: between(0.1, 0.25) },
    tokenRevocations,
  };
};

/** Decides faults, one seeded stream per kind, and counts what it injected. */
export class FaultPlan {
  readonly injected: Record<string, number> = {};
  /** Observations worth a line in the report (a quota refusal: when, after how long in the call). */
  readonly notes: string[] = [];
  private readonly streams = new Map<FaultKind, () => number>();
  /** Off until the bridge has started, and again while the run settles. */
  armed = false;

  constructor(
    readonly seed: number,
    readonly mix: FaultMix,
  ) {}

  /** True when a fault of `kind` is injected now (and counts it). */
  draw(kind: FaultKind): boolean {
    if (!this.armed) return false;
    let stream = this.streams.get(kind);
    if (!stream) {
      stream = prng(hash(`${kind}:${this.seed}`));
      this.streams.set(kind, stream);
    }
    if (stream() >= this.mix.rates[kind]) return false;
    this.count(kind);
    return true;
  }

  /** A seeded number in [0, 1) from the stream of `kind`, for choices inside one fault. */
  pick(kind: FaultKind): number {
    const stream = this.streams.get(kind) ?? prng(hash(`${kind}:${this.seed}`));
    this.streams.set(kind, stream);
    return stream();
  }

  count(kind: string, by = 1): void {
    this.injected[kind] = (this.injected[kind] ?? 0) + by;
  }
}

/** Shaped like the SDK's service errors, so the bridge's classifiers see what AWS would throw. */
const awsError = (name: string, message: string, fault: 'client' | 'server', status: number) =>
  Object.assign(new Error(`${message} (injected)`), {
    name,
    $fault: fault,
    $metadata: { httpStatusCode: status, attempts: 1, totalRetryDelay: 0 },
    $retryable: name.includes('Throughput') ? { throttling: true } : {},
  });

/** What a lost response looks like to the caller: the request went out, no answer came back. */
const lostResponse = () =>
  Object.assign(new Error('socket hang up after the request was sent (injected)'), {
    name: 'TimeoutError',
    code: 'ECONNRESET',
    $metadata: {},
  });

const DYNAMODB_WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

/** The local run's own bookkeeping (stream checkpoints) stands for Lambda's and is never faulted. */
const isLocalBookkeeping = (input: unknown): boolean => {
  const fields = input as { Key?: { pk?: unknown }; Item?: { pk?: unknown } } | undefined;
  const pk = fields?.Key?.pk ?? fields?.Item?.pk;
  const value = typeof pk === 'object' && pk !== null && 'S' in pk ? (pk as { S: unknown }).S : pk;
  return typeof value === 'string' && value.startsWith('LOCAL#');
};

/**
 * Faults on every DynamoDB call the handlers and jobs make, above the SDK's own retries (as if
 * they were used up): errors, throttles, and writes whose answer is lost after they happened.
 */
export const injectDynamoDbFaults = (client: DynamoDBClient, plan: FaultPlan): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (inKilledInvocation()) return never();
      if (isLocalBookkeeping(args.input)) return next(args);
      // Faults on the publisher's markers (PUBLISH# keys) are counted apart: a duplicate after a
      // partial PutEvents failure whose markers could not be written shows up next to them.
      const onLedger = () => {
        if (JSON.stringify(args.input).includes(KEY_PREFIX.publish))
          plan.count('dynamodb.onPublishLedger');
      };
      if (plan.draw('dynamodb.throttle')) {
        onLedger();
        throw awsError(
          'ProvisionedThroughputExceededException',
          'The level of configured provisioned throughput for the table was exceeded',
          'client',
          400,
        );
      }
      if (plan.draw('dynamodb.error')) {
        onLedger();
        throw awsError('InternalServerError', 'Internal server error', 'server', 500);
      }
      if (DYNAMODB_WRITES.has(context.commandName ?? '') && plan.draw('dynamodb.lostResponse')) {
        onLedger();
        await next(args);
        throw lostResponse();
      }
      return next(args);
    },
    { step: 'initialize', name: 'chaosDynamoDbFaults' },
  );
};

/** Faults on S3 (attachments, claim-checked bodies, quarantined pages): errors and lost answers. */
export const injectS3Faults = (client: S3Client, plan: FaultPlan): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (inKilledInvocation()) return never();
      if (plan.draw('s3.error')) {
        throw awsError('InternalError', 'We encountered an internal error', 'server', 500);
      }
      if (context.commandName === 'PutObjectCommand' && plan.draw('s3.lostResponse')) {
        await next(args);
        throw lostResponse();
      }
      return next(args);
    },
    { step: 'initialize', name: 'chaosS3Faults' },
  );
};

/**
 * SQS as Lambda's event source meets it: a delete that is lost after the handler succeeded (the
 * message comes back), and a message whose visibility runs out while its first attempt is still
 * running (a second worker receives it at once). `timeScale` shortens the redelivery delays the
 * sender asks for by as much as the run shortens the sender's timeout.
 */
export const injectSqsFaults = (client: SQSClient, plan: FaultPlan, timeScale = 1): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (inKilledInvocation()) return never();
      // The run compresses time: send-messages' timeout, its claim lease and the queue's
      // visibility are all scaled down, and so is its redelivery backoff (15 s, 30 s, …).
      if (context.commandName === 'ChangeMessageVisibilityCommand' && timeScale !== 1) {
        const input = args.input as { VisibilityTimeout?: number };
        if (typeof input.VisibilityTimeout === 'number' && input.VisibilityTimeout > 0) {
          input.VisibilityTimeout = Math.max(1, Math.round(input.VisibilityTimeout * timeScale));
        }
      }
      // A delete whose answer was lost after SQS dropped it on the way: the message stays.
      if (context.commandName === 'DeleteMessageCommand' && plan.draw('sqs.lostDelete')) {
        return { output: { $metadata: {} }, response: {} } as never;
      }
      // In a batch, each entry on its own: the lost ones stay on the queue, answered as deleted.
      if (context.commandName === 'DeleteMessageBatchCommand') {
        const input = args.input as { Entries?: Array<{ Id?: string }> };
        const entries = input.Entries ?? [];
        const lost = entries.filter(() => plan.draw('sqs.lostDelete'));
        if (lost.length > 0) {
          const kept = entries.filter((entry) => !lost.includes(entry));
          const answer =
            kept.length > 0
              ? ((await next({ ...args, input: { ...input, Entries: kept } } as never)) as {
                  output: { Successful?: Array<{ Id?: string }>; Failed?: unknown[] };
                })
              : { output: { Successful: [], Failed: [] } };
          return {
            output: {
              $metadata: {},
              Successful: [
                ...(answer.output.Successful ?? []),
                ...lost.map((entry) => ({ Id: entry.Id })),
              ],
              Failed: answer.output.Failed ?? [],
            },
            response: {},
          } as never;
        }
      }
      const result = await next(args);
      if (context.commandName === 'ReceiveMessageCommand') {
        const input = args.input as { QueueUrl?: string };
        const output = result.output as { Messages?: Array<{ ReceiptHandle?: string }> };
        for (const message of output.Messages ?? []) {
          if (!plan.draw('sqs.visibilityExpiry')) continue;
          await client
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: input.QueueUrl,
                ReceiptHandle: message.ReceiptHandle,
                VisibilityTimeout: 0,
              }),
            )
            .catch(() => undefined);
        }
      }
      return result;
    },
    { step: 'initialize', name: 'chaosSqsFaults' },
  );
};

/** Thrown out of an invocation the plan killed; the event source sees a failed invocation. */
export class LambdaKilledError extends Error {
  override readonly name = 'LambdaKilledError';
}

/**
 * Wraps a Lambda handler so a fault inside it can kill the invocation: the event source gets a
 * failure at once, and the handler's own code never runs another step (it waits forever on the
 * call that "killed" it, as a frozen and discarded Lambda sandbox would).
 */
export const killableLambda =
  <E, R>(name: string, handler: (event: E) => Promise<R>) =>
  (event: E): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const invocation: Invocation = {
        name,
        killed: false,
        puts: 0,
        putIds: [],
        kill(reason) {
          this.killed = true;
          reject(new LambdaKilledError(`${name} killed ${reason} (injected)`));
        },
      };
      invocations.run(invocation, () => {
        handler(event).then(resolve, reject);
      });
    });

/**
 * EventBridge as publish-events meets it, on its client: a failed call, a call where some entries
 * fail (the others are on the bus), and a Lambda killed after PutEvents returned (every event it
 * put comes again when its records are retried: `unavoidable` collects their ids).
 */
export const injectEventBridgeFaults = (
  client: EventBridgeClient,
  plan: FaultPlan,
  unavoidable: Set<string>,
): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'PutEventsCommand') return next(args);
      const invocation = invocations.getStore();
      if (invocation?.killed) return never();
      if (plan.draw('bus.callFailure'))
        throw awsError('InternalException', 'EventBridge failed the call', 'server', 500);
      const input = args.input as { Entries?: PutEventsRequestEntry[] };
      const entries = input.Entries ?? [];
      if (entries.length > 0 && plan.draw('bus.partialFailure')) {
        const failing = entries.map(() => plan.pick('bus.partialFailure') < 0.4);
        if (failing.every(Boolean)) failing[0] = false;
        const sent = entries.filter((_, index) => !failing[index]);
        const result = await next({ ...args, input: { ...input, Entries: sent } } as typeof args);
        const output = result.output as { Entries?: PutEventsResultEntry[] };
        plan.count('bus.entriesFailed', failing.filter(Boolean).length);
        let accepted = 0;
        const merged = entries.map(
          (_, index): PutEventsResultEntry =>
            failing[index]
              ? { ErrorCode: 'InternalFailure', ErrorMessage: 'entry failed (injected)' }
              : (output.Entries?.[accepted++] ?? {}),
        );
        // The entries it did accept are on the bus: a later kill of this invocation puts them again.
        remember(invocation, entries, merged, unavoidable);
        return {
          ...result,
          output: {
            ...output,
            FailedEntryCount: merged.filter((entry) => entry.ErrorCode !== undefined).length,
            Entries: merged,
          },
        } as typeof result;
      }
      const result = await next(args);
      const output = result.output as { Entries?: PutEventsResultEntry[] };
      if (invocation && !invocation.killed && plan.draw('bus.killedAfterPut')) {
        // Every event this invocation put comes again when Lambda retries its records: those of
        // this call, and those of its earlier calls (a kill mid-batch).
        for (const id of [...invocation.putIds, ...entries.map(eventIdOfEntry)])
          unavoidable.add(id);
        if (invocation.puts > 0) plan.count('bus.killedMidBatch');
        invocation.kill('after PutEvents returned');
        return never();
      }
      remember(invocation, entries, output.Entries ?? [], unavoidable);
      return result;
    },
    { step: 'initialize', name: 'chaosEventBridgeFaults' },
  );
};

/**
 * Notes the events a call of `invocation` put, for the accounting of a later kill. A call that
 * was already on its way when the invocation was killed (publish-events sends a batch's calls
 * together) still lands on the bus, and the retried records put its events again: unavoidable,
 * like the events of the calls before the kill.
 */
const remember = (
  invocation: Invocation | undefined,
  entries: readonly PutEventsRequestEntry[],
  results: readonly PutEventsResultEntry[],
  unavoidable: Set<string>,
): void => {
  if (!invocation) return;
  invocation.puts += 1;
  entries.forEach((entry, index) => {
    if (results[index]?.ErrorCode !== undefined) return;
    invocation.putIds.push(eventIdOfEntry(entry));
    if (invocation.killed) unavoidable.add(eventIdOfEntry(entry));
  });
};

const eventIdOfEntry = (entry: PutEventsRequestEntry): string =>
  (JSON.parse(entry.Detail ?? '{}') as { metadata?: { id?: string } }).metadata?.id ?? '';

/** The gateway as send-messages meets it: the Lambda may die right after the gateway accepted. */
export const faultyGateway =
  (plan: FaultPlan) =>
  (inner: SendGateway): SendGateway => ({
    async send(message, options) {
      if (inKilledInvocation()) return never();
      const started = Date.now();
      // The options carry every request's quota reservation (beforeSend): passed on as deployed.
      const outcome = await inner.send(message, options).catch((error: unknown) => {
        // The gateway's own quota refusal (not an injected burst): when it came, and how long
        // the call had run — a token fetched after the quota was taken delays the call.
        if (error instanceof Error && error.message.includes('recipients this second')) {
          plan.notes.push(
            `quota refusal at ${new Date(started).toISOString()} (+${started % 1000} ms into the second), answered after ${Date.now() - started} ms: ${error.message.slice(0, 160)}`,
          );
        }
        throw error;
      });
      const invocation = invocations.getStore();
      if (invocation && !invocation.killed && plan.draw('send.killedAfterAccept')) {
        invocation.kill('after the gateway answered the send');
        return never();
      }
      return outcome;
    },
  });
