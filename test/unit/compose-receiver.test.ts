import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { moBody, reportBody } from '../../fixtures/gateway-bodies.ts';
import { composeReceiver } from '../../functions/webhooks/compose.ts';
import { decoyProcessEnv } from '../support/decoy-process-env.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { webhookSecretHolding } from '../support/secrets-client.ts';
import { silentObservability } from '../support/silent-observability.ts';

const SECRET = 'env-secret-0123456789';
const { arn, secrets } = webhookSecretHolding(SECRET);

const ENV = {
  EVENT_TABLE_NAME: 'events-table',
  PAYLOAD_BUCKET: 'payload-bucket',
  WEBHOOK_SECRET_ARN: arn,
  EVENT_RETENTION_DAYS: '40',
  STORE_CONCURRENCY: '3',
};

const observed = { ...silentObservability(), secrets };

const event = (secret: string, body: unknown) =>
  ({
    pathParameters: { secret },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEvent;

describe('composeReceiver', () => {
  it('composes a receiver from the environment object it is given, not process.env', async () => {
    decoyProcessEnv({ WEBHOOK_SECRET_ARN: 'arn:decoy', EVENT_RETENTION_DAYS: '90' });
    const store = new FakeEventStore();

    const receiver = composeReceiver('report', ENV, { ...observed, wrapStore: () => store });

    expect(receiver.receive.retentionDays).toBe(40);
    expect(receiver.receive.concurrency).toBe(3);
    expect(receiver.logger).toBe(observed.logger);
    expect((await receiver.handler(event(SECRET, reportBody(2)))).statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(2);
    expect(
      (await receiver.handler(event('process-secret-0123456789', reportBody(1)))).statusCode,
    ).toBe(404);
  });

  it('composes the MO receiver alike, answering code 10000', async () => {
    const store = new FakeEventStore();
    const receiver = composeReceiver('mo', ENV, { ...observed, wrapStore: () => store });

    const answer = await receiver.handler(event(SECRET, moBody(1)));

    expect(JSON.parse(answer.body)).toMatchObject({ code: '10000' });
    expect(store.ofKind('mo')).toHaveLength(1);
  });

  it.each(['EVENT_TABLE_NAME', 'PAYLOAD_BUCKET'])('fails naming a missing %s', (name) => {
    const env = { ...ENV, [name]: undefined };

    expect(() => composeReceiver('report', env, observed)).toThrow(
      `environment variable ${name} is required`,
    );
  });

  it('fails naming the webhook secret when it is not set', () => {
    expect(() =>
      composeReceiver('mo', { ...ENV, WEBHOOK_SECRET_ARN: undefined }, observed),
    ).toThrow(/WEBHOOK_SECRET_ARN/);
  });

  it('fails naming a malformed EVENT_RETENTION_DAYS', () => {
    expect(() =>
      composeReceiver('report', { ...ENV, EVENT_RETENTION_DAYS: '7' }, observed),
    ).toThrow(/EVENT_RETENTION_DAYS/);
  });
});
