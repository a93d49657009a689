import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { sqsClient } from './commons/clients/sqs.ts';
import { integerEnv, requiredEnv } from './commons/environment.ts';
import { gatewayFromEnvironment } from './commons/gateway-environment.ts';
import { createLogger, createMetrics } from './commons/observability.ts';
import { DynamoDbRateLimiter } from './sending/adapters/dynamodb-rate-limiter.ts';
import { DynamoDbSendStore } from './sending/adapters/dynamodb-send-store.ts';
import { GatewaySender } from './sending/adapters/gateway-sender.ts';
import { createSendRecordHandler } from './sending/queue-record-handler.ts';
import { meteredRateLimiter } from './sending/rate-limit-metrics.ts';

/**
 * `send-messages`: the send queue → the gateway, one queue message = one send request.
 * Environment (read once): EVENT_TABLE_NAME, STATE_TABLE_NAME, SEND_QUEUE_URL, TPS_QUOTA,
 * MAX_RECEIVE_COUNT (the DLQ redrive count), EVENT_RETENTION_DAYS, GATEWAY_API_URL,
 * GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS, GATEWAY_CREDENTIALS_SECRET_ARN.
 */
const logger = createLogger('send-messages');
const metrics = createMetrics('send-messages');
const { client: gatewayClient, timeoutMs } = gatewayFromEnvironment(logger);
const queueUrl = requiredEnv('SEND_QUEUE_URL');
const retentionDays = integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 });
const store = new DynamoDbSendStore(requiredEnv('EVENT_TABLE_NAME'), retentionDays);
// The quota must hold a whole 10-recipient request. The guard leaves 100 ms of each second for the
// call to reach the gateway, so a request counted at x.95 s is not counted by the gateway in x+1.
const rateLimiter = meteredRateLimiter(
  new DynamoDbRateLimiter(requiredEnv('STATE_TABLE_NAME'), {
    quota: integerEnv('TPS_QUOTA', 100, { min: 10, max: 100_000 }),
    guardMs: 100,
  }),
  metrics,
);
const gateway = new GatewaySender(gatewayClient);
const sqs = sqsClient();

const recordHandler = createSendRecordHandler({
  deps: (remainingMs) => ({
    store,
    gateway,
    rateLimiter,
    now: () => new Date(),
    retentionDays,
    // A claim outlives this invocation, and is far shorter than the visibility timeout (6×).
    claimLeaseMs: remainingMs + 5_000,
    // Leave the gateway call its timeout and a margin to record the outcome.
    deadline: Date.now() + remainingMs - timeoutMs - 2_000,
  }),
  maxReceiveCount: integerEnv('MAX_RECEIVE_COUNT', 6, { min: 2, max: 1_000 }),
  delayRedelivery: async (record: SQSRecord, seconds: number) => {
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  },
  logger,
  metrics,
});

const processor = new BatchProcessor(EventType.SQS);

export const handler = middy(async (event: SQSEvent, context: Context) =>
  processPartialResponse(
    event,
    (record: SQSRecord) => recordHandler(record, context.getRemainingTimeInMillis()),
    processor,
    {
      context,
    },
  ),
)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true }));
