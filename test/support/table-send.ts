/**
 * The send use case on DynamoDB-protocol tables, wired as the send Lambda wires it (send store on
 * the event table, rate limiter on the state table), and SMS queue messages to feed it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { smsBody } from '../../fixtures/send-bodies.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { DynamoDbRateLimiter } from '../../functions/sending/adapters/dynamodb-rate-limiter.ts';
import type {
  QueueDelivery,
  SendDeps,
  SendGateway,
  SendResult,
} from '../../functions/sending/ports.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import { MemoryReportChecks } from './memory-report-checks.ts';

export interface SendTables {
  readonly documents: DynamoDBDocumentClient;
  readonly eventTable: string;
  readonly stateTable: string;
}

/**
 * The send dependencies on `tables`, with a quota of 1,000/s and 20 s to finish each attempt, a
 * report-check queue of its own in memory, and "Message Accepted" events on.
 */
export const tableSendDeps = (
  tables: SendTables,
  gateway: SendGateway,
  now: () => Date,
  overrides: Partial<SendDeps> = {},
): SendDeps => ({
  store: new DynamoDbSendStore(tables.eventTable, 35, tables.documents),
  awaiting: new MemoryReportChecks(() => now().getTime()),
  acceptedEvents: true,
  gateway,
  rateLimiter: new DynamoDbRateLimiter(tables.stateTable, { quota: 1_000 }, tables.documents),
  now,
  retentionDays: 35,
  claimLeaseMs: 30_000,
  deadline: Date.now() + 20_000,
  ...overrides,
});

/**
 * Delivers a new SMS queue message to `count` recipients (its `receiveCount`-th delivery, queued
 * at `sentAt`), with `fields` besides (a schedule, say); answers the use case's result and the
 * recipients' cliKeys.
 */
export const sendSms = async (
  count: number,
  deps: SendDeps,
  sentAt: Date,
  receiveCount = 1,
  fields: Record<string, unknown> = {},
): Promise<{ result: SendResult; cliKeys: string[] }> => {
  const message = { channel: 'sms', ...smsBody(count), ...fields };
  const delivery: QueueDelivery = {
    body: JSON.stringify(message),
    messageId: `m-${Math.random()}`,
    sentAt,
    receiveCount,
    maxReceiveCount: 6,
  };
  const result = await sendQueuedMessage(delivery, deps);
  return { result, cliKeys: message.recvInfoLst.map((recipient) => recipient.cliKey) };
};
