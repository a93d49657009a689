import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { moBody, reportBody } from '../../fixtures/gateway-bodies.ts';
import { createLogger, maskingReplacer } from '../../functions/commons/observability.ts';
import { createWebhookHandler } from '../../functions/inbound/handler.ts';
import {
  matchesWebhookSecret,
  webhookSecretFromEnvironment,
} from '../../functions/inbound/webhook-secret.ts';
import type { WebhookKind } from '../../functions/received-items/receive-items.ts';
import { FakeEventStore } from '../support/fake-event-store.ts';
import { MemoryPayloadStore } from '../support/limited-event-store.ts';
import { webhookSecretHolding } from '../support/secrets-client.ts';
import { RECEIVE_SETTINGS } from '../support/webhook-receive-settings.ts';

const SECRET = { current: 'current-secret-0123456789', previous: 'previous-secret-0123456789' };

const setup = (kind: WebhookKind, logger = new Logger({ logLevel: 'SILENT' })) => {
  const store = new FakeEventStore();
  const payloads = new MemoryPayloadStore();
  const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
  const handler = createWebhookHandler({
    kind,
    secret: async () => SECRET,
    receive: { store, payloads, ...RECEIVE_SETTINGS },
    logger,
    metrics,
  });
  return { store, payloads, handler, metrics };
};

/** The JSON lines Powertools' logger writes (stdout, and stderr for warnings and errors), in order. */
const captureLogLines = () => {
  const writes: string[] = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
  return () =>
    writes
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: string; message: string; moKeys?: string[] });
};

const event = (secret: string | undefined, body: string | null, isBase64Encoded = false) =>
  ({
    pathParameters: secret === undefined ? null : { secret },
    body,
    isBase64Encoded,
  }) as unknown as APIGatewayProxyEvent;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('the report webhook contract', () => {
  it('answers 200 once every report is stored', async () => {
    const { handler, store } = setup('report');

    const answer = await handler(event(SECRET.current, JSON.stringify(reportBody(3))));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(3);
  });

  it('answers 200 for a redelivered body (all duplicates)', async () => {
    const { handler } = setup('report');
    const body = JSON.stringify(reportBody(3));
    await handler(event(SECRET.current, body));

    const answer = await handler(event(SECRET.current, body));

    expect(answer.statusCode).toBe(200);
  });

  it('answers 204 for an empty list', async () => {
    const { handler } = setup('report');

    const answer = await handler(event(SECRET.current, JSON.stringify({ rptCnt: 0, rptLst: [] })));

    expect(answer).toMatchObject({ statusCode: 204, body: '' });
  });

  it('answers 400 when a write failed, so the gateway delivers again', async () => {
    const { handler, store } = setup('report');
    store.failNext(1);

    const answer = await handler(event(SECRET.current, JSON.stringify(reportBody(2))));

    expect(answer.statusCode).toBe(400);
  });

  it('answers 200 for a body that is not JSON, after quarantining it', async () => {
    const { handler, store } = setup('report');

    const answer = await handler(event(SECRET.current, '<xml/>'));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('quarantine')).toHaveLength(1);
  });

  it('reads a base64-encoded body', async () => {
    const { handler, store } = setup('report');
    const body = Buffer.from(JSON.stringify(reportBody(1))).toString('base64');

    const answer = await handler(event(SECRET.current, body, true));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('report')).toHaveLength(1);
  });

  it('keeps a body larger than 256 KiB (in the payload bucket) instead of refusing it', async () => {
    const { handler, store, payloads } = setup('report');
    const body = 'x'.repeat(256 * 1024 + 1);

    const answer = await handler(event(SECRET.current, body));

    expect(answer.statusCode).toBe(200);
    expect(store.ofKind('quarantine')).toHaveLength(1);
    expect([...payloads.objects.values()].map((bytes) => bytes.toString('utf8'))).toEqual([body]);
  });
});

describe('the MO webhook contract', () => {
  it('answers code 10000 after storage', async () => {
    const { handler, store } = setup('mo');

    const answer = await handler(event(SECRET.current, JSON.stringify(moBody(2))));

    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ code: '10000', message: 'success' });
    expect(store.ofKind('mo')).toHaveLength(2);
  });

  it('answers a code of 20000 or above on a transient failure', async () => {
    const { handler, store } = setup('mo');
    store.failNext(1);

    const answer = await handler(event(SECRET.current, JSON.stringify(moBody(1))));

    expect(Number(JSON.parse(answer.body).code)).toBeGreaterThanOrEqual(20000);
  });

  it('answers success for an unrecognised body after keeping it', async () => {
    const { handler, store } = setup('mo');

    const answer = await handler(event(SECRET.current, JSON.stringify({ biLst: [{ a: 1 }] })));

    expect(JSON.parse(answer.body).code).toBe('10000');
    expect(store.ofKind('unrecognised')).toHaveLength(1);
  });
});

describe('the path secret', () => {
  it.each([
    ['a wrong secret', 'wrong-secret-0123456789'],
    ['a missing secret', undefined],
    ['an empty secret', ''],
    ['a prefix of the secret', SECRET.current.slice(0, 10)],
  ])('answers 404 and touches nothing for %s', async (_, secret) => {
    const { handler, store } = setup('report');

    const answer = await handler(event(secret, JSON.stringify(reportBody(1))));

    expect(answer.statusCode).toBe(404);
    expect(store.puts).toBe(0);
  });

  it('accepts the previous secret during a rotation', async () => {
    const { handler } = setup('mo');

    const answer = await handler(event(SECRET.previous, JSON.stringify(moBody(1))));

    expect(JSON.parse(answer.body).code).toBe('10000');
  });

  it('matches only the exact current or previous value', () => {
    expect(matchesWebhookSecret(SECRET.current, SECRET)).toBe(true);
    expect(matchesWebhookSecret(SECRET.previous, { current: SECRET.current })).toBe(false);
    expect(matchesWebhookSecret(`${SECRET.current}x`, SECRET)).toBe(false);
  });

  it('reads the secret WEBHOOK_SECRET_ARN names, and refuses a short one or none', async () => {
    const { arn, secrets } = webhookSecretHolding('deployed-secret-0123456789');
    await expect(
      webhookSecretFromEnvironment({ WEBHOOK_SECRET_ARN: arn }, secrets)(),
    ).resolves.toEqual({
      current: 'deployed-secret-0123456789',
    });

    const short = webhookSecretHolding('short');
    await expect(
      webhookSecretFromEnvironment({ WEBHOOK_SECRET_ARN: short.arn }, short.secrets)(),
    ).rejects.toThrow(/at least 16/);

    expect(() => webhookSecretFromEnvironment({})).toThrow(/WEBHOOK_SECRET_ARN/);
  });
});

describe('what a receiver logs', () => {
  it('writes nothing at INFO for a body stored whole, the same body as a debug line at DEBUG', async () => {
    // Prepare
    const lines = captureLogLines();
    const atInfo = setup('mo', new Logger({ serviceName: 'receive-inbound', logLevel: 'INFO' }));
    const atDebug = setup('mo', new Logger({ serviceName: 'receive-inbound', logLevel: 'DEBUG' }));
    const body = JSON.stringify(moBody(1));

    // Act
    const answer = await atInfo.handler(event(SECRET.current, body));
    const written = lines().length;
    await atDebug.handler(event(SECRET.current, body));

    // Assess
    expect(answer.statusCode).toBe(200);
    expect(written).toBe(0);
    const [stored, ...others] = lines();
    expect(others).toEqual([]);
    expect(stored).toMatchObject({ level: 'DEBUG', message: 'webhook body stored' });
    expect(stored?.moKeys).toHaveLength(1);
  });

  it('warns or errs at INFO for what an operator acts on: a quarantined body, a refused request, a failed write', async () => {
    // Prepare
    const lines = captureLogLines();
    const { handler, store } = setup(
      'report',
      new Logger({ serviceName: 'receive-reports', logLevel: 'INFO' }),
    );

    // Act
    await handler(event(SECRET.current, 'not json'));
    await handler(event('wrong-secret-0123456789', JSON.stringify(reportBody(1))));
    store.failNext(1);
    await handler(event(SECRET.current, JSON.stringify(reportBody(1))));

    // Assess
    expect(lines().map(({ level, message }) => [level, message])).toEqual([
      ['WARN', 'webhook body stored with quarantined parts'],
      ['WARN', 'webhook path secret did not match'],
      ['ERROR', 'webhook body not fully stored; asking for redelivery'],
    ]);
  });
});

describe('log masking', () => {
  it('masks phone fields and phone numbers inside text', () => {
    const line = JSON.stringify(
      {
        phone: '01012345678',
        moCallback: '010-9876-5432',
        message: 'sent to 01011112222',
        cliKey: 'order-1',
      },
      maskingReplacer,
    );

    expect(line).not.toMatch(/01012345678|9876|01011112222/);
    expect(JSON.parse(line)).toEqual({
      phone: '010****5678',
      moCallback: '010****5432',
      message: 'sent to 010****2222',
      cliKey: 'order-1',
    });
  });

  it('is what the logger writes', () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const logger = createLogger('test');

    logger.info('inbound', { sender: '01055556666', moCallback: '01055556666' });

    const output = writes.join('');
    expect(output).toContain('010****6666');
    expect(output).not.toContain('01055556666');
  });
});
