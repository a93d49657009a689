import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { GatewayClient } from '../../gateway/client.ts';
import { sqsClient } from '../commons/clients/sqs.ts';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import {
  booleanEnv,
  type Environment,
  integerEnv,
  optionalEnv,
  requiredEnv,
} from '../commons/environment.ts';
import { S3PayloadStore } from '../event-table/s3-payload-store.ts';
import { gatewayFromEnvironment } from '../gateway-access/gateway-from-environment.ts';
import { DynamoDbSendStore } from '../send-records/adapters/dynamodb-send-store.ts';
import { SqsReportChecks } from '../send-records/adapters/sqs-report-checks.ts';
import { DynamoDbRateLimiter } from './adapters/dynamodb-rate-limiter.ts';
import { GatewaySender, loadS3Attachments } from './adapters/gateway-sender.ts';
import { coalescingRateLimiter } from './coalescing-rate-limiter.ts';
import { createSendRecordHandler } from './handler.ts';
import type { SendGateway } from './ports.ts';
import { meteredRateLimiter } from './rate-limit-metrics.ts';

/** What the local run supplies instead of the Lambda's own (`s3`: where MMS attachments are read). */
export interface SenderOverrides extends CompositionOverrides {
  readonly sqs?: SQSClient;
  /** The gateway client and its per-call time limit; the `GATEWAY_*` variables are then not read. */
  readonly gateway?: { readonly client: GatewayClient; readonly timeoutMs: number };
  /** Wraps the gateway the sends go through (the fault-injection run). */
  readonly wrapGateway?: (gateway: SendGateway) => SendGateway;
  /** The rate limiter's clock (epoch ms). @default Date.now */
  readonly rateLimiterNow?: () => number;
  /**
   * The claim lease and the deadline of an invocation with `remainingMs` left.
   * @default a lease of `remainingMs` + 5 s; a deadline leaving the gateway call its timeout and 2 s
   */
  readonly timeBudget?: (remainingMs: number) => {
    readonly claimLeaseMs: number;
    readonly deadline: number;
  };
}

/**
 * Composes `send-messages` (the send queue → the gateway, one queue message = one send request)
 * from its environment, read once, at cold start: EVENT_TABLE_NAME, STATE_TABLE_NAME,
 * SEND_QUEUE_URL, REPORT_CHECK_QUEUE_URL (where accepted recipients are queued for
 * reconcile-status), TPS_QUOTA, MAX_RECEIVE_COUNT (the DLQ redrive count), EVENT_RETENTION_DAYS,
 * ACCEPTED_EVENTS (`on` or `off`, default `off`: whether accepted recipients are also published as
 * "Message Accepted" events), PAYLOAD_BUCKET (where a rejected message too large for its table
 * item is kept), and the gateway's GATEWAY_API_URL, GATEWAY_SEND_URL,
 * GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS, GATEWAY_CREDENTIALS_SECRET_ARN. The Lambda
 * entry wraps `handler` in middy; the local run feeds `recordHandler` from its queue poller.
 */
export const composeSender = (env: Environment = process.env, overrides: SenderOverrides = {}) => {
  const { logger, metrics } = observabilityOf('send-messages', overrides);
  const { client: gatewayClient, timeoutMs } =
    overrides.gateway ??
    gatewayFromEnvironment(logger, {
      env,
      documents: overrides.documents,
      secrets: overrides.secrets,
    });
  const queueUrl = requiredEnv('SEND_QUEUE_URL', env);
  const retentionDays = integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }, env);
  const acceptedEvents = booleanEnv('ACCEPTED_EVENTS', false, env);
  const reportCheckQueueUrl = requiredEnv('REPORT_CHECK_QUEUE_URL', env);
  const store = new DynamoDbSendStore(
    requiredEnv('EVENT_TABLE_NAME', env),
    retentionDays,
    overrides.documents,
  );
  // The quota must hold a whole 10-recipient request. No request is let go in the last 100 ms of
  // a second (the guard); one let go in the last 300 ms, or within the longest recent time from a
  // reservation to an answer, also holds its recipients in the next second, which the gateway may
  // count it in (docs/reliability.md, guarantee 4).
  // Concurrent requests of a few recipients share one counter write (up to 10 recipients,
  // gathered for 10 ms): the 1-recipient messages of a batch take one write, not ten.
  const rateLimiter = meteredRateLimiter(
    coalescingRateLimiter(
      new DynamoDbRateLimiter(
        requiredEnv('STATE_TABLE_NAME', env),
        {
          quota: integerEnv('TPS_QUOTA', 100, { min: 10, max: 100_000 }, env),
          guardMs: 100,
          arrivalMarginMs: 300,
          ...(overrides.rateLimiterNow ? { now: overrides.rateLimiterNow } : {}),
        },
        overrides.documents,
      ),
      { maxRecipients: 10, gatherMs: 10 },
    ),
    metrics,
  );
  const { s3 } = overrides;
  const sender = new GatewaySender(
    gatewayClient,
    s3 ? (attachments) => loadS3Attachments(attachments, s3) : undefined,
  );
  const gateway = overrides.wrapGateway?.(sender) ?? sender;
  // The claim check of a rejected message too large for its item (the stack always sets it).
  const payloadBucket = optionalEnv('PAYLOAD_BUCKET', env);
  const payloads = payloadBucket ? new S3PayloadStore(payloadBucket, s3) : undefined;
  const sqs = overrides.sqs ?? sqsClient();
  // The checks of a batch's concurrent records go out together (gathered for 10 ms).
  const awaiting = new SqsReportChecks(sqs, reportCheckQueueUrl, { gatherMs: 10 });
  const timeBudget =
    overrides.timeBudget ??
    ((remainingMs: number) => ({
      // A claim outlives this invocation, and is far shorter than the visibility timeout (6×).
      claimLeaseMs: remainingMs + 5_000,
      // Leave the gateway call its timeout and a margin to record the outcome.
      deadline: Date.now() + remainingMs - timeoutMs - 2_000,
    }));

  const recordHandler = createSendRecordHandler({
    deps: (remainingMs) => ({
      store,
      awaiting,
      gateway,
      rateLimiter,
      now: () => new Date(),
      retentionDays,
      acceptedEvents,
      ...(payloads ? { payloads } : {}),
      ...timeBudget(remainingMs),
    }),
    maxReceiveCount: integerEnv('MAX_RECEIVE_COUNT', 6, { min: 2, max: 1_000 }, env),
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
  const handler = async (event: SQSEvent, context: Context) =>
    processPartialResponse(
      event,
      (record: SQSRecord) => recordHandler(record, context.getRemainingTimeInMillis()),
      processor,
      { context },
    );
  return { handler, recordHandler, logger, metrics };
};
