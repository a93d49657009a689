import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import type { RecipientResult } from '../../functions/send-records/ports.ts';
import {
  createSendRecordHandler,
  redeliveryDelaySeconds,
  SendRetryLaterError,
} from '../../functions/sending/handler.ts';
import type { SendDeps } from '../../functions/sending/ports.ts';
import type { SendOutcome } from '../../gateway/client.ts';
import { GatewayRateLimitedError } from '../../gateway/errors.ts';
import { FakeSendStore } from '../support/fake-send-store.ts';

const record = (body: unknown, receiveCount = 1): SQSRecord =>
  ({
    messageId: 'sqs-1',
    receiptHandle: 'handle-1',
    body: JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.now()),
    },
  }) as unknown as SQSRecord;

const setup = (answer: () => SendOutcome<RecipientResult> | Error) => {
  const delays: Array<{ handle: string; seconds: number }> = [];
  const store = new FakeSendStore();
  const deps = (): SendDeps => ({
    store,
    awaiting: store,
    acceptedEvents: true,
    gateway: {
      send: async (message, options) => {
        await options?.beforeSend?.();
        const result = answer();
        if (result instanceof Error) throw result;
        if (result.kind === 'scheduled') return result;
        const keys =
          'recvInfoLst' in message.body ? message.body.recvInfoLst.map((r) => r.cliKey) : [];
        return {
          kind: 'immediate',
          results: keys.map((cliKey) => ({
            cliKey,
            msgKey: 'M',
            code: result.results[0]?.code ?? '10000',
          })),
        };
      },
    },
    rateLimiter: {
      acquire: async (recipients) => ({
        waitedMs: 0,
        window: 0,
        fullWindows: 0,
        reserved: recipients,
      }),
    },
    now: () => new Date(),
    retentionDays: 35,
    claimLeaseMs: 60_000,
    deadline: Date.now() + 10_000,
  });
  const handler = createSendRecordHandler({
    deps,
    maxReceiveCount: 6,
    delayRedelivery: async (r, seconds) => {
      delays.push({ handle: r.receiptHandle, seconds });
    },
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
  });
  return { handler, delays, store };
};

describe('the send-messages record handler', () => {
  it('resolves when every recipient is decided', async () => {
    const { handler, delays } = setup(() => ({
      kind: 'immediate',
      results: [{ cliKey: 'x', code: '10000' }],
    }));

    await expect(handler(record({ channel: 'sms', ...smsBody(2) }), 30_000)).resolves.toMatchObject(
      { kind: 'done', accepted: 2 },
    );
    expect(delays).toEqual([]);
  });

  it('resolves for an invalid message: it is rejected for good, not retried', async () => {
    const { handler, delays } = setup(() => new Error('must not be called'));

    await expect(handler(record({ channel: 'sms' }), 30_000)).resolves.toMatchObject({
      kind: 'invalid',
    });
    expect(delays).toEqual([]);
  });

  it('pushes the visibility out and throws so that the batch reports the message as failed', async () => {
    const { handler, delays } = setup(
      () => new GatewayRateLimitedError({ code: '29002', message: 'tps', endpoint: 'e' }),
    );

    await expect(
      handler(record({ channel: 'sms', ...smsBody(1) }, 3), 30_000),
    ).rejects.toBeInstanceOf(SendRetryLaterError);
    expect(delays).toHaveLength(1);
    expect(delays[0]?.handle).toBe('handle-1');
    expect(delays[0]?.seconds).toBeGreaterThanOrEqual(45);
    expect(delays[0]?.seconds).toBeLessThanOrEqual(60);
  });
});

describe('redeliveryDelaySeconds', () => {
  it('doubles from 15 s and stops at 15 minutes, with at most a quarter of jitter', () => {
    expect(redeliveryDelaySeconds(1, () => 1)).toBe(15);
    expect(redeliveryDelaySeconds(2, () => 1)).toBe(30);
    expect(redeliveryDelaySeconds(4, () => 1)).toBe(120);
    expect(redeliveryDelaySeconds(20, () => 1)).toBe(900);
    expect(redeliveryDelaySeconds(2, () => 0)).toBe(23);
  });
});
