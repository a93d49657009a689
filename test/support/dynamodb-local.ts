/** DynamoDB Local started once per test file (one JVM), and fresh tables for each test. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll } from 'vitest';
import { compileFilterCriteria, criteriaOf } from '../../aws-semantics/lambda-event-filter.ts';
import { PUBLISHABLE_RECORD_PATTERN } from '../../functions/event-table/stream-filter.ts';
import { storedMessageStatus } from '../../functions/publishing/adapters/stored-message-status.ts';
import { createPublishHandler } from '../../functions/publishing/handler.ts';
import { streamInvocationRecord } from '../../local/aws/event-source-failures.ts';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  type LocalDynamoDb,
  localDynamoDbClient,
  startDynamoDbLocal,
} from '../../local/dynamodb-local.ts';
import { type StreamPoller, startStreamPoller } from '../../local/stream-poller.ts';
import { createTables } from '../../local/tables.ts';
import { silentObservability } from './silent-observability.ts';

// One JVM for the whole file: it takes seconds to start on a two-core machine.
export interface Harness {
  readonly server: LocalDynamoDb;
  readonly client: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
  readonly streams: DynamoDBStreamsClient;
}

export let harness: Harness | undefined;

export const local = (): Harness => {
  if (harness === undefined) throw new Error('DynamoDB Local did not start in beforeAll');
  return harness;
};

// Each test gets its own tables, hence its own stream: no test sees another's records.
export let tableCounter = 0;

export const freshTables = (): { eventTable: string; stateTable: string } => {
  tableCounter += 1;
  return { eventTable: `events-${tableCounter}`, stateTable: `state-${tableCounter}` };
};

export const createEventTable = async (): Promise<{ eventTable: string; streamArn: string }> => {
  const names = freshTables();
  const streamArn = await createTables(local().client, names);
  if (streamArn === undefined) throw new Error('DynamoDB Local returned no stream ARN');
  return { eventTable: names.eventTable, streamArn };
};

export const keyOf = (record: DynamoDBRecord): string => record.dynamodb?.Keys?.pk?.S ?? '(no key)';

/** Starts DynamoDB Local (one JVM) before the file's tests and stops it after them. */
export const useDynamoDbLocal = (): void => {
  beforeAll(async () => {
    const server = await startDynamoDbLocal();
    const client = localDynamoDbClient(server.endpoint);
    harness = {
      server,
      client,
      documents: DynamoDBDocumentClient.from(client),
      streams: localStreamsClient(server.endpoint),
    };
  }, 60_000);

  afterAll(async () => {
    harness?.streams.destroy();
    harness?.client.destroy();
    await harness?.server.stop();
  }, 30_000);
};

/** A DynamoDB Streams client for DynamoDB Local at `endpoint`. */
export const localStreamsClient = (endpoint: string): DynamoDBStreamsClient =>
  new DynamoDBStreamsClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

/**
 * Starts DynamoDB Local with the bridge's `events` and `state` tables, for a file that shares one
 * event table and its stream across its tests.
 */
export const startWithSharedTables = async (): Promise<{
  readonly server: LocalDynamoDb;
  readonly documents: DynamoDBDocumentClient;
  readonly streamArn: string;
}> => {
  const server = await startDynamoDbLocal();
  const client = localDynamoDbClient(server.endpoint);
  const streamArn = await createTables(client, { eventTable: 'events', stateTable: 'state' });
  if (!streamArn) throw new Error('DynamoDB Local gave the event table no stream');
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { server, documents, streamArn };
};

/**
 * The local stream poller on `streamArn` feeding the publish-events handler, as Lambda's event
 * source mapping does (its filter included); the records it gives up on are pushed to `failed`.
 */
export const startPublishingPoller = (
  server: LocalDynamoDb,
  streamArn: string,
  options: {
    readonly publish: Omit<
      Parameters<typeof createPublishHandler>[0],
      'source' | 'sleep' | 'maxBatchBytes'
    >;
    readonly failed: DynamoDBRecord[];
    readonly maxRetries?: number;
    /** Where Lambda's on-failure destination would get its invocation record, as deployed. */
    readonly onFailureQueue?: { readonly sqs: SQSClient; readonly queueUrl: string };
  },
): StreamPoller =>
  startStreamPoller({
    streamsClient: localStreamsClient(server.endpoint),
    streamArn,
    filter: compileFilterCriteria(criteriaOf(PUBLISHABLE_RECORD_PATTERN), 'dynamodb'),
    handler: createPublishHandler({
      source: 'msgbridge',
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      maxBatchBytes: 256 * 1024,
      ...options.publish,
    }),
    onFailure: async (records, _error, details) => {
      options.failed.push(...records);
      if (!options.onFailureQueue) return;
      await options.onFailureQueue.sqs.send(
        new SendMessageCommand({
          QueueUrl: options.onFailureQueue.queueUrl,
          MessageBody: JSON.stringify(
            streamInvocationRecord({
              records,
              shardId: details.shardId,
              streamArn,
              functionArn: 'arn:aws:lambda:ap-northeast-2:000000000000:function:publish-events',
              condition: details.condition,
              attempts: details.attempts,
            }),
          ),
        }),
      );
    },
    maxRetries: options.maxRetries,
    pollIntervalMs: 50,
  });

/** DynamoDB Local with the shared tables, and publish-events on the event table's stream. */
export interface SharedPublishing {
  readonly server: LocalDynamoDb;
  readonly documents: DynamoDBDocumentClient;
  readonly poller: StreamPoller;
}

/**
 * DynamoDB Local with the shared `events` and `state` tables (`startWithSharedTables`), and
 * publish-events on the event table's stream (`startPublishingPoller`) putting on `bus`: quiet,
 * 3 attempts 10 ms apart, each message's status read from the table; the records it gives up on
 * are pushed to `failed`.
 */
export const startSharedPublishing = async (
  bus: Parameters<typeof createPublishHandler>[0]['bus'],
  failed: DynamoDBRecord[],
): Promise<SharedPublishing> => {
  const { server, documents, streamArn } = await startWithSharedTables();
  const poller = startPublishingPoller(server, streamArn, {
    publish: {
      bus,
      messageStatus: storedMessageStatus('events', documents),
      maxAttempts: 3,
      backoffMs: () => 10,
      ...silentObservability(),
    },
    failed,
  });
  return { server, documents, poller };
};
