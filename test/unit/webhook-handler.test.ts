import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { moBody, reportBody } from '../../fixtures/gateway-bodies.ts';
import { createLogger, maskingReplacer } from '../../functions/commons/observability.ts';
import {
  matchesWebhookSecret,
  webhookSecretFromEnvironment,
} from '../../functions/webhooks/webhook-secret.ts';
import { webhookSecretHolding } from '../support/secrets-client.ts';
import { restEvent, SECRET, webhookReceiver } from '../support/webhook-fronts.ts';

/**
 * The JSON lines Powertools' logger writes (stdout, and stderr for warnings and errors), in order.
 * Node's own process warnings are left out: the AWS SDK's one-time Node.js 20 notice, raised when
 * an earlier test built a client, reaches stderr whenever the runner flushes its output, which may
 * be while a receiver awaits its first item's schema module.
 */
const captureLogLines = () => {
  const writes: string[] = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (!/^\(node:\d+\) \w*Warning: /.test(text)) writes.push(text);
      return true;
    });
  return () =>
    writes
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: string; message: string; moKeys?: string[] });
};

const event = restEvent;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('the path secret', () => {
  it.each([
    ['a wrong secret', 'wrong-secret-0123456789'],
    ['a missing secret', undefined],
    ['an empty secret', ''],
    ['a prefix of the secret', SECRET.current.slice(0, 10)],
  ])('answers 404 and touches nothing for %s', async (_, secret) => {
    const { handler, store } = webhookReceiver('report');

    const answer = await handler(event(secret, JSON.stringify(reportBody(1))));

    expect(answer.statusCode).toBe(404);
    expect(store.puts).toBe(0);
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
    const atInfo = webhookReceiver('mo', {
      logger: new Logger({ serviceName: 'receive-inbound', logLevel: 'INFO' }),
    });
    const atDebug = webhookReceiver('mo', {
      logger: new Logger({ serviceName: 'receive-inbound', logLevel: 'DEBUG' }),
    });
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
    const { handler, store } = webhookReceiver('report', {
      logger: new Logger({ serviceName: 'receive-reports', logLevel: 'INFO' }),
    });

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
