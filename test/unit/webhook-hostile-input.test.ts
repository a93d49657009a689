import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { moBody, reportBody } from '../../fixtures/gateway-bodies.ts';
import type { ReceiveDeps, WebhookKind } from '../../functions/received-items/receive-items.ts';
import { createWebhookHandler } from '../../functions/webhooks/handler.ts';
import { LimitedEventStore, MemoryPayloadStore } from '../support/limited-event-store.ts';
import { RECEIVE_SETTINGS } from '../support/webhook-receive-settings.ts';

const SECRET = 'current-secret-0123456789';
const PHONE = '01012345678';

const setup = (
  kind: WebhookKind,
  overrides: { secret?: () => Promise<{ current: string }>; receive?: Partial<ReceiveDeps> } = {},
) => {
  const store = new LimitedEventStore();
  const payloads = new MemoryPayloadStore();
  const logger = new Logger({ logLevel: 'SILENT' });
  const logged = vi.spyOn(logger, 'error');
  const handler = createWebhookHandler({
    kind,
    secret: overrides.secret ?? (async () => ({ current: SECRET })),
    receive: { store, payloads, ...RECEIVE_SETTINGS, ...overrides.receive },
    logger,
    metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
  });
  return { store, payloads, handler, logged };
};

const event = (body: string | null, isBase64Encoded = false) =>
  ({
    pathParameters: { secret: SECRET },
    body,
    isBase64Encoded,
  }) as unknown as APIGatewayProxyEvent;

const bodyOf = (kind: WebhookKind) =>
  JSON.stringify(kind === 'report' ? reportBody(1) : moBody(1)).replaceAll('01098765432', PHONE);

/** The contract's "deliver again": report 400; MO a code of 20000 or above. */
const expectRetryAnswer = (kind: WebhookKind, answer: APIGatewayProxyResult) => {
  if (kind === 'report') expect(answer.statusCode).toBe(400);
  else expect(Number(JSON.parse(answer.body).code)).toBeGreaterThanOrEqual(20000);
};

/** The contract's success: report 200 or 204; MO code 10000. */
const expectSuccess = (kind: WebhookKind, answer: APIGatewayProxyResult) => {
  if (kind === 'report') expect([200, 204]).toContain(answer.statusCode);
  else expect(JSON.parse(answer.body).code).toBe('10000');
};

const KINDS: WebhookKind[] = ['report', 'mo'];

describe.each(KINDS)('the %s webhook when a dependency throws', (kind) => {
  it.each<[string, Parameters<typeof setup>[1]]>([
    [
      'the secret lookup',
      { secret: () => Promise.reject(new Error(`AccessDenied for caller ${PHONE}`)) },
    ],
    [
      'the clock',
      {
        receive: {
          now: () => {
            throw new RangeError('Invalid time value');
          },
        },
      },
    ],
    [
      'the store, synchronously and not with an Error',
      {
        receive: {
          store: {
            putIfAbsent: () => {
              throw 'socket hang up';
            },
          },
        },
      },
    ],
    [
      'the store failure callback',
      {
        receive: {
          store: { putIfAbsent: () => Promise.reject(new Error('throttled')) },
          onStoreFailure: () => {
            throw new Error('logger broke');
          },
        },
      },
    ],
  ])(
    'answers the retry answer, not a 5xx from API Gateway, when %s throws',
    async (_, overrides) => {
      const { handler, logged } = setup(kind, overrides);
      const body = bodyOf(kind);

      const answer = await handler(event(body));

      expectRetryAnswer(kind, answer);
      const lines = JSON.stringify(logged.mock.calls);
      expect(lines).not.toContain(PHONE);
      expect(lines).not.toContain(body.slice(0, 40));
    },
  );

  it('answers the retry answer when the payload bucket fails', async () => {
    const { handler, payloads, store } = setup(kind);
    payloads.failNext(1);

    const answer = await handler(event('y'.repeat(400_000)));

    expectRetryAnswer(kind, answer);
    expect(store.items.size).toBe(0);
  });
});

describe.each(KINDS)('the %s webhook on hostile bytes', (kind) => {
  const deep = (depth: number) => `{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const list = kind === 'report' ? 'rptLst' : 'moLst';
  it.each<[string, string, boolean]>([
    [
      'invalid UTF-8 (base64)',
      Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]).toString('base64'),
      true,
    ],
    ['base64 that is not JSON', Buffer.from('not json at all').toString('base64'), true],
    ['base64 of a valid body', Buffer.from(bodyOf(kind)).toString('base64'), true],
    ['a deeply nested body', deep(200_000), false],
    [
      'a deeply nested item',
      `{"${list}":[{"msgKey":"M1","moKey":"MO1","cliKey":"c","resultCode":"10000","userCustomFields":{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}}]}`,
      false,
    ],
    [
      '__proto__ keys',
      `{"__proto__":{"polluted":true},"${list}":[{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}}}]}`,
      false,
    ],
    [
      'a lone surrogate and NUL',
      `{"${list}":[{"msgKey":"\\ud800","moKey":"\\u0000","cliKey":"c","resultCode":"1"}]}`,
      false,
    ],
    ['an empty body', '', false],
    [
      'a 5 MB body',
      `{"${list}":[${JSON.stringify({ msgKey: 'M9', moKey: 'MO9', cliKey: 'c', resultCode: '10000', moMsg: '한'.repeat(1_700_000), resultCodeDesc: '한'.repeat(1_700_000) })}]}`,
      false,
    ],
    [
      '100,000 empty items',
      `{"${list}":[${Array.from({ length: 100_000 }, () => '{}').join(',')}]}`,
      false,
    ],
  ])(
    'answers success and keeps %s',
    async (_, body, isBase64Encoded) => {
      const { handler, store } = setup(kind);

      const answer = await handler(event(body, isBase64Encoded));

      expectSuccess(kind, answer);
      expect({} as Record<string, unknown>).not.toHaveProperty('polluted');
      if (body !== '') expect(store.items.size).toBeGreaterThan(0);
    },
    60_000,
  );
});
