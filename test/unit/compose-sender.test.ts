import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import { composeSender } from '../../functions/sending/compose.ts';
import { RATE_LIMIT_METRICS } from '../../functions/sending/rate-limit-metric-names.ts';
import { gatewayAnswering } from '../support/answering-gateway.ts';
import { decoyProcessEnv } from '../support/decoy-process-env.ts';
import { gatewayCredentialsHolding } from '../support/secrets-client.ts';
import { silentObservability } from '../support/silent-observability.ts';

const CREDENTIALS = gatewayCredentialsHolding('bridge', 'secret-password');

const ENV = {
  EVENT_TABLE_NAME: 'events-table',
  STATE_TABLE_NAME: 'state-table',
  SEND_QUEUE_URL: 'http://queue.example/send',
  REPORT_CHECK_QUEUE_URL: 'http://queue.example/report-checks',
  TPS_QUOTA: '20',
  MAX_RECEIVE_COUNT: '3',
  GATEWAY_API_URL: 'https://api.gateway.example',
  GATEWAY_SEND_URL: 'https://send.gateway.example',
  GATEWAY_MNT_URL: 'https://mnt.gateway.example',
  GATEWAY_CREDENTIALS_SECRET_ARN: CREDENTIALS.arn,
};

const observed = silentObservability;

/** Tables that take every write, remembering which table each went to. */
const acceptingTables = () => {
  const tables: string[] = [];
  const documents = {
    send: async (command: { input: { RequestItems?: object } }) => {
      // A single write names its table; a batch or a transaction names one per item.
      const text = JSON.stringify(command.input);
      for (const [, table] of text.matchAll(/"TableName":"([^"]+)"/g)) tables.push(table ?? '');
      tables.push(...Object.keys(command.input.RequestItems ?? {}));
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { tables, documents };
};

/** An SQS client that takes every call, remembering each command's input. */
const acceptingQueues = () => {
  const sent: Array<{ QueueUrl?: string; MessageBody?: string }> = [];
  const sqs = {
    send: async (command: { input: { QueueUrl?: string; MessageBody?: string } }) => {
      sent.push(command.input);
      return {};
    },
  } as unknown as SQSClient;
  return { sent, sqs };
};

const record = (body: unknown): SQSRecord =>
  ({
    messageId: 'message-1',
    receiptHandle: 'handle-1',
    body: JSON.stringify(body),
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
  }) as unknown as SQSRecord;

/**
 * The sender composed over tables, queues and a gateway that accept everything, its rate limiter's
 * clock standing at `now`, with its metrics watched.
 */
const acceptingSenderAt = (now: number) => {
  const { tables, documents } = acceptingTables();
  const { sent, sqs } = acceptingQueues();
  const overrides = observed();
  const addMetric = vi.spyOn(overrides.metrics, 'addMetric');
  const sender = composeSender(ENV, {
    ...overrides,
    documents,
    sqs,
    wrapGateway: () => gatewayAnswering('10000'),
    rateLimiterNow: () => now,
  });
  return { sender, tables, sent, overrides, addMetric };
};

describe('composeSender', () => {
  it('composes the sender from the environment object, with the metered rate limiter', async () => {
    decoyProcessEnv({ TPS_QUOTA: '5' });
    // Early in a second: the request is counted in that second only (no arrival margin).
    const { sender, tables, sent, overrides, addMetric } = acceptingSenderAt(1_700_000_000_100);
    const result = await sender.recordHandler(record({ channel: 'sms', ...smsBody(10) }), 30_000);

    expect(result).toMatchObject({ kind: 'done', accepted: 10 });
    expect(addMetric).toHaveBeenCalledWith(
      RATE_LIMIT_METRICS.quotaRecipientsReserved,
      expect.anything(),
      10,
    );
    expect(new Set(tables)).toEqual(new Set(['events-table', 'state-table']));
    // The ten acceptances are one report check on the queue REPORT_CHECK_QUEUE_URL names.
    expect(sent.map((input) => input.QueueUrl)).toEqual([ENV.REPORT_CHECK_QUEUE_URL]);
    expect(JSON.parse(sent[0]?.MessageBody ?? '{}').recipients).toHaveLength(10);
    expect(sender.logger).toBe(overrides.logger);
  });

  it('holds a request let go in the last 300 ms of a second in the next second too', async () => {
    // 200 ms before the second ends: inside the 300 ms arrival margin, outside the 100 ms guard.
    const { sender, addMetric } = acceptingSenderAt(1_700_000_000_800);
    await sender.recordHandler(record({ channel: 'sms', ...smsBody(10) }), 30_000);

    expect(addMetric).toHaveBeenCalledWith(
      RATE_LIMIT_METRICS.quotaRecipientsReserved,
      expect.anything(),
      20,
    );
  });

  it('delays a redelivery on the queue SEND_QUEUE_URL names', async () => {
    const sent: Array<{ input: { QueueUrl?: string } }> = [];
    const sqsClientLike = {
      send: async (command: { input: { QueueUrl?: string } }) => {
        sent.push(command);
        return {};
      },
    } as unknown as SQSClient;
    const { documents } = acceptingTables();
    const sender = composeSender(ENV, {
      ...observed(),
      documents,
      sqs: sqsClientLike,
      // 29019 is retried later: the message goes back to the queue.
      wrapGateway: () => gatewayAnswering('29019'),
    });
    await sender.recordHandler(record({ channel: 'sms', ...smsBody(1) }), 30_000).catch(() => {});

    expect(sent.map((command) => command.input.QueueUrl)).toEqual([ENV.SEND_QUEUE_URL]);
  });

  it.each(['SEND_QUEUE_URL', 'REPORT_CHECK_QUEUE_URL', 'EVENT_TABLE_NAME', 'STATE_TABLE_NAME'])(
    'fails naming a missing %s',
    (name) => {
      expect(() => composeSender({ ...ENV, [name]: undefined }, observed())).toThrow(
        `environment variable ${name} is required`,
      );
    },
  );

  it('reads the gateway variables from the same environment object', () => {
    decoyProcessEnv({ GATEWAY_SEND_URL: 'https://send.process.example' });

    expect(() => composeSender({ ...ENV, GATEWAY_SEND_URL: undefined }, observed())).toThrow(
      /GATEWAY_SEND_URL/,
    );
  });

  it.each([
    [undefined, false],
    ['on', true],
    ['off', false],
  ])(
    'with ACCEPTED_EVENTS %s, publishes accepted recipients as events: %s',
    async (value, events) => {
      // Prepare: tables that keep every item put and every update
      const items: Array<Record<string, unknown>> = [];
      const updates: string[] = [];
      const documents = {
        send: async (command: {
          input: { Item?: Record<string, unknown>; UpdateExpression?: string };
        }) => {
          if (command.input.Item) items.push(command.input.Item);
          if (command.input.UpdateExpression) updates.push(command.input.UpdateExpression);
          return {};
        },
      } as unknown as DynamoDBDocumentClient;
      const sender = composeSender(
        { ...ENV, ACCEPTED_EVENTS: value },
        {
          ...observed(),
          documents,
          sqs: acceptingQueues().sqs,
          wrapGateway: () => gatewayAnswering('10000'),
        },
      );

      // Act
      const result = await sender.recordHandler(record({ channel: 'sms', ...smsBody(2) }), 30_000);

      // Assess: the send record lists both either way; events only where they are on.
      expect(result).toMatchObject({ kind: 'done', accepted: 2 });
      const outcomes = items.filter((item) => item.sk === 'OUTCOME');
      expect(outcomes.map((item) => item.detailType)).toEqual(
        events ? ['Message Accepted', 'Message Accepted'] : [],
      );
      expect(updates.filter((update) => update.includes('#k1 = :v1'))).toHaveLength(1);
    },
  );

  it.each([
    ['TPS_QUOTA', '5'],
    ['MAX_RECEIVE_COUNT', '1'],
    ['ACCEPTED_EVENTS', 'false'],
    ['ACCEPTED_EVENTS', 'OFF'],
  ])('fails naming a malformed %s', (name, value) => {
    expect(() => composeSender({ ...ENV, [name]: value }, observed())).toThrow(name);
  });
});
