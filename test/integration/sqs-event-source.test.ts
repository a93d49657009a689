/**
 * The local SQS event source (local/aws/sqs-event-source.ts) on fauxqs, against the Lambda
 * developer guide ("Using Lambda with Amazon SQS", "Handling errors for an SQS event source",
 * "Reporting batch item failures"): what a batch holds, what is deleted after which response,
 * what comes back, what filter criteria drop, and how many invocations run at once.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMappingDefinition } from '../../aws-semantics/cloudformation-template.ts';
import { compileFilterCriteria } from '../../aws-semantics/lambda-event-filter.ts';
import { type SqsEventSource, startSqsEventSource } from '../../local/aws/sqs-event-source.ts';
import { LOCAL_REGION, localClientConfig } from '../../local/dynamodb-local.ts';
import { waitFor } from '../support/e2e-wait.ts';

let fauxqs: FauxqsServer;
let sqs: SQSClient;
let source: SqsEventSource | undefined;
let queues = 0;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
  sqs = new SQSClient(localClientConfig(fauxqs.address));
});
afterEach(async () => {
  await source?.stop();
  source = undefined;
});
afterAll(async () => {
  await fauxqs.stop();
});

const MAPPING: EventSourceMappingDefinition = {
  logicalId: 'Mapping',
  functionId: 'Fn',
  sourceId: 'Queue',
  kind: 'sqs',
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  bisectOnError: false,
  parallelizationFactor: 1,
  maxRetryAttempts: -1,
  maxRecordAgeSeconds: -1,
  onFailureQueueId: undefined,
  filterCriteria: {},
  reportBatchItemFailures: true,
  maxConcurrency: 2,
  startingPosition: undefined,
  enabled: true,
};

/** A queue with a dead-letter queue after `maxReceiveCount` receives. */
const queue = (visibilityTimeout = 1, maxReceiveCount = 3) => {
  queues += 1;
  const dlq = fauxqs.createQueue(`dlq-${queues}`);
  const made = fauxqs.createQueue(`queue-${queues}`, {
    attributes: {
      VisibilityTimeout: String(visibilityTimeout),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount }),
    },
  });
  const count = (name: string) => {
    const state = fauxqs.inspectQueue(name);
    return state
      ? state.messages.ready.length + state.messages.delayed.length + state.messages.inflight.length
      : 0;
  };
  return {
    ...made,
    left: () => count(made.queueName),
    inDlq: () => count(dlq.queueName),
  };
};

const send = async (queueUrl: string, bodies: readonly string[]) => {
  for (let start = 0; start < bodies.length; start += 10)
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies
          .slice(start, start + 10)
          .map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
};

const start = (
  target: { queueUrl: string; queueArn: string },
  invoke: (event: SQSEvent) => Promise<unknown>,
  mapping: Partial<EventSourceMappingDefinition> = {},
) => {
  const merged = { ...MAPPING, ...mapping };
  source = startSqsEventSource({
    sqs,
    queueUrl: target.queueUrl,
    queueArn: target.queueArn,
    region: LOCAL_REGION,
    mapping: merged,
    filter: compileFilterCriteria(merged.filterCriteria, 'sqs'),
    invoke,
  });
  return source;
};

describe('the local SQS event source', () => {
  it('hands the function records as Lambda builds them, and deletes the batch after a success', async () => {
    const target = queue();
    const events: SQSEvent[] = [];
    await send(target.queueUrl, ['{"n":1}', '{"n":2}']);

    start(target, async (event) => {
      events.push(event);
      return {};
    });

    expect(await waitFor(() => target.left() === 0, 10_000, 50)).toBe(true);
    const records = events.flatMap((event) => event.Records);
    expect(records.map((record) => record.body).sort()).toEqual(['{"n":1}', '{"n":2}']);
    for (const record of records)
      expect(record).toMatchObject({
        eventSource: 'aws:sqs',
        eventSourceARN: target.queueArn,
        awsRegion: LOCAL_REGION,
        attributes: { ApproximateReceiveCount: '1' },
      });
  });

  it('keeps only the messages a partial batch response names, which come back after the visibility timeout', async () => {
    const target = queue(1, 10);
    const seen = new Map<string, number>();
    await send(target.queueUrl, ['keep', 'done-1', 'done-2']);

    start(target, async (event) => {
      for (const record of event.Records) seen.set(record.body, (seen.get(record.body) ?? 0) + 1);
      return {
        batchItemFailures: event.Records.filter(
          (record) => record.body === 'keep' && (seen.get('keep') ?? 0) < 2,
        ).map((record) => ({ itemIdentifier: record.messageId })),
      };
    });

    expect(await waitFor(() => target.left() === 0, 15_000, 50)).toBe(true);
    expect(Object.fromEntries(seen)).toEqual({ keep: 2, 'done-1': 1, 'done-2': 1 });
  });

  it('ignores a partial batch response when the mapping does not report batch item failures', async () => {
    const target = queue(1, 10);
    let invocations = 0;
    await send(target.queueUrl, ['a', 'b']);

    start(
      target,
      async (event) => {
        invocations += 1;
        return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
      },
      { reportBatchItemFailures: false },
    );

    expect(await waitFor(() => target.left() === 0, 10_000, 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(invocations).toBeLessThanOrEqual(2);
    expect(target.left()).toBe(0);
  });

  it('fails the whole batch when the response names a message outside it, or an empty identifier', async () => {
    for (const bad of [{ itemIdentifier: 'not-in-the-batch' }, { itemIdentifier: '' }]) {
      const target = queue(1, 2);
      await send(target.queueUrl, ['x', 'y']);

      start(target, async () => ({ batchItemFailures: [bad] }));

      // Every message comes back until the redrive policy moves it to the dead-letter queue.
      expect(await waitFor(() => target.inDlq() === 2, 15_000, 50)).toBe(true);
      await source?.stop();
      source = undefined;
    }
  });

  it('deletes nothing of a batch whose invocation failed: each message goes to the dead-letter queue after maxReceiveCount', async () => {
    const target = queue(1, 2);
    const receives: string[] = [];
    await send(target.queueUrl, ['poison']);

    start(target, async (event) => {
      for (const record of event.Records) receives.push(record.attributes.ApproximateReceiveCount);
      throw new Error('function error');
    });

    expect(await waitFor(() => target.inDlq() === 1, 15_000, 50)).toBe(true);
    expect(receives).toEqual(['1', '2']);
  });

  it('deletes the messages its filter criteria do not match, without an invocation', async () => {
    const target = queue(1, 10);
    const bodies: string[] = [];
    await send(target.queueUrl, ['{"kind":"send"}', '{"kind":"other"}', 'not json']);

    start(
      target,
      async (event) => {
        bodies.push(...event.Records.map((record) => record.body));
        return {};
      },
      { filterCriteria: { Filters: [{ Pattern: JSON.stringify({ body: { kind: ['send'] } }) }] } },
    );

    expect(await waitFor(() => target.left() === 0, 10_000, 50)).toBe(true);
    expect(bodies).toEqual(['{"kind":"send"}']);
    expect(source?.stats.filtered).toBe(2);
  });

  it('waits up to the batching window to fill a batch', async () => {
    const target = queue(30, 10);
    const sizes: number[] = [];
    start(
      target,
      async (event) => {
        sizes.push(event.Records.length);
        return {};
      },
      { maxBatchingWindowSeconds: 2, maxConcurrency: 2 },
    );

    for (const body of ['1', '2', '3']) {
      await sqs.send(new SendMessageCommand({ QueueUrl: target.queueUrl, MessageBody: body }));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    expect(await waitFor(() => target.left() === 0, 10_000, 50)).toBe(true);
    // Whichever poller received the first message held its batch open for the next two.
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(2);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(3);
  });

  /**
   * Sends `messages` single-message batches to a mapping of `maxConcurrency` whose invocations
   * take 100 ms each, waits (within `timeoutMs`) until they are all handled and answers the most
   * that ran at once.
   */
  const mostAtOnce = async (messages: number, maxConcurrency: number, timeoutMs: number) => {
    const target = queue(30, 10);
    let running = 0;
    let most = 0;
    await send(
      target.queueUrl,
      Array.from({ length: messages }, (_, index) => String(index)),
    );
    start(
      target,
      async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 100));
        running -= 1;
        return {};
      },
      { batchSize: 1, maxConcurrency },
    );
    expect(await waitFor(() => target.left() === 0, timeoutMs, 50)).toBe(true);
    return most;
  };

  it('runs at most MaximumConcurrency invocations at once', async () => {
    const most = await mostAtOnce(12, 3, 15_000);
    expect(most).toBe(3);
  });

  it('starts with five pollers and adds one for each full batch, up to MaximumConcurrency', async () => {
    const most = await mostAtOnce(60, 8, 20_000);
    // A backlog of single-message batches took it past the five it starts with, to the limit.
    expect(most).toBe(8);
  });
});
